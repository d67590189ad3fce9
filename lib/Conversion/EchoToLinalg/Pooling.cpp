//===- Pooling.cpp - Max and average pooling ------------------------------===//
//
// Part of the Echo project.
//
// Pooling is a generic over the loops n, c, oh, ow, kh, kw of the padded
// input. Average pooling divides by the number of non-padding positions of
// each window, computed at compile time; its gradient gathers, for each
// input position, the shares of the windows that contain it (one generic,
// whatever the window). Max pooling's gradient scatters: a sum over window
// positions of strided `tensor.insert_slice`s.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"
#include "Patterns.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

namespace {

//===----------------------------------------------------------------------===//
// Window builders
//===----------------------------------------------------------------------===//

/// Number of non-padding input positions in each pooling window, [OH, OW].
DenseElementsAttr poolCounts(RankedTensorType inType, RankedTensorType outType,
                             ArrayRef<int64_t> kernel,
                             ArrayRef<int64_t> strides, ArrayRef<int64_t> pad) {
  int64_t h = inType.getDimSize(2), w = inType.getDimSize(3);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  SmallVector<APFloat> counts;
  const llvm::fltSemantics &sem =
      cast<FloatType>(outType.getElementType()).getFloatSemantics();
  for (int64_t i = 0; i < oh; ++i) {
    int64_t r0 = std::max<int64_t>(i * strides[0] - pad[0], 0);
    int64_t r1 = std::min<int64_t>(i * strides[0] - pad[0] + kernel[0], h);
    for (int64_t j = 0; j < ow; ++j) {
      int64_t c0 = std::max<int64_t>(j * strides[1] - pad[1], 0);
      int64_t c1 = std::min<int64_t>(j * strides[1] - pad[1] + kernel[1], w);
      APFloat count(static_cast<double>((r1 - r0) * (c1 - c0)));
      bool lost;
      count.convert(sem, APFloat::rmNearestTiesToEven, &lost);
      counts.push_back(count);
    }
  }
  auto type = RankedTensorType::get({oh, ow}, outType.getElementType());
  return DenseElementsAttr::get(type, counts);
}

/// The operands and maps of a generic over (n, c, oh, ow, kh, kw) that
/// visits every pooling window of an already padded NCHW tensor: the tensor,
/// then a [KH, KW] operand that is never read but carries the extent of the
/// kh/kw loops (linalg infers loop bounds from operand shapes).
struct PoolWindowGeneric {
  SmallVector<Value, 2> inputs;
  SmallVector<AffineMap, 3>
      maps; // the inputs', then the [N, C, OH, OW] output's
};

PoolWindowGeneric poolWindowGeneric(OpBuilder &b, Location loc, Value xPadded,
                                    Type elementType, ArrayRef<int64_t> kernel,
                                    ArrayRef<int64_t> strides) {
  MLIRContext *ctx = b.getContext();
  AffineExpr n, c, oh, ow, kh, kw;
  bindDims(ctx, n, c, oh, ow, kh, kw);
  Value window = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{kernel[0], kernel[1]}, elementType);
  PoolWindowGeneric g;
  g.inputs = {xPadded, window};
  g.maps = {AffineMap::get(
                6, 0, {n, c, oh * strides[0] + kh, ow * strides[1] + kw}, ctx),
            AffineMap::get(6, 0, {kh, kw}, ctx),
            AffineMap::get(6, 0, {n, c, oh, ow}, ctx)};
  return g;
}

/// Max-pools an already padded NCHW tensor into `outType`.
Value maxPool(OpBuilder &b, Location loc, Value xPadded,
              RankedTensorType outType, ArrayRef<int64_t> kernel,
              ArrayRef<int64_t> strides) {
  PoolWindowGeneric g = poolWindowGeneric(
      b, loc, xPadded, outType.getElementType(), kernel, strides);
  return buildGeneric(b, loc, g.inputs, g.maps,
                      floatFilled(b, loc, outType, -INFINITY),
                      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                        return arith::MaximumFOp::create(nb, nl, a[0], a[2]);
                      });
}

/// Divides an NCHW tensor by the [OH, OW] window counts of an average pool.
Value divideByCounts(OpBuilder &b, Location loc, Value v,
                     DenseElementsAttr counts) {
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  AffineMap maps[] = {b.getMultiDimIdentityMap(4),
                      AffineMap::get(4, 0, {d2, d3}, ctx),
                      b.getMultiDimIdentityMap(4)};
  Value c = arith::ConstantOp::create(b, loc, counts);
  return buildGeneric(b, loc, ValueRange{v, c}, maps,
                      emptyTensor(b, loc, cast<RankedTensorType>(v.getType())),
                      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return arith::DivFOp::create(nb, l, a[0], a[1]);
                      });
}

/// What a window (n, c, oh, ow) contributes to the gradient of an input
/// position that it contains at window offset (offH, offW), given `inWindow`
/// (whether it does contain it: the term must be zero otherwise).
using WindowTermFn =
    function_ref<Value(OpBuilder &, Location, ValueRange nc, Value oh, Value ow,
                       Value offH, Value offW, Value inWindow)>;

