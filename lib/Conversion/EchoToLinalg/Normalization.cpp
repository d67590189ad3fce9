//===- Normalization.cpp - Normalization, softmax and losses --------------===//
//
// Part of the Echo project.
//
// batch_norm and layer_norm share one lowering parameterised by where their
// statistics and affine parameters live; both gradients recompute the
// statistics from x rather than reading them. softmax subtracts the maximum
// along its axis before exponentiating, so that exp cannot overflow;
// cross_entropy uses log-sum-exp with the row maximum for the same reason.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"
#include "Patterns.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

namespace {

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Where the statistics and the affine parameters of a normalization live:
/// batch_norm keeps statistics and parameters on dim 1; layer_norm keeps
/// statistics on all dims but the last and parameters on the last.
struct NormLayout {
  SmallVector<int64_t> statDims;  // dims indexing mean/rstd
  SmallVector<int64_t> paramDims; // dims indexing gamma/beta
  int64_t count;                  // elements per statistic

  static NormLayout get(RankedTensorType type, bool batchNorm) {
    NormLayout l;
    int64_t rank = type.getRank();
    if (batchNorm) {
      l.statDims = {1};
      l.paramDims = {1};
    } else {
      for (int64_t i = 0; i + 1 < rank; ++i)
        l.statDims.push_back(i);
      l.paramDims = {rank - 1};
    }
    l.count = type.getNumElements() /
              std::max<int64_t>(
                  1, computeProduct(selectDims(type.getShape(), l.statDims)));
    return l;
  }
  SmallVector<int64_t> reducedDims(int64_t rank) const {
    return complementDims(rank, statDims);
  }
};

/// `v` (a tensor) rounded to `type`'s element type, elementwise; `v` when
/// it has that type.
Value roundTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  Type et = getElementTypeOrSelf(type);
  return buildElementwise(b, loc, cast<RankedTensorType>(type), v,
                          [&](OpBuilder &nb, Location l, ValueRange a) {
                            return convertFloat(nb, l, a[0], et);
                          });
}

/// mean and 1/sqrt(var + eps) of `x` for `layout`, in widenedFloatType (f32
/// for 16-bit data, as PyTorch's norms); two passes, the mean and the
/// variance each rounded once from their accumulators.
std::pair<Value, Value> normStats(OpBuilder &b, Location loc, Value x,
                                  const NormLayout &layout, double eps) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  Type et = widenedFloatType(type.getElementType());
  auto statType =
      RankedTensorType::get(selectDims(type.getShape(), layout.statDims), et);
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap statMap = keepDimsMap(ctx, rank, layout.statDims);
  double invCount = 1.0 / static_cast<double>(layout.count);
  Value mean = buildSum(
      b, loc, ValueRange{x}, {id, statMap}, statType,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return convertFloat(nb, l, a[0], et);
      },
      invCount);
  Value var = buildSum(
      b, loc, ValueRange{x, mean}, {id, statMap, statMap}, statType,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value d =
            arith::SubFOp::create(nb, l, convertFloat(nb, l, a[0], et), a[1]);
        return arith::MulFOp::create(nb, l, d, d);
      },
      invCount);
  AffineMap statId = b.getMultiDimIdentityMap(statType.getRank());
  Value rstd = buildGeneric(
      b, loc, ValueRange{var}, {statId, statId}, emptyTensor(b, loc, statType),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v =
            arith::AddFOp::create(nb, l, a[0], floatConst(nb, l, et, eps));
        return math::RsqrtOp::create(nb, l, v);
      });
  return {mean, rstd};
}

