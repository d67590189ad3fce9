//===- UpdateInPlace.cpp - Drop results updated in place ------------------===//
//
// Part of the Echo project.
//
// echo-update-in-place (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOUPDATEINPLACE
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

/// `v` without the memref.casts around it.
static Value stripCasts(Value v) {
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  return v;
}

namespace {
struct EchoUpdateInPlacePass
    : public echo::impl::EchoUpdateInPlaceBase<EchoUpdateInPlacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef attrName = EchoDialect::getUpdatedArgumentsAttrName();
    SmallVector<func::FuncOp> steps;
    for (auto func : module.getOps<func::FuncOp>()) {
      auto updated = func->getAttrOfType<DenseI64ArrayAttr>(attrName);
      if (!updated || func.isExternal())
        continue;
      if (failed(writeBack(func, updated.asArrayRef())))
        return signalPassFailure();
      func->removeAttr(attrName);
      steps.push_back(func);
    }
    if (steps.empty())
      return;
    // Upstream's pass leaves public functions alone: the steps are private
    // for the call only.
    SmallVector<SymbolTable::Visibility> visibility;
    for (func::FuncOp step : steps) {
      visibility.push_back(step.getVisibility());
      step.setPrivate();
    }
    LogicalResult dropped = bufferization::dropEquivalentBufferResults(module);
    for (auto [step, v] : llvm::zip_equal(steps, visibility))
      step.setVisibility(v);
    if (failed(dropped))
      return signalPassFailure();
  }

  /// Makes every result that `updated` ties to an argument that argument's
  /// own buffer, copying it there where one-shot bufferization wrote it
  /// elsewhere.
  LogicalResult writeBack(func::FuncOp func, ArrayRef<int64_t> updated) {
    WalkResult walk = func.walk([&](func::ReturnOp ret) {
      if (ret.getNumOperands() != updated.size()) {
        func.emitError() << "'" << EchoDialect::getUpdatedArgumentsAttrName()
                         << "' lists " << updated.size()
                         << " results, but the function returns "
                         << ret.getNumOperands();
        return WalkResult::interrupt();
      }
      OpBuilder b(ret);
      for (auto [index, arg] : llvm::enumerate(updated)) {
        if (arg < 0)
          continue;
        Value result = ret.getOperand(index);
        BlockArgument target = func.getArgument(arg);
        if (stripCasts(result) == target) {
          ++numInPlace;
          continue;
        }
        if (!isa<BaseMemRefType>(result.getType()) ||
            result.getType() != target.getType()) {
          func.emitError() << "result " << index << " is the new value of "
                           << "argument " << arg << ", but is "
                           << result.getType() << " where the argument is "
                           << target.getType()
                           << " (run this pass after one-shot "
                              "bufferization, with identity layouts)";
          return WalkResult::interrupt();
        }
        // Written after everything else in the step, which no longer reads
        // the old value.
        memref::CopyOp::create(b, ret.getLoc(), result, target);
        ret.setOperand(index, target);
        ++numCopiedBack;
        func.emitWarning()
            << "result " << index << " (the new value of argument " << arg
            << ") could not be written in place: a reader of the old value "
               "follows the update; it is copied back at the end of the step";
      }
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }
};
} // namespace