/// Sums, for each input position (h, w), `term` over the windows that
/// contain it: dx[n, c, h, w] = Σ term(n, c, oh, ow, ...). One generic over
/// (n, c, h, w, jh, jw), whatever the window: a position lies in at most
/// JH = min(ceil(KH / SH), OH) windows along h, the jh-th being
/// oh = min((h + PH) / SH, OH - 1) - jh, which contains h when oh >= 0 and
/// h + PH - oh * SH < KH (likewise along w). A global pooling's gradient is
/// one pass over dx (its window slices, one per offset, made one-shot
/// bufferization take most of a minute on ResNet).
Value gatherWindows(OpBuilder &b, Location loc, RankedTensorType dxType,
                    int64_t outH, int64_t outW, ArrayRef<int64_t> kernel,
                    ArrayRef<int64_t> strides, ArrayRef<int64_t> pad,
                    WindowTermFn term) {
  MLIRContext *ctx = b.getContext();
  int64_t jh = std::min<int64_t>(llvm::divideCeil(kernel[0], strides[0]), outH);
  int64_t jw = std::min<int64_t>(llvm::divideCeil(kernel[1], strides[1]), outW);
  AffineExpr n, c, h, w, i, j;
  bindDims(ctx, n, c, h, w, i, j);
  // Carries the extents of the jh/jw loops; never read.
  Value windows = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{jh, jw},
                                          dxType.getElementType());
  AffineMap maps[] = {AffineMap::get(6, 0, {i, j}, ctx),
                      AffineMap::get(6, 0, {n, c, h, w}, ctx)};
  // The window index along one axis, `pos`'s offset in it, and whether it
  // contains `pos`; the index is clamped to 0 when it does not, so that
  // reads stay in bounds.
  auto window = [](OpBuilder &nb, Location l, Value pos, Value jth, int64_t k,
                   int64_t s, int64_t p, int64_t o, Value &offset,
                   Value &contains) -> Value {
    Value shifted = arith::AddIOp::create(nb, l, pos, indexConst(nb, l, p));
    // The last window that can contain `pos`, then earlier ones.
    Value after = arith::DivUIOp::create(nb, l, shifted, indexConst(nb, l, s));
    Value last = arith::MinUIOp::create(nb, l, after, indexConst(nb, l, o - 1));
    Value q = arith::SubIOp::create(nb, l, last, jth);
    Value start = arith::MulIOp::create(nb, l, q, indexConst(nb, l, s));
    offset = arith::SubIOp::create(nb, l, shifted, start);
    Value zero = indexConst(nb, l, 0);
    Value nonNegative =
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, q, zero);
    Value inRange = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, q,
                                          indexConst(nb, l, o));
    Value inWindow = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                           offset, indexConst(nb, l, k));
    Value both = arith::AndIOp::create(nb, l, nonNegative, inRange);
    contains = arith::AndIOp::create(nb, l, both, inWindow);
    return arith::SelectOp::create(nb, l, contains, q, zero);
  };
  return buildGeneric(b, loc, ValueRange{windows}, maps, zeros(b, loc, dxType),
                      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        Value idx[6];
                        for (int d = 0; d < 6; ++d)
                          idx[d] = linalg::IndexOp::create(nb, l, d);
                        Value offH, offW, inH, inW;
                        Value oh = window(nb, l, idx[2], idx[4], kernel[0],
                                          strides[0], pad[0], outH, offH, inH);
                        Value ow = window(nb, l, idx[3], idx[5], kernel[1],
                                          strides[1], pad[1], outW, offW, inW);
                        Value contains = arith::AndIOp::create(nb, l, inH, inW);
                        Value t = term(nb, l, ValueRange{idx[0], idx[1]}, oh,
                                       ow, offH, offW, contains);
                        return arith::AddFOp::create(nb, l, a[1], t);
                      });
}