template <typename OpTy, bool batchNorm>
struct NormLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    NormLayout layout = NormLayout::get(type, batchNorm);
    auto [mean, rstd] = normStats(rewriter, loc, op.getX(), layout,
                                  op.getEpsilon().convertToDouble());
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap statMap = keepDimsMap(ctx, rank, layout.statDims);
    AffineMap paramMap = keepDimsMap(ctx, rank, layout.paramDims);
    Value y = buildGeneric(
        rewriter, loc,
        ValueRange{op.getX(), mean, rstd, op.getGamma(), op.getBeta()},
        {id, statMap, statMap, paramMap, paramMap, id},
        emptyTensor(rewriter, loc, type),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Type ct = a[1].getType();
          Value xhat = arith::MulFOp::create(
              b, l,
              arith::SubFOp::create(b, l, convertFloat(b, l, a[0], ct), a[1]),
              a[2]);
          Value y = arith::AddFOp::create(
              b, l,
              arith::MulFOp::create(b, l, xhat, convertFloat(b, l, a[3], ct)),
              convertFloat(b, l, a[4], ct));
          return convertFloat(b, l, y, type.getElementType());
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// dxhat = dy·γ; dx = rstd/M · (M·dxhat − Σdxhat − xhat·Σ(dxhat·xhat)) with
/// the sums over each statistic's elements; dγ = Σ dy·xhat and dβ = Σ dy
/// over each parameter's elements.
template <typename OpTy, bool batchNorm>
struct NormGradLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getX().getType());
    // x̂, dx̂ and the sums in the compute type (f32 for 16-bit data); dx,
    // dγ and dβ rounded to the data's type once.
    Type et = widenedFloatType(type.getElementType());
    unsigned rank = type.getRank();
    NormLayout layout = NormLayout::get(type, batchNorm);
    auto stats = normStats(rewriter, loc, op.getX(), layout,
                           op.getEpsilon().convertToDouble());
    // Plain values: the lambdas below capture them (C++17).
    Value mean = stats.first, rstd = stats.second;
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap statMap = keepDimsMap(ctx, rank, layout.statDims);
    AffineMap paramMap = keepDimsMap(ctx, rank, layout.paramDims);
    Value empty = emptyTensor(rewriter, loc, type.clone(et));
    // xhat and dxhat are built once per reader: each generic then has one
    // use, so echo-fuse-elementwise fuses it into its reader and neither is
    // ever stored. The parameters' gradients come first, so that dx is the
    // last reader of x and dy and the buffer planner may give dx their
    // bytes (in place): the op holds x, dy and dx, not two more tensors.
    auto buildXhat = [&] {
      return buildGeneric(rewriter, loc, ValueRange{op.getX(), mean, rstd},
                          {id, statMap, statMap, id}, empty,
                          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                            Value x = convertFloat(b, l, a[0], et);
                            return arith::MulFOp::create(
                                b, l, arith::SubFOp::create(b, l, x, a[1]),
                                a[2]);
                          });
    };
    auto buildDxhat = [&] {
      return buildGeneric(rewriter, loc, ValueRange{op.getDy(), op.getGamma()},
                          {id, paramMap, id}, empty,
                          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                            return arith::MulFOp::create(
                                b, l, convertFloat(b, l, a[0], et),
                                convertFloat(b, l, a[1], et));
                          });
    };
    auto mul = [&](OpBuilder &b, Location l, ValueRange a) -> Value {
      return arith::MulFOp::create(b, l, convertFloat(b, l, a[0], et),
                                   convertFloat(b, l, a[1], et));
    };
    SmallVector<int64_t> statReduced = layout.reducedDims(rank);
    SmallVector<int64_t> paramReduced = complementDims(rank, layout.paramDims);
    Value dyXhat =
        buildGeneric(rewriter, loc, ValueRange{op.getDy(), buildXhat()},
                     {id, id, id}, empty, mul);
    Value dgamma =
        roundTo(rewriter, loc, sumDims(rewriter, loc, dyXhat, paramReduced),
                op.getGamma().getType());
    Value dbeta = sumDims(rewriter, loc, op.getDy(), paramReduced);
    Value sumDxhat = sumDims(rewriter, loc, buildDxhat(), statReduced);
    Value dxhatXhat =
        buildGeneric(rewriter, loc, ValueRange{buildDxhat(), buildXhat()},
                     {id, id, id}, empty, mul);
    Value sumDxhatXhat = sumDims(rewriter, loc, dxhatXhat, statReduced);
    double m = static_cast<double>(layout.count);
    Value dx = buildGeneric(
        rewriter, loc,
        ValueRange{buildDxhat(), buildXhat(), rstd, sumDxhat, sumDxhatXhat},
        {id, id, statMap, statMap, statMap, id},
        emptyTensor(rewriter, loc, type),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value t = arith::MulFOp::create(b, l, a[0], floatConst(b, l, et, m));
          t = arith::SubFOp::create(b, l, t, a[3]);
          t = arith::SubFOp::create(b, l, t,
                                    arith::MulFOp::create(b, l, a[1], a[4]));
          Value scale =
              arith::MulFOp::create(b, l, a[2], floatConst(b, l, et, 1.0 / m));
          return convertFloat(b, l, arith::MulFOp::create(b, l, t, scale),
                              type.getElementType());
        });
    rewriter.replaceOp(op, ValueRange{dx, dgamma, dbeta});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Softmax and losses
