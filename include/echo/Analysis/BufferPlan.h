//===- BufferPlan.h - Liveness intervals and arena offsets ------*- C++ -*-===//
//
// Part of the Echo project.
//
// What `echo-plan-buffers` and `echo-verify-buffer-plan` share: which
// functions they accept, the live interval of a buffer in a bufferized
// function, the rule for reusing a dying buffer in place, and the offset
// assignment itself (a pure function of the intervals, so that it can be
// timed on its own).
//
// A buffer is a root value (a `memref.alloc` result, or a `memref.view` of
// the arena) with every alias upstream's BufferViewFlowAnalysis finds for it.
// Its interval is the closed range of positions, in the function's top-level
// op order, from the first to the last use of any alias; a use inside a
// region counts at its top-level ancestor. That is mlir::Liveness's
// getStartOperation/getEndOperation for a single-block body, computed for the
// buffers only: mlir::Liveness builds live-in/out sets for every value of the
// function, which took 50 ms of a 20,000-op step.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_ANALYSIS_BUFFERPLAN_H
#define ECHO_ANALYSIS_BUFFERPLAN_H

#include "echo/Analysis/TrainingStep.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::echo {

/// Fails with a diagnostic (prefixed with `passName`) unless `func` is a
/// function the planner can plan and the checker can check: its body is one
/// block (intervals are positions among its top-level ops, so both passes
/// run before convert-scf-to-cf) and it has no `bufferization.dealloc` yet
/// (the planner drops the `memref.dealloc`s of the buffers it places in the
/// arena, but ownership-based deallocation would still free them).
LogicalResult checkPlannable(func::FuncOp func, StringRef passName);

/// A closed interval of top-level op positions.
struct LiveInterval {
  int64_t start = 0;
  int64_t end = 0;
  bool overlaps(const LiveInterval &other) const {
    return start <= other.end && other.start <= end;
  }
};

/// Live intervals of buffers in one single-block function.
class BufferLiveness {
public:
  /// `func` must have a body of one block.
  explicit BufferLiveness(func::FuncOp func);

  /// The interval of the buffer rooted at `root`, or failure when one of its
  /// aliases escapes the function (is returned) or it is never used.
  /// Every use counts, a `memref.dealloc` too.
  FailureOr<LiveInterval> getInterval(Value root) const;

  /// Position of `op`'s ancestor among the function's top-level ops.
  int64_t getPosition(Operation *op) const;

  /// The top-level op at `position`.
  Operation *getOperation(int64_t position) const {
    return order.getOp(position);
  }

  /// `root` and every value that may alias it (BufferViewFlowAnalysis's
  /// resolve, computed once per root).
  ArrayRef<Value> getAliases(Value root) const;

  /// The in-place rule the planner applies and the checker accepts: the
  /// buffer `born` may take the bytes of `dying` when `dying`'s interval ends
  /// where `born`'s starts, at an op for which isInPlaceReuseLegal holds and
  /// that reaches neither buffer through any other, aliasing operand.
  bool canReuseInPlace(Value dying, LiveInterval dyingLive, Value born,
                       LiveInterval bornLive) const;

private:
  OpOrder order;
  BufferViewFlowAnalysis aliases;
  mutable DenseMap<Value, SmallVector<Value>> aliasCache;
};

/// `v` without the reshapes around it: memref.expand_shape and
/// collapse_shape between identity layouts, views of the same elements in
/// the same row-major order.
Value stripReshapes(Value v);

/// True when `op` may write the buffer `born` over the buffer `dying` in
/// place: `op` is a linalg op on buffers with only parallel loops, `dying` is
/// one of its inputs (read through the same permutation map as the init
/// `born`, and nowhere else), `born`'s old contents are not read, and both
/// hold the same number of elements of the same width. Either may be read
/// or written through reshapes (stripReshapes) when the input and the init
/// have one shape. Reading element i of `dying` then happens before element
/// i of `born` is written, and no other element of `dying` is read
/// afterwards.
bool isInPlaceReuseLegal(Operation *op, Value dying, Value born);

/// One buffer to place in the arena.
struct ArenaBuffer {
  int64_t bytes = 0;
  int64_t alignment = 1;
  LiveInterval live;
};

/// Offsets of the buffers in the arena.
struct ArenaPlan {
  SmallVector<int64_t> offsets;
  /// Arena size: the highest end of a buffer.
  int64_t size = 0;
  /// Max over positions of the (aligned) bytes live there: no placement of
  /// these buffers can be smaller.
  int64_t lowerBound = 0;
  /// The (aligned) bytes live at each position, 0 to the last buffer's end
  /// (a buffer and the one that takes its bytes in place count once).
  SmallVector<int64_t> liveBytes;
  /// The heuristic whose placement was kept.
  std::string heuristic;
  /// The slot of each buffer (buffers joined by in-place reuse share one)
  /// and each slot's bytes as liveBytes counts them (aligned).
  SmallVector<unsigned> slotOf;
  SmallVector<int64_t> slotBytes;
};

/// Places `buffers` so that any two whose intervals overlap get disjoint
/// bytes, except each pair (dying, born) of `inPlace`, which share an offset
/// (their intervals may only touch at one position). Every offset is a
/// multiple of the buffer's alignment. Tries several orders (by breadth, by
/// size, by lifetime, by size x lifetime, by start, ...), each placed
/// best-fit and then first-fit, and keeps the smallest arena; stops early
/// when one reaches the lower bound.
ArenaPlan planArena(ArrayRef<ArenaBuffer> buffers,
                    ArrayRef<std::pair<unsigned, unsigned>> inPlace);

} // namespace mlir::echo

#endif // ECHO_ANALYSIS_BUFFERPLAN_H
