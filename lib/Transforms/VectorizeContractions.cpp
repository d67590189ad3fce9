//===- VectorizeContractions.cpp - Tile + vectorize the matmul family -----===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOVECTORIZECONTRACTIONS
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// The largest divisor of `extent` that is at most `limit`.
int64_t largestDivisor(int64_t extent, int64_t limit) {
  for (int64_t t = std::min(extent, std::max<int64_t>(limit, 1)); t > 1; --t)
    if (extent % t == 0)
      return t;
  return 1;
}

struct EchoVectorizeContractionsPass
    : public echo::impl::EchoVectorizeContractionsBase<
          EchoVectorizeContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> targets;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) &&
          op.hasPureTensorSemantics() && !op.hasDynamicShape())
        targets.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : targets) {
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(op);
      if (failed(dims))
        continue;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t macs = 1;
      for (int64_t r : ranges)
        macs *= r;
      if (macs < minFlops)
        continue;
      SmallVector<int64_t> tiles(ranges.size(), 1);
      for (unsigned d : dims->m)
        tiles[d] = largestDivisor(ranges[d], tileM);
      for (unsigned d : dims->n)
        tiles[d] = largestDivisor(ranges[d], tileN);
      for (unsigned d : dims->k)
        tiles[d] = largestDivisor(ranges[d], tileK);

      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(&getContext(), tiles));
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled)) {
        op.emitWarning("echo-vectorize-contractions: tiling failed; the "
                       "contraction stays scalar");
        continue;
      }
      rewriter.replaceOp(op, tiled->replacements);
      for (Operation *tile : tiled->tiledOps) {
        rewriter.setInsertionPoint(tile);
        FailureOr<linalg::VectorizationResult> vec =
            linalg::vectorize(rewriter, tile, {}, {}, false, false, false,
                              /*createNamedContraction=*/true);
        if (failed(vec))
          continue;
        rewriter.replaceOp(tile, vec->replacements);
        ++numVectorized;
      }
    }
  }
};

} // namespace
