//===- MoreOps.cpp - Stop-gradient, sinusoids, resampling -----------------===//
//
// Part of the Echo project.
//
// The lowerings of the ops of EchoMoreOps.td:
//
// - stop_gradient is its operand;
// - sin and cos are one `linalg.generic` each (math.sin, math.cos, in f32 for
//   the 16-bit floats, as the other elementwise ops);
// - conv_transpose2d is conv2d_grad_input with `x` as `dy`, whose lowering
//   (Contraction.cpp) it then takes;
// - the upsampling ops gather: each output element reads the input
//   positions its source coordinate gives (one for nearest, four for
//   bilinear), computed in the body in f32 as PyTorch's CPU kernels compute
//   them; their gradients gather too, each input position summing the
//   elements of `dy` whose source coordinates reach it over a window of
//   output positions that holds all of them (found at compile time by
//   running the same arithmetic), so that neither needs a scatter or a
//   table in memory and both run as they are on the GPU.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"
#include "Patterns.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

namespace {

//===----------------------------------------------------------------------===//
// Stop-gradient, sinusoids, transposed convolution
//===----------------------------------------------------------------------===//

struct StopGradientLowering : OpRewritePattern<StopGradientOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StopGradientOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getX());
    return success();
  }
};

/// sin and cos: computed in f32 for the 16-bit floats and rounded once.
template <typename OpTy, typename MathOp>
struct SinusoidLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, ValueRange{op.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x =
              convertFloat(b, loc, args[0], widenedFloatType(elementType));
          return convertFloat(b, loc, MathOp::create(b, loc, x), elementType);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvTranspose2DLowering : OpRewritePattern<ConvTranspose2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTranspose2DOp op,
                                PatternRewriter &rewriter) const override {
    // The output's extent, which carries output_padding, is the result
    // type's; conv2d_grad_input's lowering leaves the positions no window
    // reaches at zero.
    rewriter.replaceOpWithNewOp<Conv2DGradInputOp>(
        op, op.getType(), op.getW(), op.getX(), op.getStridesAttr(),
        op.getPaddingAttr(), op.getGroupsAttr());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Upsampling
//===----------------------------------------------------------------------===//

/// The input positions and weights an output position reads along one axis.
struct Taps {
  int64_t first, second;
  double firstWeight, secondWeight;
};

/// One spatial axis of an upsampling from `in` to `out` positions: PyTorch's
/// source coordinates (UpSample.h: `nearest_idx`, in f32 for every dtype,
/// and `compute_source_index_and_lambda`, in f32, or f64 for f64 tensors),
/// computed here at compile time (`taps`, to size the gradient's windows)
/// and in the generated body (`buildTaps`) by the same sequence of
/// operations, one rounding each.
class UpsampleAxis {
public:
  /// `wide`: f64 tensors, whose bilinear coordinates are f64.
  UpsampleAxis(int64_t in, int64_t out, std::optional<double> scaleFactor,
               bool bilinear, bool alignCorners, bool wide)
      : in(in), out(out), bilinear(bilinear), alignCorners(alignCorners),
        wide(wide && bilinear) {
    if (this->wide)
      ratio = computeRatio<double>(scaleFactor);
    else
      ratio = computeRatio<float>(scaleFactor);
    sizeGradientWindows();
  }

  /// The taps of output position `i` (nearest: one tap, weight 1).
  Taps taps(int64_t i) const {
    return wide ? tapsIn<double>(i) : tapsIn<float>(i);
  }

  /// The first output position of the gradient's window of input
  /// position `a`: max(0, a·out/in − margin).
  int64_t windowStart(int64_t a) const {
    return std::max<int64_t>(0, a * out / in - margin);
  }

  /// The float type of the coordinates and weights.
  Type coordinateType(OpBuilder &b) const {
    return wide ? Type(b.getF64Type()) : Type(b.getF32Type());
  }

  /// Builds, in a generic's body, the taps of the output position `i`
  /// (index): the two input positions (index) and their weights (of
  /// coordinateType).
  std::tuple<Value, Value, Value, Value> buildTaps(OpBuilder &b, Location loc,
                                                   Value i) const {
    Type t = coordinateType(b), f32 = b.getF32Type(), f64 = b.getF64Type(),
         i64 = b.getI64Type(), index = b.getIndexType();
    Value one = floatConst(b, loc, t, 1.0), zero = floatConst(b, loc, t, 0);
    if (identity())
      return {i, i, one, zero};
    Value wideI = arith::IndexCastOp::create(b, loc, i64, i);
    if (!bilinear) {
      Value scaled = arith::MulFOp::create(
          b, loc, arith::SIToFPOp::create(b, loc, f32, wideI),
          floatConst(b, loc, f32, ratio));
      Value a = arith::MinSIOp::create(
          b, loc, arith::FPToSIOp::create(b, loc, i64, scaled),
          arith::ConstantIntOp::create(b, loc, i64, in - 1));
      Value position = arith::IndexCastOp::create(b, loc, index, a);
      return {position, position, one, zero};
    }
    Value source;
    if (alignCorners) {
      source = arith::MulFOp::create(b, loc, floatConst(b, loc, t, ratio),
                                     arith::SIToFPOp::create(b, loc, t, wideI));
    } else {
      // ratio · (i + 0.5) − 0.5 in f64, rounded to the coordinate type;
      // negatives become 0.
      Value center = arith::AddFOp::create(
          b, loc, arith::SIToFPOp::create(b, loc, f64, wideI),
          floatConst(b, loc, f64, 0.5));
      Value scaled =
          arith::MulFOp::create(b, loc, floatConst(b, loc, f64, ratio), center);
      Value shifted =
          arith::SubFOp::create(b, loc, scaled, floatConst(b, loc, f64, 0.5));
      Value narrow = convertFloat(b, loc, shifted, t);
      Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                             narrow, zero);
      source = arith::SelectOp::create(b, loc, negative, zero, narrow);
    }
    Value low = arith::FPToSIOp::create(b, loc, i64, source);
    Value inside = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, low,
        arith::ConstantIntOp::create(b, loc, i64, in - 1));
    Value high = arith::AddIOp::create(
        b, loc, low, arith::ExtUIOp::create(b, loc, i64, inside));
    Value lambda = arith::SubFOp::create(
        b, loc, source, arith::SIToFPOp::create(b, loc, t, low));
    Value keep = arith::SubFOp::create(b, loc, one, lambda);
    return {arith::IndexCastOp::create(b, loc, index, low),
            arith::IndexCastOp::create(b, loc, index, high), keep, lambda};
  }

  int64_t in, out;
  /// The gradient's window: input position a sums the output positions
  /// [windowStart(a), windowStart(a) + window) that read it.
  int64_t margin = 0, window = 1;

