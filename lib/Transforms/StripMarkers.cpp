//===- StripMarkers.cpp - Drop echo.param / echo.train_step ---------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryCategories.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOSTRIPMARKERS
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {
struct EchoStripMarkersPass
    : public echo::impl::EchoStripMarkersBase<EchoStripMarkersPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      func->removeAttr(EchoDialect::getTrainStepAttrName());
      func->removeAttr(EchoDialect::getRecomputeStrategyAttrName());
      func->removeAttr(EchoDialect::getMemoryStatsAttrName());
      func->removeAttr(EchoDialect::getOffloadScheduleAttrName());
      func->removeAttr(EchoDialect::getChunkedLossAttrName());
      func->removeAttr(EchoDialect::getBufferPlanAttrName());
      func->removeAttr(EchoDialect::getUpdatedArgumentsAttrName());
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        func.removeArgAttr(i, EchoDialect::getParamAttrName());
        func.removeArgAttr(i, EchoDialect::getOptimizerStateAttrName());
        func.removeArgAttr(i, EchoDialect::getHyperAttrName());
        func.removeArgAttr(i, EchoDialect::getArenaAttrName());
        func.removeArgAttr(i, EchoDialect::getFrozenAttrName());
        func.removeArgAttr(i, EchoDialect::getRngSeedAttrName());
      }
    });
    getOperation().walk([](memref::AllocOp alloc) {
      alloc->removeAttr(EchoDialect::getArenaAttrName());
    });
    stripMemoryCategoryTags(getOperation());
  }
};
} // namespace