//===----------------------------------------------------------------------===//

/// softmax of `x` along `axis`.
Value buildSoftmax(OpBuilder &b, Location loc, Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap red = dropDimsMap(ctx, rank, {axis});
  Value mx = maxDims(b, loc, x, {axis});
  Value e = buildGeneric(b, loc, ValueRange{x, mx}, {id, red, id},
                         emptyTensor(b, loc, type),
                         [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return math::ExpOp::create(
                               nb, l, arith::SubFOp::create(nb, l, a[0], a[1]));
                         });
  Value s = sumDims(b, loc, e, {axis});
  return buildGeneric(b, loc, ValueRange{e, s}, {id, red, id},
                      emptyTensor(b, loc, type),
                      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return arith::DivFOp::create(nb, l, a[0], a[1]);
                      });
}

struct SoftmaxLowering : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildSoftmax(rewriter, op.getLoc(), op.getX(),
                                        static_cast<int64_t>(op.getAxis())));
    return success();
  }
};

struct SoftmaxGradLowering : OpRewritePattern<SoftmaxGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    auto axis = static_cast<int64_t>(op.getAxis());
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap red = dropDimsMap(getContext(), rank, {axis});
    Value ydy =
        buildElementwise(rewriter, loc, type, ValueRange{op.getY(), op.getDy()},
                         [](OpBuilder &b, Location l, ValueRange a) -> Value {
                           return arith::MulFOp::create(b, l, a[0], a[1]);
                         });
    Value dot = sumDims(rewriter, loc, ydy, {axis});
    Value dx =
        buildGeneric(rewriter, loc, ValueRange{op.getY(), op.getDy(), dot},
                     {id, id, red, id}, emptyTensor(rewriter, loc, type),
                     [](OpBuilder &b, Location l, ValueRange a) -> Value {
                       return arith::MulFOp::create(
                           b, l, a[0], arith::SubFOp::create(b, l, a[1], a[2]));
                     });
    rewriter.replaceOp(op, dx);
    return success();
  }
};

/// `c == labels[n]` inside a generic over (n, c).
Value isLabel(OpBuilder &b, Location loc, Value label) {
  Value c = linalg::IndexOp::create(b, loc, 1);
  Value l = arith::IndexCastOp::create(b, loc, b.getIndexType(), label);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c, l);
}

