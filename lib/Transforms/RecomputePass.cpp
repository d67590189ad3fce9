//===- RecomputePass.cpp - echo-recompute ---------------------------------===//
//
// Part of the Echo project.
//
// A thin pass over the recomputation library (echo/Transforms/Recompute.h):
// for each training step, the chosen strategy's plan, then the shared
// rewrite. The step records the strategy (`echo.recompute_strategy`).
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"
#include "echo/Transforms/Recompute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHORECOMPUTE
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {
struct EchoRecomputePass
    : public echo::impl::EchoRecomputeBase<EchoRecomputePass> {
  using Base::Base;

  void runOnOperation() override {
    if (!(heavyBudget >= 0.0 && heavyBudget <= 1.0)) {
      getOperation().emitError()
          << "echo-recompute: heavy-budget must be a share of the step's "
             "FLOPs in [0, 1], got "
          << heavyBudget;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> steps;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(EchoDialect::getTrainStepAttrName()) &&
          !func.isExternal())
        steps.push_back(func);
    for (func::FuncOp func : steps) {
      if (failed(rewrite(func)))
        return signalPassFailure();
      func.walk([&](RecomputeOp region) {
        ++numRegions;
        for (Operation &op : region.getBody().front())
          if (!isa<YieldOp, arith::ConstantOp>(op))
            ++numRecomputed;
      });
      func->setAttr(
          EchoDialect::getRecomputeStrategyAttrName(),
          StringAttr::get(&getContext(), stringifyRecomputeStrategy(strategy)));
    }
  }

  LogicalResult rewrite(func::FuncOp func) {
    if (auto done = func->getAttrOfType<StringAttr>(
            EchoDialect::getRecomputeStrategyAttrName()))
      return func.emitError() << "echo-recompute: @" << func.getSymName()
                              << " was already rewritten with strategy '"
                              << done.getValue() << "'";
    if (!TrainingStep(func).getLossOp())
      return func.emitError()
             << "echo-recompute: cannot find the loss of training step @"
             << func.getSymName() << " (its first result must be computed "
             << "by an op of the step)";
    if (strategy == RecomputeStrategy::None)
      return success();
    EchoPlanOptions echoOptions;
    echoOptions.heavyBudget = heavyBudget;
    applyRecomputePlan(func, planRecompute(func, strategy, echoOptions));
    return success();
  }
};
} // namespace
