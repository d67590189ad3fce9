//===- Pooling.cpp - Max and average pooling ------------------------------===//
//
// Part of the Echo project.
//
// Pooling is a generic over the loops n, c, oh, ow, kh, kw of the padded
// input (padded further on the far side where a `ceil_mode` window runs past
// it). Average pooling divides by the count of each window (its input
// positions, or with `count_include_pad` its positions inside the padded
// input), computed at compile time; its gradient gathers, for each input
// position, the shares of the windows that contain it (one generic, whatever
// the window), and so does max pooling's, from the first arg-max of each
// window.
//
// Adaptive average pooling has windows of varying size and placement: its
// generic runs kh/kw over the largest window and reads row
// floor(oh·H/OH) + kh (a `floordiv` in the indexing map, of an input padded
// on the far side so that reads stay in bounds), keeping the positions
// inside the window; its gradient gathers likewise from the windows
// floor(h·OH/H) + jh that contain row h.
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

/// Builds the [OH, OW] constant of `count(i) * count(j)` in the element type
/// of `outType`, `countH` and `countW` giving a window's extent along each
/// axis.
DenseElementsAttr windowCounts(RankedTensorType outType,
                               function_ref<int64_t(int64_t)> countH,
                               function_ref<int64_t(int64_t)> countW) {
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  SmallVector<APFloat> counts;
  const llvm::fltSemantics &sem =
      cast<FloatType>(outType.getElementType()).getFloatSemantics();
  for (int64_t i = 0; i < oh; ++i) {
    for (int64_t j = 0; j < ow; ++j) {
      APFloat count(static_cast<double>(countH(i) * countW(j)));
      bool lost;
      count.convert(sem, APFloat::rmNearestTiesToEven, &lost);
      counts.push_back(count);
    }
  }
  auto type = RankedTensorType::get({oh, ow}, outType.getElementType());
  return DenseElementsAttr::get(type, counts);
}

/// The count of each average pooling window, [OH, OW]: its input positions,
/// or with `includePad` its positions inside the padded input (PyTorch's
/// count_include_pad, which does not count what a ceil_mode window runs past
/// the padding).
DenseElementsAttr poolCounts(RankedTensorType inType, RankedTensorType outType,
                             ArrayRef<int64_t> kernel,
                             ArrayRef<int64_t> strides, ArrayRef<int64_t> pad,
                             bool includePad) {
  auto extent = [&](int axis) {
    int64_t size = inType.getDimSize(2 + axis);
    int64_t k = kernel[axis], s = strides[axis], p = pad[axis];
    return [=](int64_t i) -> int64_t {
      int64_t start = i * s - p;
      if (includePad)
        return std::min(start + k, size + p) - start;
      return std::min(start + k, size) - std::max<int64_t>(start, 0);
    };
  };
  return windowCounts(outType, extent(0), extent(1));
}

/// Pads the spatial dims of an NCHW tensor by `low` before and `high` after
/// with `value`; returns `x` itself when there is nothing to pad.
Value padNCHW(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
              ArrayRef<int64_t> high, double value) {
  if (low[0] == 0 && low[1] == 0 && high[0] == 0 && high[1] == 0)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[2] += low[0] + high[0];
  shape[3] += low[1] + high[1];
  auto padded = RankedTensorType::get(shape, type.getElementType());
  auto dims = [&](ArrayRef<int64_t> p) -> SmallVector<OpFoldResult> {
    return {b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(p[0]),
            b.getIndexAttr(p[1])};
  };
  Value padValue = floatConst(b, loc, type.getElementType(), value);
  return tensor::PadOp::create(b, loc, padded, x, dims(low), dims(high),
                               padValue);
}

