//===- TagMemoryCategories.cpp - echo-tag-memory-categories ---------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryCategories.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Transforms/Passes.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOTAGMEMORYCATEGORIES
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {
struct EchoTagMemoryCategoriesPass
    : public echo::impl::EchoTagMemoryCategoriesBase<
          EchoTagMemoryCategoriesPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(EchoDialect::getTrainStepAttrName()))
        tagMemoryCategories(func);
    // Only locations change: every analysis holds, and the verifier need
    // not run again (echo-run lowers an f64 copy of a step, which the Echo
    // verifier rejects until it is converted to linalg, through this phase).
    markAllAnalysesPreserved();
  }
};
} // namespace