/// `echo.cross_entropy` (the mean of the terms) and
/// `echo.cross_entropy_terms` (the terms of its rows), with the same ops in
/// the same order, so that the mean of a chunked loss's terms is the
/// unchunked loss up to the rounding of the sum and its scale.
template <typename OpTy> struct CrossEntropyLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = this->getContext();
    auto type = cast<RankedTensorType>(op.getLogits().getType());
    int64_t n = type.getDimSize(0);
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    AffineMap id = rewriter.getMultiDimIdentityMap(2);
    AffineMap row = AffineMap::get(2, 0, {d0}, ctx);
    // The loss's type: the logits', or f32 for f16/bf16 logits, which are
    // then widened where they are read (exactly: no rounding).
    auto resultType = cast<RankedTensorType>(op.getType());
    Type ct = resultType.getElementType();
    Value mx = maxDims(rewriter, loc, op.getLogits(), {1});
    auto rowType = cast<RankedTensorType>(mx.getType()).clone(ct);
    // sumexp[n] = Σ_c exp(l - max); picked[n] = l[n, label[n]].
    Value sumExp = buildSum(
        rewriter, loc, ValueRange{op.getLogits(), mx}, {id, row, row}, rowType,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value x = convertFloat(b, l, a[0], ct);
          Value m = convertFloat(b, l, a[1], ct);
          return math::ExpOp::create(b, l, arith::SubFOp::create(b, l, x, m));
        });
    Value picked =
        buildGeneric(rewriter, loc, ValueRange{op.getLogits(), op.getLabels()},
                     {id, row, row}, zeros(rewriter, loc, rowType),
                     [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                       // One op per statement (argument evaluation
                       // order is unspecified).
                       Value label = isLabel(b, l, a[1]);
                       Value x = convertFloat(b, l, a[0], ct);
                       Value zero = floatConst(b, l, ct, 0.0);
                       Value v = arith::SelectOp::create(b, l, label, x, zero);
                       return arith::AddFOp::create(b, l, a[2], v);
                     });
    // term[n] = max + log(sumexp) - picked; loss = Σ_n term[n] / N.
    AffineMap rowId = rewriter.getMultiDimIdentityMap(1);
    auto term = [&](OpBuilder &b, Location l, ValueRange a) -> Value {
      Value m = convertFloat(b, l, a[0], ct);
      Value lse =
          arith::AddFOp::create(b, l, m, math::LogOp::create(b, l, a[1]));
      return arith::SubFOp::create(b, l, lse, a[2]);
    };
    Value result;
    if constexpr (std::is_same_v<OpTy, CrossEntropyTermsOp>) {
      result = buildGeneric(rewriter, loc, ValueRange{mx, sumExp, picked},
                            {rowId, rowId, rowId, rowId},
                            emptyTensor(rewriter, loc, resultType), term);
    } else {
      AffineMap toScalar = AffineMap::get(1, 0, {}, ctx);
      result = buildSum(rewriter, loc, ValueRange{mx, sumExp, picked},
                        {rowId, rowId, rowId, toScalar}, resultType, term,
                        1.0 / static_cast<double>(n));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct CrossEntropyGradLowering : OpRewritePattern<CrossEntropyGradOp> {
  using OpRewritePattern::OpRewritePattern;

  /// f16/bf16 logits with an f32 `dloss`: the softmax and the gradient in
  /// `ct` (f32) from the logits widened as they are read, rounded to the
  /// logits' type once; no f32 copy of the logits or of the softmax.
  static Value buildMixed(PatternRewriter &rewriter, CrossEntropyGradOp op,
                          Type ct, int64_t n) {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    AffineMap id = rewriter.getMultiDimIdentityMap(2);
    AffineMap row = AffineMap::get(2, 0, {d0}, ctx);
    AffineMap scalar = AffineMap::get(2, 0, {}, ctx);
    Value logits = op.getLogits();
    Value mx = maxDims(rewriter, loc, logits, {1});
    auto rowType = cast<RankedTensorType>(mx.getType()).clone(ct);
    Value sumExp = buildSum(
        rewriter, loc, ValueRange{logits, mx}, {id, row, row}, rowType,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value x = convertFloat(b, l, a[0], ct);
          Value m = convertFloat(b, l, a[1], ct);
          return math::ExpOp::create(b, l, arith::SubFOp::create(b, l, x, m));
        });
    return buildGeneric(
        rewriter, loc,
        ValueRange{logits, mx, sumExp, op.getLabels(), op.getDloss()},
        {id, row, row, row, scalar, id}, emptyTensor(rewriter, loc, type),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          // One op per statement (argument evaluation order is unspecified).
          Value x = convertFloat(b, l, a[0], ct);
          Value m = convertFloat(b, l, a[1], ct);
          Value e =
              math::ExpOp::create(b, l, arith::SubFOp::create(b, l, x, m));
          Value p = arith::DivFOp::create(b, l, e, a[2]);
          Value label = isLabel(b, l, a[3]);
          Value oneConst = floatConst(b, l, ct, 1.0);
          Value zeroConst = floatConst(b, l, ct, 0.0);
          Value one = arith::SelectOp::create(b, l, label, oneConst, zeroConst);
          Value g = arith::SubFOp::create(b, l, p, one);
          Value scale =
              arith::MulFOp::create(b, l, a[4], floatConst(b, l, ct, 1.0 / n));
          Value v = arith::MulFOp::create(b, l, g, scale);
          return convertFloat(b, l, v, type.getElementType());
        });
  }

  LogicalResult matchAndRewrite(CrossEntropyGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    // A chunk of a loss scales by the rows of the whole loss.
    int64_t n = op.getTotalRows() ? static_cast<int64_t>(*op.getTotalRows())
                                  : type.getDimSize(0);
    Type ct = getElementTypeOrSelf(op.getDloss().getType());
    if (ct != et) {
      rewriter.replaceOp(op, buildMixed(rewriter, op, ct, n));
      return success();
    }
    Value p = buildSoftmax(rewriter, loc, op.getLogits(), 1);
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    AffineMap id = rewriter.getMultiDimIdentityMap(2);
    AffineMap row = AffineMap::get(2, 0, {d0}, ctx);
    AffineMap scalar = AffineMap::get(2, 0, {}, ctx);
    Value dl = buildGeneric(
        rewriter, loc, ValueRange{p, op.getLabels(), op.getDloss()},
        {id, row, scalar, id}, emptyTensor(rewriter, loc, type),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          // One op per statement (argument evaluation order is unspecified).
          Value label = isLabel(b, l, a[1]);
          Value oneConst = floatConst(b, l, et, 1.0);
          Value zeroConst = floatConst(b, l, et, 0.0);
          Value one = arith::SelectOp::create(b, l, label, oneConst, zeroConst);
          Value g = arith::SubFOp::create(b, l, a[0], one);
          Value scale =
              arith::MulFOp::create(b, l, a[2], floatConst(b, l, et, 1.0 / n));
          return arith::MulFOp::create(b, l, g, scale);
        });
    rewriter.replaceOp(op, dl);
    return success();
  }
};

