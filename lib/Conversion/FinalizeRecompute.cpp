//===- FinalizeRecompute.cpp - echo-finalize-recompute --------------------===//
//
// Part of the Echo project.
//
// Hands an adopted step back to its producer's pipeline: recompute regions
// inlined, packed masks lowered, Echo's markers dropped.
//
//===----------------------------------------------------------------------===//

#include "EchoToLinalg/Patterns.h"
#include "echo/Conversion/Passes.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOFINALIZERECOMPUTE
#include "echo/Conversion/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {
struct EchoFinalizeRecomputePass
    : public echo::impl::EchoFinalizeRecomputeBase<EchoFinalizeRecomputePass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(EchoDialect::getAdoptedAttrName()) &&
          failed(finalize(func)))
        return signalPassFailure();
  }

  LogicalResult finalize(func::FuncOp func) {
    // The regions first: the masks they unpack become top-level ops.
    inlineRecomputeRegions(func);
    RewritePatternSet patterns(&getContext());
    linalg_lowering::populateMaskPackingPatterns(patterns);
    ConversionTarget target(getContext());
    target.addIllegalOp<PackMaskOp, UnpackMaskOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(func, target, std::move(patterns))))
      return failure();
    WalkResult left = func.walk([](Operation *op) {
      if (!isa_and_nonnull<EchoDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError() << "echo-finalize-recompute: cannot leave '"
                      << op->getName() << "' in an adopted step";
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      return failure();
    for (StringRef name : {EchoDialect::getAdoptedAttrName(),
                           EchoDialect::getTrainStepAttrName(),
                           EchoDialect::getRecomputeStrategyAttrName(),
                           EchoDialect::getMemoryStatsAttrName(),
                           EchoDialect::getTimeModelAttrName()})
      func->removeAttr(name);
    func.walk([](Operation *op) {
      op->removeAttr(EchoDialect::getBackwardBeginAttrName());
    });
    return success();
  }
};
} // namespace