/// The row-major offset (kh * KW + kw) of the first position of each window
/// of the padded NCHW `xPad` that equals the window's maximum `y`, as i64
/// [N, C, OH, OW] (a min-reduction: independent of the visiting order).
Value firstArgMax(OpBuilder &b, Location loc, Value xPad, Value y,
                  ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides) {
  MLIRContext *ctx = b.getContext();
  auto yType = cast<RankedTensorType>(y.getType());
  auto argType = RankedTensorType::get(yType.getShape(), b.getI64Type());
  AffineExpr n, c, oh, ow, kh, kw;
  bindDims(ctx, n, c, oh, ow, kh, kw);
  Value window = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{kernel[0], kernel[1]}, yType.getElementType());
  AffineMap maps[] = {
      AffineMap::get(6, 0, {n, c, oh * strides[0] + kh, ow * strides[1] + kw},
                     ctx),
      AffineMap::get(6, 0, {n, c, oh, ow}, ctx),
      AffineMap::get(6, 0, {kh, kw}, ctx),
      AffineMap::get(6, 0, {n, c, oh, ow}, ctx)};
  Value none = filledTensor(b, loc, argType, b.getI64IntegerAttr(INT64_MAX));
  return buildGeneric(
      b, loc, ValueRange{xPad, y, window}, maps, none,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value kh = linalg::IndexOp::create(nb, l, 4);
        Value kw = linalg::IndexOp::create(nb, l, 5);
        Value row =
            arith::MulIOp::create(nb, l, kh, indexConst(nb, l, kernel[1]));
        Value flat = arith::AddIOp::create(nb, l, row, kw);
        Value offset = arith::IndexCastOp::create(nb, l, nb.getI64Type(), flat);
        Value isMax =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, a[0], a[1]);
        Value never =
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(INT64_MAX));
        Value candidate = arith::SelectOp::create(nb, l, isMax, offset, never);
        return arith::MinSIOp::create(nb, l, a[3], candidate);
      });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct MaxPool2DLowering : OpRewritePattern<MaxPool2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Value x = padSpatial(rewriter, op.getLoc(), op.getX(), op.getPadding(),
                         -INFINITY);
    rewriter.replaceOp(op, maxPool(rewriter, op.getLoc(), x,
                                   cast<RankedTensorType>(op.getType()),
                                   op.getKernel(), op.getStrides()));
    return success();
  }
};

struct AvgPool2DLowering : OpRewritePattern<AvgPool2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AvgPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getX().getType());
    ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides();
    Value x = padSpatial(rewriter, loc, op.getX(), op.getPadding(), 0.0);
    PoolWindowGeneric g =
        poolWindowGeneric(rewriter, loc, x, type.getElementType(), k, s);
    Value sum = buildSum(
        rewriter, loc, g.inputs, g.maps, type,
        [](OpBuilder &, Location, ValueRange a) -> Value { return a[0]; });
    rewriter.replaceOp(
        op, divideByCounts(rewriter, loc, sum,
                           poolCounts(inType, type, k, s, op.getPadding())));
    return success();
  }
};

struct AvgPool2DGradLowering : OpRewritePattern<AvgPool2DGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AvgPool2DGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto dyType = cast<RankedTensorType>(op.getDy().getType());
    ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides();
    Value share =
        divideByCounts(rewriter, loc, op.getDy(),
                       poolCounts(type, dyType, k, s, op.getPadding()));
    auto shareOf = [&](OpBuilder &b, Location l, ValueRange nc, Value oh,
                       Value ow, Value, Value, Value inWindow) -> Value {
      Value read = tensor::ExtractOp::create(b, l, share,
                                             ValueRange{nc[0], nc[1], oh, ow});
      Value zero = floatConst(b, l, read.getType(), 0.0);
      return arith::SelectOp::create(b, l, inWindow, read, zero);
    };
    rewriter.replaceOp(op,
                       gatherWindows(rewriter, loc, type, dyType.getDimSize(2),
                                     dyType.getDimSize(3), k, s,
                                     op.getPadding(), shareOf));
    return success();
  }
};

struct MaxPool2DGradLowering : OpRewritePattern<MaxPool2DGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPool2DGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto dyType = cast<RankedTensorType>(op.getDy().getType());
    ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides();
    Value xPad =
        padSpatial(rewriter, loc, op.getX(), op.getPadding(), -INFINITY);
    // The forward maximum is recomputed from x (the gradient reads x only);
    // each output's adjoint goes to the first position, in row-major window
    // order, equal to the maximum.
    Value y = maxPool(rewriter, loc, xPad, dyType, k, s);
    Value argMax = firstArgMax(rewriter, loc, xPad, y, k, s);
    Value dy = op.getDy();
    int64_t kw = k[1];
    auto adjointIfFirst = [&](OpBuilder &b, Location l, ValueRange nc, Value oh,
                              Value ow, Value offH, Value offW,
                              Value inWindow) -> Value {
      SmallVector<Value, 4> at = {nc[0], nc[1], oh, ow};
      Value row = arith::MulIOp::create(b, l, offH, indexConst(b, l, kw));
      Value flat = arith::AddIOp::create(b, l, row, offW);
      Value offset = arith::IndexCastOp::create(b, l, b.getI64Type(), flat);
      Value first = tensor::ExtractOp::create(b, l, argMax, at);
      Value isFirst =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, first, offset);
      Value taken = arith::AndIOp::create(b, l, inWindow, isFirst);
      Value read = tensor::ExtractOp::create(b, l, dy, at);
      Value zero = floatConst(b, l, read.getType(), 0.0);
      return arith::SelectOp::create(b, l, taken, read, zero);
    };
    rewriter.replaceOp(op,
                       gatherWindows(rewriter, loc, type, dyType.getDimSize(2),
                                     dyType.getDimSize(3), k, s,
                                     op.getPadding(), adjointIfFirst));
    return success();
  }
};

} // namespace

void linalg_lowering::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2DLowering, AvgPool2DLowering, AvgPool2DGradLowering,
               MaxPool2DGradLowering>(patterns.getContext());
}
