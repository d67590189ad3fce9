//===- TrainingStep.cpp - Op order and forward/backward split -------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/TrainingStep.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::echo;

//===----------------------------------------------------------------------===//
// OpOrder
//===----------------------------------------------------------------------===//

OpOrder::OpOrder(Block &block) : block(&block) {
  for (Operation &op : block) {
    positions[&op] = ops.size();
    ops.push_back(&op);
  }
}

int64_t OpOrder::getPosition(Operation *op) const {
  Operation *top = getTopLevel(op);
  if (!top)
    return -1;
  auto it = positions.find(top);
  return it == positions.end() ? -1 : it->second;
}

//===----------------------------------------------------------------------===//
// TrainingStep
//===----------------------------------------------------------------------===//

/// Moves `begin` (the position of the op opening the backward pass) back
/// over the backward-pass ops placed right before it: recompute regions,
/// fetches and unpacked masks.
static int64_t skipPlacedBefore(const OpOrder &order, int64_t begin) {
  while (begin > 0 && isa<RecomputeOp, FetchOp, TransferWaitOp, UnpackMaskOp>(
                          order.getOp(begin - 1)))
    --begin;
  return begin;
}

TrainingStep::TrainingStep(func::FuncOp func)
    : OpOrder(func.getBody().front()), func(func) {
  // An adopted step: the marked op opens the backward pass, and the forward
  // pass's last op stands for the loss (the step may return none).
  if (func->hasAttr(EchoDialect::getAdoptedAttrName())) {
    adopted = true;
    for (auto [position, op] : llvm::enumerate(getOps())) {
      if (!op->hasAttr(EchoDialect::getBackwardBeginAttrName()))
        continue;
      int64_t begin = skipPlacedBefore(*this, position);
      if (begin > 0) {
        forwardEndPosition = begin - 1;
        forwardEnd = lossOp = getOp(begin - 1);
      }
      break;
    }
    return;
  }
  auto ret = dyn_cast<func::ReturnOp>(getBlock()->getTerminator());
  if (!ret || ret.getNumOperands() == 0)
    return;
  Operation *def = ret.getOperand(0).getDefiningOp();
  if (!def || def->getBlock() != getBlock())
    return;
  lossOp = def;
  forwardEnd = def;
  forwardEndPosition = getPosition(def);
  // A chunked loss forms the loss where its gradient is: the backward pass
  // begins at its first op, and with the backward-pass ops placed right
  // before it (recompute regions, fetches, unpacked masks).
  for (auto [position, op] : llvm::enumerate(getOps())) {
    if (!op->hasAttr(EchoDialect::getBackwardBeginAttrName()))
      continue;
    int64_t begin = skipPlacedBefore(*this, position);
    if (begin <= forwardEndPosition) {
      forwardEndPosition = begin - 1;
      forwardEnd = begin > 0 ? getOp(begin - 1) : nullptr;
    }
    break;
  }
}

bool TrainingStep::isForward(Operation *op) const {
  Operation *top = getTopLevel(op);
  if (!top || !lossOp)
    return false;
  int64_t position = getPosition(top);
  if (position >= 0)
    return position <= forwardEndPosition;
  return forwardEnd && !forwardEnd->isBeforeInBlock(top);
}

bool TrainingStep::isBackwardUse(OpOperand &use) const {
  Operation *top = getTopLevel(use.getOwner());
  if (!top || isa<func::ReturnOp>(top) || !lossOp)
    return false;
  return !forwardEnd || forwardEnd->isBeforeInBlock(top);
}

bool TrainingStep::hasBackwardUse(Value v) const {
  return llvm::any_of(v.getUses(),
                      [&](OpOperand &use) { return isBackwardUse(use); });
}

Operation *TrainingStep::getFirstBackwardReader(Value v) const {
  Operation *first = nullptr;
  for (OpOperand &use : v.getUses())
    if (isBackwardUse(use)) {
      Operation *top = getTopLevel(use.getOwner());
      if (!first || top->isBeforeInBlock(first))
        first = top;
    }
  return first;
}

bool TrainingStep::isReadBack(Operation *op) const {
  return llvm::any_of(op->getResults(),
                      [&](Value v) { return !isMask(v) && hasBackwardUse(v); });
}

SmallVector<Operation *> TrainingStep::getRecomputeCandidates() const {
  SmallVector<Operation *> out;
  for (auto [position, op] : llvm::enumerate(getOps())) {
    // The loss itself is not recomputed; ops after the forward pass's last
    // op are not forward.
    if (op == lossOp || static_cast<int64_t>(position) > forwardEndPosition)
      break;
    if ((isa<DifferentiableOpInterface>(op) && isPure(op)) ||
        (adopted && isForeignCandidate(op)))
      out.push_back(op);
  }
  return out;
}

bool TrainingStep::isMask(Value v) {
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  return tensor && tensor.getElementType().isInteger(1);
}

bool TrainingStep::isFree(Value v) {
  Operation *def = v.getDefiningOp();
  return !def || def->hasTrait<OpTrait::ConstantLike>();
}

/// True for a registered pure op, not constant-like, with at least one
/// result, all of them statically shaped ranked tensors.
static bool isPureTensorOp(Operation *op) {
  if (!op->isRegistered() || op->getNumResults() == 0 ||
      op->hasTrait<OpTrait::ConstantLike>() || !isPure(op))
    return false;
  return llvm::all_of(op->getResultTypes(), [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape();
  });
}

bool TrainingStep::isForeignCandidate(Operation *op) {
  return isPureTensorOp(op) && isa<CostOpInterface>(op);
}

bool TrainingStep::lacksCostModel(Operation *op) {
  return isPureTensorOp(op) && !isa<CostOpInterface>(op);
}
