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
#include <variant>

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

/// `label != ignore` for an i32 `label`.
Value isCounted(OpBuilder &b, Location loc, Value label, int64_t ignore) {
  Value wide = arith::ExtSIOp::create(b, loc, b.getI64Type(), label);
  Value ignored =
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(ignore));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, wide, ignored);
}

/// What a cross-entropy's attributes ask of its lowering.
struct LossOptions {
  std::optional<int64_t> ignore;
  double smoothing = 0.0;

  template <typename OpTy> static LossOptions get(OpTy op) {
    LossOptions o;
    o.ignore = op.getIgnoreIndex();
    if (std::optional<APFloat> e = op.getLabelSmoothing())
      o.smoothing = e->convertToDouble();
    return o;
  }
};

/// The number of `labels` other than `ignore`, as a 0-d tensor of the
/// float type `type` (the divisor of a mean that ignores rows; exact below
/// 2^24 rows in f32).
Value countLabels(OpBuilder &b, Location loc, Value labels, int64_t ignore,
                  RankedTensorType type) {
  MLIRContext *ctx = b.getContext();
  AffineMap id = b.getMultiDimIdentityMap(1);
  AffineMap toScalar = AffineMap::get(1, 0, {}, ctx);
  // An i32 count where it fits (GPUs reduce i32 with shuffles).
  int64_t rows = cast<RankedTensorType>(labels.getType()).getDimSize(0);
  IntegerType countType =
      rows < (int64_t(1) << 31) ? b.getI32Type() : b.getI64Type();
  auto scalarType = RankedTensorType::get({}, countType);
  Value zero = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(scalarType, b.getIntegerAttr(countType, 0)));
  Value count =
      buildGeneric(b, loc, ValueRange{labels}, {id, toScalar}, zero,
                   [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     Value counted = isCounted(nb, l, a[0], ignore);
                     Value one =
                         arith::ExtUIOp::create(nb, l, countType, counted);
                     return arith::AddIOp::create(nb, l, a[1], one);
                   });
  AffineMap scalar = AffineMap::get(0, 0, ctx);
  return buildGeneric(
      b, loc, ValueRange{count}, {scalar, scalar}, emptyTensor(b, loc, type),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::SIToFPOp::create(nb, l, type.getElementType(), a[0]);
      });
}

