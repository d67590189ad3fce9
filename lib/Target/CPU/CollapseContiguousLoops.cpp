//===- CollapseContiguousLoops.cpp - One loop over contiguous memory ------===//
//
// Part of the Echo project.
//
// echo-collapse-contiguous-loops (see Passes.td): the consecutive parallel
// loops of a generic on buffers that every operand indexes contiguously
// become one loop, so that LLVM's loop vectorizer gets a long innermost
// loop.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOCOLLAPSECONTIGUOUSLOOPS
#include "echo/Target/CPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;

namespace {

/// The runs of consecutive loops of `op` that every indexing map reads as
/// consecutive results in order, or not at all; one group per loop when
/// none merges.
SmallVector<ReassociationIndices> contiguousRuns(linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<ReassociationIndices> runs;
  ReassociationIndices run{0};
  for (int64_t loop = 1, e = op.getNumLoops(); loop < e; ++loop) {
    ReassociationIndices longer = run;
    longer.push_back(loop);
    if (linalg::areDimSequencesPreserved(maps, {longer})) {
      run = std::move(longer);
      continue;
    }
    runs.push_back(run);
    run = {loop};
  }
  runs.push_back(run);
  return runs;
}

struct EchoCollapseContiguousLoopsPass
    : public echo::impl::EchoCollapseContiguousLoopsBase<
          EchoCollapseContiguousLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation()->walk([&](linalg::GenericOp op) {
      // A constant index in a map (a broadcast as TOSA lowers it: (d0, d1,
      // 0)) is left alone: upstream's collapse gives its buffer's view the
      // wrong rank.
      if (op.hasPureBufferSemantics() && op.getNumLoops() > 1 &&
          op.getNumLoops() == op.getNumParallelLoops() &&
          op.getBody()->getOps<linalg::IndexOp>().empty() &&
          llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
            return map.isProjectedPermutation();
          }))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops) {
      SmallVector<ReassociationIndices> runs = contiguousRuns(op);
      if (runs.size() == op.getNumLoops())
        continue;
      // Upstream refuses, leaving the op as it is, where a buffer's strides
      // do not nest (memref.collapse_shape could not view it).
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, runs, rewriter);
      if (failed(collapsed))
        continue;
      rewriter.replaceOp(op, collapsed->results);
    }
  }
};

} // namespace