private:
  /// Equal extents copy.
  bool identity() const { return in == out; }

  /// The ratio of source to output coordinates, in `T`.
  template <typename T> double computeRatio(std::optional<double> scale) {
    if (identity())
      return 1.0;
    // Nearest's doubling halves the index.
    if (!bilinear && out == 2 * in)
      return 0.5;
    if (bilinear && alignCorners)
      return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : 0.0;
    if (scale)
      return static_cast<T>(1.0 / *scale);
    return static_cast<T>(in) / static_cast<T>(out);
  }

  template <typename T> Taps tapsIn(int64_t i) const {
    if (identity())
      return {i, i, 1.0, 0.0};
    if (!bilinear) {
      float scaled = static_cast<float>(i) * static_cast<float>(ratio);
      int64_t a = std::min(static_cast<int64_t>(scaled), in - 1);
      return {a, a, 1.0, 0.0};
    }
    T source;
    if (alignCorners) {
      source = static_cast<T>(ratio) * static_cast<T>(i);
    } else {
      double center = static_cast<double>(i);
      center = center + 0.5;
      double scaled = ratio * center;
      scaled = scaled - 0.5;
      source = static_cast<T>(scaled);
      if (source < T(0))
        source = T(0);
    }
    auto low = static_cast<int64_t>(source);
    int64_t high = low + (low < in - 1 ? 1 : 0);
    T lambda = source - static_cast<T>(low);
    T keep = T(1) - lambda;
    return {low, high, keep, lambda};
  }

  /// Sets `margin` and `window` so that every output position reading an
  /// input position lies in its window, with one position of slack on each
  /// side (the body recomputes the taps and tests them, so a window only
  /// has to hold the positions; the slack covers a compiler that fused this
  /// file's float arithmetic differently).
  void sizeGradientWindows() {
    SmallVector<int64_t> first(in, -1), last(in, -1);
    for (int64_t i = 0; i < out; ++i) {
      Taps t = taps(i);
      for (int64_t a : {t.first, t.second}) {
        if (first[a] < 0)
          first[a] = i;
        last[a] = i;
      }
    }
    for (int64_t a = 0; a < in; ++a)
      if (first[a] >= 0)
        margin = std::max(margin, a * out / in - first[a]);
    margin += 1;
    for (int64_t a = 0; a < in; ++a)
      if (first[a] >= 0)
        window = std::max(window, last[a] - windowStart(a) + 2);
    window = std::min(window, out);
  }

  bool bilinear, alignCorners, wide;
  /// The ratio of source to output coordinates (a value of the coordinate
  /// type).
  double ratio = 1.0;
};