/// Pads the NCHW input of a pooling into `outType` with `value`: `pad` on
/// both sides, and on the far side as much more as the last window (of a
/// ceil_mode pooling) runs past that. The windows of the result start at
/// multiples of the strides.
Value padWindows(OpBuilder &b, Location loc, Value x, RankedTensorType outType,
                 ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                 ArrayRef<int64_t> pad, double value) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t, 2> high;
  for (int axis = 0; axis < 2; ++axis) {
    int64_t reach =
        (outType.getDimSize(2 + axis) - 1) * strides[axis] + kernel[axis];
    int64_t padded = type.getDimSize(2 + axis) + 2 * pad[axis];
    high.push_back(pad[axis] + std::max<int64_t>(reach - padded, 0));
  }
  return padNCHW(b, loc, x, pad, high, value);
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
/// (n, c, jh, jw, h, w), whatever the window: a position lies in at most
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
  // The window loops (i, j) outside (h, w): each dx element still adds its
  // terms in the same order, and the innermost loop, along w, is parallel,
  // which LLVM vectorizes.
  AffineExpr n, c, i, j, h, w;
  bindDims(ctx, n, c, i, j, h, w);
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
                        Value oh = window(nb, l, idx[4], idx[2], kernel[0],
                                          strides[0], pad[0], outH, offH, inH);
                        Value ow = window(nb, l, idx[5], idx[3], kernel[1],
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
    auto type = cast<RankedTensorType>(op.getType());
    Value x = padWindows(rewriter, op.getLoc(), op.getX(), type, op.getKernel(),
                         op.getStrides(), op.getPadding(), -INFINITY);
    rewriter.replaceOp(op, maxPool(rewriter, op.getLoc(), x, type,
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
    Value x =
        padWindows(rewriter, loc, op.getX(), type, k, s, op.getPadding(), 0.0);
    PoolWindowGeneric g =
        poolWindowGeneric(rewriter, loc, x, type.getElementType(), k, s);
    Value sum = buildSum(
        rewriter, loc, g.inputs, g.maps, type,
        [](OpBuilder &, Location, ValueRange a) -> Value { return a[0]; });
    rewriter.replaceOp(
        op, divideByCounts(rewriter, loc, sum,
                           poolCounts(inType, type, k, s, op.getPadding(),
                                      op.getCountIncludePad())));
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
    Value share = divideByCounts(rewriter, loc, op.getDy(),
                                 poolCounts(type, dyType, k, s, op.getPadding(),
                                            op.getCountIncludePad()));
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
    Value xPad = padWindows(rewriter, loc, op.getX(), dyType, k, s,
                            op.getPadding(), -INFINITY);
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

//===----------------------------------------------------------------------===//
// Adaptive average pooling
//===----------------------------------------------------------------------===//

/// The windows of an adaptive pooling along one axis, from `in` input to
/// `out` output positions: window i is [start(i), end(i)) with
/// start(i) = floor(i·in/out) and end(i) = ceil((i+1)·in/out) (PyTorch's).
struct AdaptiveAxis {
  int64_t in, out;
  int64_t start(int64_t i) const { return i * in / out; }
  int64_t end(int64_t i) const { return ((i + 1) * in + out - 1) / out; }
  int64_t count(int64_t i) const { return end(i) - start(i); }
  /// The largest window.
  int64_t largest() const {
    int64_t k = 0;
    for (int64_t i = 0; i < out; ++i)
      k = std::max(k, count(i));
    return k;
  }
  /// The first window that contains input position h: floor(h·out/in).
  int64_t first(int64_t h) const { return h * out / in; }
  /// The most windows that contain one input position.
  int64_t mostCovering() const {
    int64_t j = 0;
    for (int64_t h = 0; h < in; ++h) {
      int64_t n = 0;
      for (int64_t i = first(h); i < out && start(i) <= h; ++i)
        ++n;
      j = std::max(j, n);
    }
    return j;
  }
};

/// `(pos * num) floordiv den + offset`: the first window along an axis for
/// a generic's loops.
AffineExpr scaledStart(AffineExpr pos, int64_t num, int64_t den,
                       AffineExpr offset) {
  return (pos * num).floorDiv(den) + offset;
}

/// Emits, in a generic's body, `num * index(pos) / den` (index arithmetic).
Value scaledIndex(OpBuilder &b, Location l, Value pos, int64_t num,
                  int64_t den) {
  Value scaled = arith::MulIOp::create(b, l, pos, indexConst(b, l, num));
  return arith::DivUIOp::create(b, l, scaled, indexConst(b, l, den));
}

struct AdaptiveAvgPool2DLowering : OpRewritePattern<AdaptiveAvgPool2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdaptiveAvgPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getX().getType());
    AdaptiveAxis ax[2] = {{inType.getDimSize(2), type.getDimSize(2)},
                          {inType.getDimSize(3), type.getDimSize(3)}};
    int64_t k[2] = {ax[0].largest(), ax[1].largest()};
    // Pad the far side so that every window's largest-window reads stay in
    // bounds; the positions past a window's end are not summed.
    SmallVector<int64_t, 2> high;
    for (int a = 0; a < 2; ++a)
      high.push_back(
          std::max<int64_t>(ax[a].start(ax[a].out - 1) + k[a] - ax[a].in, 0));
    Value x = padNCHW(rewriter, loc, op.getX(), {0, 0}, high, 0.0);
    // Loops: n, c, oh, ow, kh, kw; the [KH, KW] operand carries the extent
    // of kh/kw and is never read.
    AffineExpr n, c, oh, ow, kh, kw;
    bindDims(ctx, n, c, oh, ow, kh, kw);
    Value window = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{k[0], k[1]}, type.getElementType());
    AffineMap maps[] = {
        AffineMap::get(6, 0,
                       {n, c, scaledStart(oh, ax[0].in, ax[0].out, kh),
                        scaledStart(ow, ax[1].in, ax[1].out, kw)},
                       ctx),
        AffineMap::get(6, 0, {kh, kw}, ctx),
        AffineMap::get(6, 0, {n, c, oh, ow}, ctx)};
    // Whether offset `kth` of window `pos` along axis `a` is inside it.
    auto inside = [&](OpBuilder &b, Location l, int a, Value pos,
                      Value kth) -> Value {
      Value start = scaledIndex(b, l, pos, ax[a].in, ax[a].out);
      Value next = arith::AddIOp::create(b, l, pos, indexConst(b, l, 1));
      Value scaled =
          arith::MulIOp::create(b, l, next, indexConst(b, l, ax[a].in));
      Value rounded =
          arith::AddIOp::create(b, l, scaled, indexConst(b, l, ax[a].out - 1));
      Value end =
          arith::DivUIOp::create(b, l, rounded, indexConst(b, l, ax[a].out));
      Value at = arith::AddIOp::create(b, l, start, kth);
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, at, end);
    };
    Value sum =
        buildSum(rewriter, loc, ValueRange{x, window}, maps, type,
                 [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                   Value idx[6];
                   for (int d = 0; d < 6; ++d)
                     idx[d] = linalg::IndexOp::create(b, l, d);
                   Value inH = inside(b, l, 0, idx[2], idx[4]);
                   Value inW = inside(b, l, 1, idx[3], idx[5]);
                   Value in = arith::AndIOp::create(b, l, inH, inW);
                   // A select, not a product with 0: a NaN outside the window
                   // stays out of it.
                   return arith::SelectOp::create(
                       b, l, in, a[0], floatConst(b, l, a[0].getType(), 0.0));
                 });
    auto count = [&](int a) {
      return [&, a](int64_t i) { return ax[a].count(i); };
    };
    rewriter.replaceOp(op,
                       divideByCounts(rewriter, loc, sum,
                                      windowCounts(type, count(0), count(1))));
    return success();
  }
};

