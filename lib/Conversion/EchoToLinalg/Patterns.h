//===- Patterns.h - The EchoToLinalg patterns by op family ------*- C++ -*-===//
//
// Part of the Echo project.
//
// One populate function per op family (one file each), called in a fixed
// order by populateEchoToLinalgPatterns. Private to
// lib/Conversion/EchoToLinalg.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_CONVERSION_ECHOTOLINALG_PATTERNS_H
#define ECHO_LIB_CONVERSION_ECHOTOLINALG_PATTERNS_H

namespace mlir {
class Operation;
class RewritePatternSet;
} // namespace mlir

namespace mlir::echo::linalg_lowering {

/// Adds the lowerings of the elementwise ops, their gradients and dropout
/// (Elementwise.cpp).
void populateElementwisePatterns(RewritePatternSet &patterns);

/// Adds the lowerings of pack_mask and unpack_mask (Elementwise.cpp).
void populateMaskPackingPatterns(RewritePatternSet &patterns);

/// Adds the lowerings of broadcast, the reductions, slice, concat, reshape,
/// transpose and their gradients (Shape.cpp).
void populateShapePatterns(RewritePatternSet &patterns);

/// Adds the rewrites applied before the lowering, on Echo ops: a sum of
/// slice gradients adds each slice in place, an embedding gradient summed
/// into another is scattered into it in place, and a slice of an embedding
/// taking whole rows gathers the sliced ids (Shape.cpp).
void populatePreLoweringPatterns(RewritePatternSet &patterns);

/// Under `root`, an embedding gradient of a sum of slice gradients that
/// take whole rows (an embedding read one time step at a time) becomes the
/// sum of the embedding gradients of each slice's ids, each placed where
/// its slice's gradient is made: the table's gradient accumulates step by
/// step (AddEmbeddingGradInPlace) and the [batch, steps, features] sum of
/// the rows' gradients is never made. Only where the table's gradient is
/// the step's result (the caller's buffer) or no larger than that sum
/// (Shape.cpp). Runs before the pre-lowering rewrites.
void scatterEmbeddingGradsBySlice(Operation *root);

/// Adds the lowerings of embedding and embedding_grad (Shape.cpp).
void populateEmbeddingPatterns(RewritePatternSet &patterns);

/// Adds the lowerings of the matmul family, linear, conv2d and conv2d's
/// gradients (Contraction.cpp).
void populateContractionPatterns(RewritePatternSet &patterns);

/// Adds the lowerings of max/avg pooling and their gradients (Pooling.cpp).
void populatePoolingPatterns(RewritePatternSet &patterns);

/// Adds the lowerings of batch/layer norm, softmax, cross_entropy, mse_loss
/// and their gradients (Normalization.cpp).
void populateNormalizationPatterns(RewritePatternSet &patterns);

/// Adds the lowerings of comparisons, logical ops, conversions, one_hot,
/// gather, scatter, scatter_add and topk (Data.cpp).
void populateDataPatterns(RewritePatternSet &patterns);
/// Adds the lowering of triangle (Masks.cpp).
void populateMaskPatterns(RewritePatternSet &patterns);

/// Adds the lowerings of stop_gradient, sin, cos, conv_transpose2d and the
/// upsampling ops and their gradients (MoreOps.cpp).
void populateMoreOpsPatterns(RewritePatternSet &patterns);

/// Adds the lowerings of the optimizer updates, momentum_update and
/// adam_update (Optimizer.cpp).
void populateOptimizerPatterns(RewritePatternSet &patterns);

} // namespace mlir::echo::linalg_lowering

#endif // ECHO_LIB_CONVERSION_ECHOTOLINALG_PATTERNS_H