struct LabelCountLowering : OpRewritePattern<LabelCountOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LabelCountOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, countLabels(rewriter, op.getLoc(), op.getLabels(),
                                       op.getIgnoreIndex(),
                                       cast<RankedTensorType>(op.getType())));
    return success();
  }
};

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
    LossOptions options = LossOptions::get(op);
    auto type = cast<RankedTensorType>(op.getLogits().getType());
    int64_t n = type.getDimSize(0), classes = type.getDimSize(1);
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
    // Label smoothing reads every logit of the row: rowsum[n] = Σ_c l.
    SmallVector<Value> rowInputs = {mx, sumExp, picked};
    if (options.smoothing != 0.0)
      rowInputs.push_back(buildSum(
          rewriter, loc, ValueRange{op.getLogits()}, {id, row}, rowType,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            return convertFloat(b, l, a[0], ct);
          }));
    if (options.ignore)
      rowInputs.push_back(op.getLabels());
    // term[n] = max + log(sumexp) - picked (with smoothing ε:
    // - (1 - ε) picked - ε/C rowsum; an ignored row's term is 0);
    // loss = Σ_n term[n] / N (N: the rows that count).
    AffineMap rowId = rewriter.getMultiDimIdentityMap(1);
    auto term = [&](OpBuilder &b, Location l, ValueRange a) -> Value {
      Value m = convertFloat(b, l, a[0], ct);
      Value lse =
          arith::AddFOp::create(b, l, m, math::LogOp::create(b, l, a[1]));
      Value t;
      unsigned next = 3;
      if (options.smoothing == 0.0) {
        t = arith::SubFOp::create(b, l, lse, a[2]);
      } else {
        Value keep = floatConst(b, l, ct, 1.0 - options.smoothing);
        Value spread = floatConst(b, l, ct, options.smoothing / classes);
        Value target = arith::MulFOp::create(b, l, keep, a[2]);
        Value uniform = arith::MulFOp::create(b, l, spread, a[next++]);
        t = arith::SubFOp::create(b, l, lse, target);
        t = arith::SubFOp::create(b, l, t, uniform);
      }
      if (options.ignore) {
        Value counted = isCounted(b, l, a[next], *options.ignore);
        t = arith::SelectOp::create(b, l, counted, t, floatConst(b, l, ct, 0));
      }
      return t;
    };
    SmallVector<AffineMap> rowMaps(rowInputs.size(), rowId);
    Value result;
    if constexpr (std::is_same_v<OpTy, CrossEntropyTermsOp> ||
                  std::is_same_v<OpTy, CrossEntropyRowsOp>) {
      rowMaps.push_back(rowId);
      result = buildGeneric(rewriter, loc, rowInputs, rowMaps,
                            emptyTensor(rewriter, loc, resultType), term);
    } else {
      rowMaps.push_back(AffineMap::get(1, 0, {}, ctx));
      result = buildSum(rewriter, loc, rowInputs, rowMaps, resultType, term,
                        options.ignore ? 1.0 : 1.0 / static_cast<double>(n));
      if (options.ignore) {
        Value count = countLabels(rewriter, loc, op.getLabels(),
                                  *options.ignore, resultType);
        result = buildElementwise(
            rewriter, loc, resultType, ValueRange{result, count},
            [](OpBuilder &b, Location l, ValueRange a) -> Value {
              return arith::DivFOp::create(b, l, a[0], a[1]);
            });
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The gradients of echo.cross_entropy (a 0-d `dloss`, divided by the rows
/// that count) and of echo.cross_entropy_rows (a `dloss` per row, as it
/// is).
template <typename OpTy>
struct CrossEntropyGradLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  static constexpr bool perRow = std::is_same_v<OpTy, CrossEntropyRowsGradOp>;

  /// `dloss · (p − target) · scale` for one element, in `ct`: `p` the
  /// softmax, `isTarget` whether the column is the row's label, `counted`
  /// whether the row counts (null: every row), `scale` 1/N (null: `dloss`
  /// is already divided). One op per statement (argument evaluation order
  /// is unspecified).
  static Value gradient(OpBuilder &b, Location l, Type ct, Value p,
                        Value isTarget, Value dloss, Value scale, Value counted,
                        const LossOptions &options, int64_t classes) {
    double keep = 1.0 - options.smoothing;
    Value oneConst = floatConst(b, l, ct, keep);
    Value zeroConst = floatConst(b, l, ct, 0.0);
    Value one = arith::SelectOp::create(b, l, isTarget, oneConst, zeroConst);
    Value g = arith::SubFOp::create(b, l, p, one);
    if (options.smoothing != 0.0)
      g = arith::SubFOp::create(
          b, l, g, floatConst(b, l, ct, options.smoothing / classes));
    Value s = scale ? arith::MulFOp::create(b, l, dloss, scale) : dloss;
    Value v = arith::MulFOp::create(b, l, g, s);
    if (counted)
      v = arith::SelectOp::create(b, l, counted, v, zeroConst);
    return v;
  }

  /// The divisor of the mean: `count`, else `total_rows`, else the rows
  /// that count (a 0-d tensor of `ct` when rows are ignored, else the rows
  /// of the logits).
  static std::variant<int64_t, Value> divisor(PatternRewriter &,
                                              CrossEntropyRowsGradOp, Type) {
    return int64_t(1);
  }
  static std::variant<int64_t, Value> divisor(PatternRewriter &rewriter,
                                              CrossEntropyGradOp op, Type ct) {
    if (Value count = op.getCount())
      return count;
    if (std::optional<uint64_t> total = op.getTotalRows())
      return static_cast<int64_t>(*total);
    if (std::optional<int64_t> ignore = op.getIgnoreIndex())
      return countLabels(rewriter, op.getLoc(), op.getLabels(), *ignore,
                         RankedTensorType::get({}, ct));
    return cast<RankedTensorType>(op.getType()).getDimSize(0);
  }

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = this->getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    LossOptions options = LossOptions::get(op);
    int64_t classes = type.getDimSize(1);
    // f16/bf16 logits with an f32 `dloss`: the softmax and the gradient in
    // `ct` (f32) from the logits widened as they are read, rounded to the
    // logits' type once; no f32 copy of the logits or of the softmax.
    Type ct = getElementTypeOrSelf(op.getDloss().getType());
    bool mixed = ct != et;
    // dloss / N as a 0-d tensor when N is known only from the labels.
    std::variant<int64_t, Value> n = divisor(rewriter, op, ct);
    Value dloss = op.getDloss();
    if (auto *count = std::get_if<Value>(&n))
      dloss = buildElementwise(
          rewriter, loc, cast<RankedTensorType>(dloss.getType()),
          ValueRange{dloss, *count},
          [](OpBuilder &b, Location l, ValueRange a) -> Value {
            return arith::DivFOp::create(b, l, a[0], a[1]);
          });
    double inv = std::holds_alternative<int64_t>(n) && !perRow
                     ? 1.0 / static_cast<double>(std::get<int64_t>(n))
                     : 0.0;
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    AffineMap id = rewriter.getMultiDimIdentityMap(2);
    AffineMap row = AffineMap::get(2, 0, {d0}, ctx);
    AffineMap scalar = AffineMap::get(2, 0, {}, ctx);
    Value logits = op.getLogits();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    if (mixed) {
      Value mx = maxDims(rewriter, loc, logits, {1});
      auto rowType = cast<RankedTensorType>(mx.getType()).clone(ct);
      Value sumExp = buildSum(
          rewriter, loc, ValueRange{logits, mx}, {id, row, row}, rowType,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value x = convertFloat(b, l, a[0], ct);
            Value m = convertFloat(b, l, a[1], ct);
            return math::ExpOp::create(b, l, arith::SubFOp::create(b, l, x, m));
          });
      inputs = {logits, mx, sumExp};
      maps = {id, row, row};
    } else {
      inputs = {buildSoftmax(rewriter, loc, logits, 1)};
      maps = {id};
    }
    unsigned labelsAt = inputs.size();
    inputs.append({op.getLabels(), dloss});
    maps.append({row, perRow ? row : scalar, id});
    Value dl = buildGeneric(
        rewriter, loc, inputs, maps, emptyTensor(rewriter, loc, type),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value p = a[0];
          if (mixed) {
            Value x = convertFloat(b, l, a[0], ct);
            Value m = convertFloat(b, l, a[1], ct);
            Value e =
                math::ExpOp::create(b, l, arith::SubFOp::create(b, l, x, m));
            p = arith::DivFOp::create(b, l, e, a[2]);
          }
          Value label = isLabel(b, l, a[labelsAt]);
          Value counted = options.ignore
                              ? isCounted(b, l, a[labelsAt], *options.ignore)
                              : Value();
          Value scale = inv != 0.0 ? floatConst(b, l, ct, inv) : Value();
          Value v = gradient(b, l, ct, p, label, a[labelsAt + 1], scale,
                             counted, options, classes);
          return convertFloat(b, l, v, et);
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
           CrossEntropyLowering<CrossEntropyTermsOp>,
           CrossEntropyLowering<CrossEntropyRowsOp>,
           CrossEntropyGradLowering<CrossEntropyGradOp>,
           CrossEntropyGradLowering<CrossEntropyRowsGradOp>, LabelCountLowering,
           MseLossLowering, MseLossGradLowering>(patterns.getContext());
}