struct AdaptiveAvgPool2DGradLowering
    : OpRewritePattern<AdaptiveAvgPool2DGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdaptiveAvgPool2DGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getType());
    auto dyType = cast<RankedTensorType>(op.getDy().getType());
    AdaptiveAxis ax[2] = {{type.getDimSize(2), dyType.getDimSize(2)},
                          {type.getDimSize(3), dyType.getDimSize(3)}};
    auto count = [&](int a) {
      return [&, a](int64_t i) { return ax[a].count(i); };
    };
    // Each window's share of its adjoint, then for each input position the
    // sum of the shares of the (at most J) windows first(h) + j that
    // contain it.
    Value share = divideByCounts(rewriter, loc, op.getDy(),
                                 windowCounts(dyType, count(0), count(1)));
    int64_t j[2] = {ax[0].mostCovering(), ax[1].mostCovering()};
    SmallVector<int64_t, 2> high;
    for (int a = 0; a < 2; ++a)
      high.push_back(
          std::max<int64_t>(ax[a].first(ax[a].in - 1) + j[a] - ax[a].out, 0));
    share = padNCHW(rewriter, loc, share, {0, 0}, high, 0.0);
    // Loops: n, c, h, w, jh, jw; the [JH, JW] operand carries the extent of
    // jh/jw and is never read.
    AffineExpr n, c, h, w, jh, jw;
    bindDims(ctx, n, c, h, w, jh, jw);
    Value windows = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{j[0], j[1]}, type.getElementType());
    AffineMap maps[] = {
        AffineMap::get(6, 0,
                       {n, c, scaledStart(h, ax[0].out, ax[0].in, jh),
                        scaledStart(w, ax[1].out, ax[1].in, jw)},
                       ctx),
        AffineMap::get(6, 0, {jh, jw}, ctx),
        AffineMap::get(6, 0, {n, c, h, w}, ctx)};
    // Whether window first(pos) + jth along axis `a` exists and contains
    // pos (it ends after pos by construction).
    auto contains = [&](OpBuilder &b, Location l, int a, Value pos,
                        Value jth) -> Value {
      Value first = scaledIndex(b, l, pos, ax[a].out, ax[a].in);
      Value i = arith::AddIOp::create(b, l, first, jth);
      Value exists = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, i,
                                           indexConst(b, l, ax[a].out));
      Value start = scaledIndex(b, l, i, ax[a].in, ax[a].out);
      Value covers =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::ule, start, pos);
      return arith::AndIOp::create(b, l, exists, covers);
    };
    Value dx =
        buildSum(rewriter, loc, ValueRange{share, windows}, maps, type,
                 [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                   Value idx[6];
                   for (int d = 0; d < 6; ++d)
                     idx[d] = linalg::IndexOp::create(b, l, d);
                   Value inH = contains(b, l, 0, idx[2], idx[4]);
                   Value inW = contains(b, l, 1, idx[3], idx[5]);
                   Value in = arith::AndIOp::create(b, l, inH, inW);
                   return arith::SelectOp::create(
                       b, l, in, a[0], floatConst(b, l, a[0].getType(), 0.0));
                 });
    rewriter.replaceOp(op, dx);
    return success();
  }
};

} // namespace

void linalg_lowering::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2DLowering, AvgPool2DLowering, AvgPool2DGradLowering,
               MaxPool2DGradLowering, AdaptiveAvgPool2DLowering,
               AdaptiveAvgPool2DGradLowering>(patterns.getContext());
}
