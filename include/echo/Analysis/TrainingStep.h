//===- TrainingStep.h - Op order and forward/backward split -----*- C++ -*-===//
//
// Part of the Echo project.
//
// The structure every Echo analysis reads off a training step (a function
// built by echo-autodiff, `echo.train_step`), computed once:
//
// - `OpOrder`: the positions of the ops of one block. Program points are
//   top-level op positions; a use inside a region counts at its top-level
//   ancestor. The memory model, the recompute planner and the buffer
//   planner all measure lifetimes in these positions.
// - `TrainingStep`: an `OpOrder` of the step's body plus its split into a
//   forward pass (every op up to the one defining the loss, the first
//   returned value, or up to the op marked `echo.backward_begin` where a
//   chunked loss forms the loss with its gradient) and a backward pass (the
//   rest), and which forward values the backward pass reads (the feature
//   maps).
// - An adopted step (`echo.adopted`, set by echo-adopt-training-step on a
//   step differentiated elsewhere, in TOSA or linalg-on-tensors): its
//   forward pass ends right before the op marked `echo.backward_begin`, its
//   last forward op stands for the loss, and any pure op with statically
//   shaped tensor results and a cost model (CostOpInterface, attached to
//   foreign ops as external models) is a recompute candidate.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_ANALYSIS_TRAININGSTEP_H
#define ECHO_ANALYSIS_TRAININGSTEP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::echo {

/// The positions of the ops of one block, taken when it is constructed.
/// Ops inserted later have no position (`getPosition` returns -1); the
/// order tests of TrainingStep stay valid for them (they fall back to the
/// block's own order).
class OpOrder {
public:
  explicit OpOrder(Block &block);

  /// The block.
  Block *getBlock() const { return block; }
  /// The ops, in order.
  ArrayRef<Operation *> getOps() const { return ops; }
  /// The op at `position`.
  Operation *getOp(int64_t position) const { return ops[position]; }
  /// The number of ops.
  int64_t size() const { return ops.size(); }

  /// The ancestor of `op` in the block, or null when `op` is not in it.
  Operation *getTopLevel(Operation *op) const {
    return block->findAncestorOpInBlock(*op);
  }
  /// The position of `op`'s ancestor in the block, or -1 (not in the block,
  /// or inserted after construction).
  int64_t getPosition(Operation *op) const;

private:
  Block *block;
  SmallVector<Operation *> ops;
  DenseMap<Operation *, int64_t> positions;
};

/// The forward/backward structure of one training step (a single-block
/// function whose first result is the loss).
class TrainingStep : public OpOrder {
public:
  explicit TrainingStep(func::FuncOp func);

  /// The function.
  func::FuncOp getFunction() const { return func; }
  /// The top-level op defining the loss, or null when the first result is
  /// not computed by an op of the body.
  Operation *getLossOp() const { return lossOp; }
  /// The position of the forward pass's last op: the loss op's, or, where a
  /// chunked loss forms the loss with its gradient, that of the op before
  /// the one marked `echo.backward_begin` (and before the recompute regions,
  /// fetches and unpacked masks placed right before it); -1 without a loss.
  int64_t getForwardEndPosition() const { return forwardEndPosition; }

  /// True when `op` (or its top-level ancestor) is in the forward pass: at or
  /// before the forward pass's last op.
  bool isForward(Operation *op) const;
  /// True when `use` reads a value in the backward pass (after the forward
  /// pass's last op). The return of the loss and of updated parameters does
  /// not count.
  bool isBackwardUse(OpOperand &use) const;
  /// True when the backward pass reads `v`.
  bool hasBackwardUse(Value v) const;
  /// The top-level op of the earliest backward read of `v`, or null.
  Operation *getFirstBackwardReader(Value v) const;
  /// True when the backward pass reads a result of `op` other than a mask
  /// (masks are stashed 1-bit packed; they are never recomputed for the
  /// backward pass).
  bool isReadBack(Operation *op) const;
  /// The forward ops that may be recomputed at all: pure, differentiable
  /// Echo forward ops before the loss, in order; in an adopted step also
  /// the ops `isForeignCandidate` accepts.
  SmallVector<Operation *> getRecomputeCandidates() const;
  /// True for a step that echo-adopt-training-step adopted (`echo.adopted`).
  bool isAdopted() const { return adopted; }

  /// True for a registered pure op, not constant-like, whose results are all
  /// statically shaped ranked tensors and which has a cost model: an op of
  /// an adopted step that recomputation may clone.
  static bool isForeignCandidate(Operation *op);
  /// True for a registered pure op, not constant-like, with statically
  /// shaped ranked tensor results but no cost model: one recomputation never
  /// clones (echo-adopt-training-step names each).
  static bool lacksCostModel(Operation *op);

  /// True for an `i1` tensor (a dropout mask, a ReLU predicate).
  static bool isMask(Value v);
  /// True for a value that costs nothing to keep: an argument or a constant
  /// (a constant-like op's result).
  static bool isFree(Value v);

private:
  func::FuncOp func;
  bool adopted = false;
  Operation *lossOp = nullptr;
  /// The forward pass's last op (null when it would be before the first op)
  /// and its position.
  Operation *forwardEnd = nullptr;
  int64_t forwardEndPosition = -1;
};

} // namespace mlir::echo

#endif // ECHO_ANALYSIS_TRAININGSTEP_H