/// The two axes (H, W) of an upsampling between the NCHW types `input` and
/// `output`.
template <typename OpTy>
std::pair<UpsampleAxis, UpsampleAxis>
getAxes(OpTy op, RankedTensorType input, RankedTensorType output, bool bilinear,
        bool alignCorners) {
  auto scale = [](std::optional<APFloat> s) -> std::optional<double> {
    if (!s)
      return std::nullopt;
    return s->convertToDouble();
  };
  bool wide = input.getElementType().isF64();
  return {UpsampleAxis(input.getDimSize(2), output.getDimSize(2),
                       scale(op.getScalesH()), bilinear, alignCorners, wide),
          UpsampleAxis(input.getDimSize(3), output.getDimSize(3),
                       scale(op.getScalesW()), bilinear, alignCorners, wide)};
}

template <typename OpTy> bool isAlignCorners(OpTy op) {
  if constexpr (std::is_same_v<OpTy, UpsampleBilinear2DOp> ||
                std::is_same_v<OpTy, UpsampleBilinear2DGradOp>)
    return op.getAlignCorners();
  return false;
}

/// echo.upsample_nearest2d / echo.upsample_bilinear2d: a generic over the
/// output whose body reads the input at the taps of its position, the W
/// taps mixed first, then the H ones (the order of PyTorch's kernel).
template <typename OpTy, bool bilinear>
struct UpsampleLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto xType = cast<RankedTensorType>(op.getX().getType());
    Type elementType = type.getElementType();
    Type computeType = widenedFloatType(elementType);
    std::pair<UpsampleAxis, UpsampleAxis> axes =
        getAxes(op, xType, type, bilinear, isAlignCorners(op));
    const UpsampleAxis &axisH = axes.first, &axisW = axes.second;
    Value x = op.getX();
    AffineMap outMap = rewriter.getMultiDimIdentityMap(4);
    Value result = buildGeneric(
        rewriter, loc, ValueRange{}, {outMap}, emptyTensor(rewriter, loc, type),
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value n = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          auto [h0, h1, wh0, wh1] =
              axisH.buildTaps(b, l, linalg::IndexOp::create(b, l, 2));
          auto [w0, w1, ww0, ww1] =
              axisW.buildTaps(b, l, linalg::IndexOp::create(b, l, 3));
          auto read = [&](Value h, Value w) {
            Value v =
                tensor::ExtractOp::create(b, l, x, ValueRange{n, c, h, w});
            return convertFloat(b, l, v, computeType);
          };
          if (!bilinear)
            return convertFloat(b, l, read(h0, w0), elementType);
          auto weight = [&](Value w) {
            return convertFloat(b, l, w, computeType);
          };
          auto mix = [&](Value a, Value wa, Value c2, Value wc) {
            Value left = arith::MulFOp::create(b, l, a, weight(wa));
            Value right = arith::MulFOp::create(b, l, c2, weight(wc));
            return arith::AddFOp::create(b, l, left, right).getResult();
          };
          Value top = mix(read(h0, w0), ww0, read(h0, w1), ww1);
          Value bottom = mix(read(h1, w0), ww0, read(h1, w1), ww1);
          return convertFloat(b, l, mix(top, wh0, bottom, wh1), elementType);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The gradients: a generic over (n, c, a, b) and the window offsets
/// (r, q), summing dy[n, c, i, j] · weight for the output positions
/// i = start(a) + r, j = start(b) + q whose taps reach (a, b), in output
/// order, in f32 for the 16-bit floats (rounded once at the end).
template <typename OpTy, bool bilinear>
struct UpsampleGradLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    auto dyType = cast<RankedTensorType>(op.getDy().getType());
    Type elementType = type.getElementType();
    Type computeType = widenedFloatType(elementType);
    std::pair<UpsampleAxis, UpsampleAxis> axes =
        getAxes(op, type, dyType, bilinear, isAlignCorners(op));
    const UpsampleAxis &axisH = axes.first, &axisW = axes.second;
    Value dy = op.getDy();
    auto accType = RankedTensorType::get(type.getShape(), computeType);
    // Loops n, c, a, b, r, q; the [RH, RW] operand carries the extent of r
    // and q and is never read.
    AffineExpr n, c, a, bDim, r, q;
    bindDims(ctx, n, c, a, bDim, r, q);
    Value windows = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{axisH.window, axisW.window},
        computeType);
    SmallVector<AffineMap> maps = {AffineMap::get(6, 0, {r, q}, ctx),
                                   AffineMap::get(6, 0, {n, c, a, bDim}, ctx)};
    // Along `axis`: the output position start(pos) + offset (clamped to the
    // axis), whether it exists and reads input position `pos`, and the
    // weight with which it reads it.
    auto reach = [](OpBuilder &b, Location l, const UpsampleAxis &axis,
                    Value pos,
                    Value offset) -> std::tuple<Value, Value, Value> {
      // start = max(0, pos·out/in − margin), as UpsampleAxis::windowStart.
      Value scaled = arith::DivUIOp::create(
          b, l, arith::MulIOp::create(b, l, pos, indexConst(b, l, axis.out)),
          indexConst(b, l, axis.in));
      Value margin = indexConst(b, l, axis.margin);
      Value past = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ugt,
                                         scaled, margin);
      Value start = arith::SelectOp::create(
          b, l, past, arith::SubIOp::create(b, l, scaled, margin),
          indexConst(b, l, 0));
      Value i = arith::AddIOp::create(b, l, start, offset);
      Value exists = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, i,
                                           indexConst(b, l, axis.out));
      Value clamped =
          arith::MinUIOp::create(b, l, i, indexConst(b, l, axis.out - 1));
      auto [t0, t1, w0, w1] = axis.buildTaps(b, l, clamped);
      Value zero = floatConst(b, l, w0.getType(), 0.0);
      Value hit0 =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, t0, pos);
      Value weight = arith::SelectOp::create(b, l, hit0, w0, zero);
      Value reads = hit0;
      if (bilinear) {
        Value hit1 =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, t1, pos);
        weight = arith::AddFOp::create(
            b, l, weight, arith::SelectOp::create(b, l, hit1, w1, zero));
        reads = arith::OrIOp::create(b, l, hit0, hit1);
      }
      return {clamped, arith::AndIOp::create(b, l, exists, reads), weight};
    };
    Value sum = buildGeneric(
        rewriter, loc, ValueRange{windows}, maps, zeros(rewriter, loc, accType),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value idx[6];
          for (int d = 0; d < 6; ++d)
            idx[d] = linalg::IndexOp::create(b, l, d);
          auto [i, inH, weightH] = reach(b, l, axisH, idx[2], idx[4]);
          auto [j, inW, weightW] = reach(b, l, axisW, idx[3], idx[5]);
          Value g =
              convertFloat(b, l,
                           tensor::ExtractOp::create(
                               b, l, dy, ValueRange{idx[0], idx[1], i, j}),
                           computeType);
          Value weight = convertFloat(
              b, l, arith::MulFOp::create(b, l, weightH, weightW), computeType);
          Value term = arith::MulFOp::create(b, l, weight, g);
          // A select, not a product with 0: a NaN in dy that the position
          // does not read stays out of its sum.
          Value in = arith::AndIOp::create(b, l, inH, inW);
          Value added = arith::AddFOp::create(b, l, args.back(), term);
          return arith::SelectOp::create(b, l, in, added, args.back());
        });
    if (computeType != elementType)
      sum = buildElementwise(rewriter, loc, type, ValueRange{sum},
                             [&](OpBuilder &b, Location l, ValueRange v) {
                               return convertFloat(b, l, v[0], elementType);
                             });
    rewriter.replaceOp(op, sum);
    return success();
  }
};

} // namespace

void linalg_lowering::populateMoreOpsPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<StopGradientLowering, SinusoidLowering<SinOp, math::SinOp>,
               SinusoidLowering<CosOp, math::CosOp>, ConvTranspose2DLowering,
               UpsampleLowering<UpsampleNearest2DOp, false>,
               UpsampleLowering<UpsampleBilinear2DOp, true>,
               UpsampleGradLowering<UpsampleNearest2DGradOp, false>,
               UpsampleGradLowering<UpsampleBilinear2DGradOp, true>>(ctx);
}
