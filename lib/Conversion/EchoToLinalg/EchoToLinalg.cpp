//===- EchoToLinalg.cpp - Lower Echo ops to linalg on tensors -------------===//
//
// Part of the Echo project.
//
// Every Echo op becomes destination-style ops on tensors. Elementwise ops and
// their gradients are one `linalg.generic` each; reductions, convolutions and
// pooling are `linalg.generic`s with affine (strided) input maps; the matmul
// family uses the named `linalg.matmul`/`linalg.batch_matmul` (with transposed
// indexing maps) so that later tiling and vectorization recognise them.
// Gradients that scatter (convolution input, pooling) are written as a sum
// over kernel offsets of strided `tensor.insert_slice`s, which keeps them in
// linalg/tensor without data-dependent indexing.
//
// This file holds the pass and the order in which the patterns are added;
// the patterns live in one file per op family (Patterns.h) and share the
// builders of Builders.h.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "echo/Conversion/Passes.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::echo {
#define GEN_PASS_DEF_CONVERTECHOTOLINALG
#include "echo/Conversion/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

struct ConvertEchoToLinalgPass
    : echo::impl::ConvertEchoToLinalgBase<ConvertEchoToLinalgPass> {
  void runOnOperation() override {
    inlineRecomputeRegions(getOperation());
    linalg_lowering::scatterEmbeddingGradsBySlice(getOperation());
    {
      // Only on the adds and slices, once each: nothing else is visited,
      // folded or erased.
      SmallVector<Operation *> ops;
      getOperation()->walk([&](Operation *op) {
        if (isa<AddOp, SliceOp>(op))
          ops.push_back(op);
      });
      RewritePatternSet preLowering(&getContext());
      linalg_lowering::populatePreLoweringPatterns(preLowering);
      (void)applyOpPatternsGreedily(
          ops, std::move(preLowering),
          GreedyRewriteConfig().enableFolding(false).setStrictness(
              GreedyRewriteStrictness::ExistingOps));
    }
    RewritePatternSet patterns(&getContext());
    populateEchoToLinalgPatterns(patterns);
    // Elementwise arith on tensors (echo-recompute's ReLU masks, `x > 0`)
    // becomes linalg.generic too, with upstream's patterns.
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    ConversionTarget target(getContext());
    target.addIllegalDialect<EchoDialect>();
    target.addLegalDialect<linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect>();
    target.addDynamicallyLegalDialect<arith::ArithDialect>([](Operation *op) {
      return !OpTrait::hasElementwiseMappableTraits(op) ||
             llvm::none_of(op->getResultTypes(), llvm::IsaPred<TensorType>);
    });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::echo::inlineRecomputeRegions(Operation *root) {
  SmallVector<RecomputeOp> ops;
  root->walk([&](RecomputeOp op) { ops.push_back(op); });
  // Post-order: nested regions are inlined into their parent first.
  for (RecomputeOp op : ops) {
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> results(yield.getValues());
    IRRewriter rewriter(op.getContext());
    rewriter.setInsertionPoint(op);
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, op, op.getInputs());
    rewriter.replaceOp(op, results);
  }
}

void mlir::echo::populateEchoToLinalgPatterns(RewritePatternSet &patterns) {
  // Family by family, in a fixed order; embedding (Shape.cpp) and mask
  // packing (Elementwise.cpp) come after the normalization family, which is
  // why they have populate functions of their own.
  linalg_lowering::populateElementwisePatterns(patterns);
  linalg_lowering::populateShapePatterns(patterns);
  linalg_lowering::populateContractionPatterns(patterns);
  linalg_lowering::populatePoolingPatterns(patterns);
  linalg_lowering::populateNormalizationPatterns(patterns);
  linalg_lowering::populateEmbeddingPatterns(patterns);
  linalg_lowering::populateMaskPackingPatterns(patterns);
  linalg_lowering::populateOptimizerPatterns(patterns);
  linalg_lowering::populateDataPatterns(patterns);
  linalg_lowering::populateMoreOpsPatterns(patterns);
  linalg_lowering::populateMaskPatterns(patterns);
}
