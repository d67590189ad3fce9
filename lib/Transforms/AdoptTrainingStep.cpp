//===- AdoptTrainingStep.cpp - echo-adopt-training-step -------------------===//
//
// Part of the Echo project.
//
// Marks the forward/backward split of a step that its producer already
// differentiated (a JAX train step, an AOTAutograd joint graph), in its
// producer's dialect, so that TrainingStep reads it as it reads the steps
// echo-autodiff builds: forward ops first, the first backward op marked.
// Everything is checked before anything changes.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/TrainingStep.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOADOPTTRAININGSTEP
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// The values `op` reads: its operands and the values its regions capture
/// from above.
SmallVector<Value> getReadValues(Operation *op) {
  SmallVector<Value> out(op->getOperands());
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (Value v : nested->getOperands())
      if (!op->isAncestor(v.getParentRegion()->getParentOp()))
        out.push_back(v);
  });
  return out;
}

/// True for a tensor type Echo cannot size: unranked or dynamically shaped.
bool isUnsizedTensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && !tensor.hasStaticShape();
}

struct EchoAdoptTrainingStepPass
    : public echo::impl::EchoAdoptTrainingStepBase<
          EchoAdoptTrainingStepPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (functionName.empty()) {
      module.emitError() << "echo-adopt-training-step: function= names no "
                            "function";
      return signalPassFailure();
    }
    auto func = module.lookupSymbol<func::FuncOp>(functionName);
    if (!func) {
      module.emitError() << "echo-adopt-training-step: no function @"
                         << functionName;
      return signalPassFailure();
    }
    if (failed(adopt(func)))
      signalPassFailure();
  }

  /// Emits the error `message` on `at`, prefixed with the pass name.
  InFlightDiagnostic error(Operation *at) {
    return at->emitError() << "echo-adopt-training-step: ";
  }

  LogicalResult adopt(func::FuncOp func) {
    if (func.isExternal())
      return error(func) << "@" << func.getSymName()
                         << " has no body to adopt";
    if (!func.getBody().hasOneBlock())
      return error(func) << "@" << func.getSymName() << " has "
                         << func.getBody().getBlocks().size()
                         << " blocks; only a single-block body is adopted";
    if (func->hasAttr(EchoDialect::getAdoptedAttrName()) ||
        func->hasAttr(EchoDialect::getTrainStepAttrName()))
      return error(func) << "@" << func.getSymName()
                         << " is a training step already";
    bool byLoss = loss >= 0, byTangents = !tangents.empty();
    if (byLoss == byTangents)
      return error(func) << "give either loss=<result#> or "
                            "tangents=<arg#,...> to split @"
                         << func.getSymName() << " into forward and backward";
    Block &body = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
    if (!ret)
      return error(func) << "@" << func.getSymName()
                         << " does not end with func.return";

    // Shapes: every tensor must have a size.
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isUnsizedTensor(type))
        return error(func) << "argument #" << i << " of @" << func.getSymName()
                           << " has type " << type
                           << "; only statically shaped tensors are adopted";
    for (Operation &op : body)
      for (auto [i, type] : llvm::enumerate(op.getResultTypes()))
        if (isUnsizedTensor(type))
          return error(&op) << "result #" << i << " of '" << op.getName()
                            << "' has type " << type
                            << "; only statically shaped tensors are adopted";

    // The forward pass.
    DenseSet<Operation *> forward;
    if (byLoss) {
      if (loss >= static_cast<int64_t>(ret.getNumOperands()))
        return error(func) << "loss=" << static_cast<int64_t>(loss) << " but @" << func.getSymName()
                           << " has " << ret.getNumOperands() << " result(s)";
      Operation *def = ret.getOperand(loss).getDefiningOp();
      if (!def || def->getBlock() != &body)
        return error(func) << "loss=" << static_cast<int64_t>(loss) << ": result #" << static_cast<int64_t>(loss)
                           << " of @" << func.getSymName()
                           << " is not computed by its body";
      SmallVector<Operation *> worklist{def};
      while (!worklist.empty()) {
        Operation *op = worklist.pop_back_val();
        if (!forward.insert(op).second)
          continue;
        for (Value v : getReadValues(op))
          if (Operation *d = v.getDefiningOp())
            if (Operation *top = body.findAncestorOpInBlock(*d))
              worklist.push_back(top);
      }
    } else {
      DenseSet<Value> reached;
      DenseSet<int64_t> seen;
      for (int64_t i : tangents) {
        if (i < 0 || i >= static_cast<int64_t>(func.getNumArguments()))
          return error(func) << "tangents: argument #" << i << " out of range; @"
                             << func.getSymName() << " has "
                             << func.getNumArguments() << " argument(s)";
        if (!seen.insert(i).second)
          return error(func) << "tangents: argument #" << i << " given twice";
        reached.insert(func.getArgument(i));
      }
      for (Operation &op : body.without_terminator()) {
        if (llvm::any_of(getReadValues(&op),
                         [&](Value v) { return reached.contains(v); })) {
          reached.insert(op.result_begin(), op.result_end());
          continue;
        }
        forward.insert(&op);
      }
    }

    // What the forward pass may hold.
    SmallVector<Operation *> forwardOps, backwardOps;
    for (Operation &op : body.without_terminator())
      (forward.contains(&op) ? forwardOps : backwardOps).push_back(&op);
    for (Operation *op : forwardOps) {
      if (!op->isRegistered())
        return error(op) << "unregistered op '" << op->getName()
                         << "' in the forward pass";
      if (!isMemoryEffectFree(op))
        return error(op) << "side-effecting op '" << op->getName()
                         << "' in the forward pass; only pure forward ops are "
                            "adopted";
    }
    auto opens = [](Operation *op) {
      return !op->hasTrait<OpTrait::ConstantLike>() &&
             !(op->use_empty() && isPure(op));
    };
    auto begin = llvm::find_if(backwardOps, opens);
    if (forwardOps.empty() || !llvm::any_of(forwardOps, [](Operation *op) {
          return !op->hasTrait<OpTrait::ConstantLike>();
        }))
      return error(func) << "@" << func.getSymName() << " has no forward pass";
    if (begin == backwardOps.end())
      return error(func) << "@" << func.getSymName()
                         << " has no backward pass: nothing follows its "
                            "forward pass";

    // Ops recomputation will never clone, named.
    for (Operation *op : forwardOps)
      if (TrainingStep::lacksCostModel(op))
        op->emitWarning() << "echo-adopt-training-step: '" << op->getName()
                          << "' has no Echo cost model; it is never "
                             "recomputed";

    // The split: backward ops, in order, after every forward op.
    for (Operation *op : backwardOps)
      op->moveBefore(ret);
    Builder b(func.getContext());
    (*begin)->setAttr(EchoDialect::getBackwardBeginAttrName(),
                      b.getUnitAttr());
    func->setAttr(EchoDialect::getTrainStepAttrName(), b.getUnitAttr());
    func->setAttr(EchoDialect::getAdoptedAttrName(), b.getUnitAttr());
    return success();
  }
};

} // namespace