struct MseLossLowering : OpRewritePattern<MseLossOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MseLossOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getPred().getType());
    unsigned rank = type.getRank();
    double inv = 1.0 / static_cast<double>(type.getNumElements());
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap scalar = AffineMap::get(rank, 0, {}, getContext());
    Value loss = buildSum(
        rewriter, loc, ValueRange{op.getPred(), op.getTarget()},
        {id, id, scalar}, cast<RankedTensorType>(op.getType()),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value d = arith::SubFOp::create(b, l, a[0], a[1]);
          return arith::MulFOp::create(b, l, d, d);
        },
        inv);
    rewriter.replaceOp(op, loss);
    return success();
  }
};

struct MseLossGradLowering : OpRewritePattern<MseLossGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MseLossGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    unsigned rank = type.getRank();
    double scale = 2.0 / static_cast<double>(type.getNumElements());
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap scalar = AffineMap::get(rank, 0, {}, getContext());
    Value dp = buildGeneric(
        rewriter, loc, ValueRange{op.getPred(), op.getTarget(), op.getDloss()},
        {id, id, scalar, id}, emptyTensor(rewriter, loc, type),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value d = arith::SubFOp::create(b, l, a[0], a[1]);
          Value s =
              arith::MulFOp::create(b, l, a[2], floatConst(b, l, et, scale));
          return arith::MulFOp::create(b, l, d, s);
        });
    rewriter.replaceOp(op, dp);
    return success();
  }
};

} // namespace

void linalg_lowering::populateNormalizationPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<NormLowering<BatchNormOp, true>, NormLowering<LayerNormOp, false>,
           NormGradLowering<BatchNormGradOp, true>,
           NormGradLowering<LayerNormGradOp, false>, SoftmaxLowering,
           SoftmaxGradLowering, CrossEntropyLowering<CrossEntropyOp>,
           CrossEntropyLowering<CrossEntropyTermsOp>, CrossEntropyGradLowering,
           MseLossLowering, MseLossGradLowering>(patterns.getContext());
}
