//===- Elementwise.cpp - Elementwise ops, dropout and mask packing --------===//
//
// Part of the Echo project.
//
// The elementwise ops and their gradients become one `linalg.generic` each,
// with the scalar computation given per op at registration. dropout draws its
// mask from a counter-based generator on the element's linear index, so that
// the mask is reproducible wherever the op is (re)computed. pack_mask and
// unpack_mask store i1 masks as bytes, 8 elements per byte.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"
#include "Patterns.h"

#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

namespace {

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Lowers an elementwise op whose operands all have the result's shape; the
/// scalar computation is given per op at registration. On 16-bit floats the
/// computation runs in f32 and its result is rounded once, as PyTorch's
/// kernels compute (a sigmoid, a gelu or a gradient is several arithmetic
/// ops, each of which would round on its own).
template <typename OpTy> struct ElementwiseLowering : OpRewritePattern<OpTy> {
  using ScalarFn =
      std::function<Value(OpBuilder &, Location, OpTy, ValueRange)>;
  ElementwiseLowering(MLIRContext *ctx, ScalarFn fn)
      : OpRewritePattern<OpTy>(ctx), fn(std::move(fn)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Type elementType = type.getElementType();
    Value result =
        buildElementwise(rewriter, op.getLoc(), type, op->getOperands(),
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           SmallVector<Value> wide;
                           for (Value a : args.drop_back())
                             wide.push_back(convertFloat(
                                 b, loc, a, widenedFloatType(a.getType())));
                           Value r = fn(b, loc, op, wide);
                           return isa<FloatType>(elementType)
                                      ? convertFloat(b, loc, r, elementType)
                                      : r;
                         });
    rewriter.replaceOp(op, result);
    return success();
  }

  ScalarFn fn;
};

template <typename OpTy, typename ArithOp>
void addBinary(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<OpTy>>(
      patterns.getContext(),
      [](OpBuilder &b, Location loc, OpTy, ValueRange a) -> Value {
        return ArithOp::create(b, loc, a[0], a[1]);
      });
}

template <typename OpTy, typename UnaryOp>
void addUnary(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<OpTy>>(
      patterns.getContext(),
      [](OpBuilder &b, Location loc, OpTy, ValueRange a) -> Value {
        return UnaryOp::create(b, loc, a[0]);
      });
}

/// `x > 0 ? v : 0` for a float `x`, or `x ? v : 0` for an i1 mask.
Value selectPositive(OpBuilder &b, Location loc, Value x, Value v) {
  Value zero = floatConst(b, loc, v.getType(), 0.0);
  // Shared with DifferentiableOpInterface's buildGradientReadMask, so that a
  // relu_grad reading x tests the same predicate as the mask echo-recompute
  // stores in x's place.
  Value cond =
      x.getType().isInteger(1) ? x : echo::buildPositiveMask(b, loc, x);
  return arith::SelectOp::create(b, loc, cond, v, zero);
}

/// Scalar arithmetic in one float type, so that the activations below read
/// close to their formulas. An operand given as a double becomes a constant
/// built right before the op. Every call creates its ops in a fixed order,
/// but the order in which a call's arguments are evaluated is unspecified
/// (GCC and clang would emit different IR), so a formula passes at most one
/// argument that builds ops and names the others first.
///
/// min and max are `arith.minimumf`/`maximumf`, which propagate NaN as
/// PyTorch's clamp does; the comparisons are ordered (false for NaN).
class Scalar {
public:
  Scalar(OpBuilder &b, Location loc, Type type) : b(b), loc(loc), type(type) {}

  Value c(double v) { return floatConst(b, loc, type, v); }

  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value add(Value x, double y) { return add(x, c(y)); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value sub(double x, Value y) { return sub(c(x), y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value mul(Value x, double y) { return mul(x, c(y)); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value div(Value x, double y) { return div(x, c(y)); }
  Value div(double x, Value y) { return div(c(x), y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value min(Value x, double y) {
    return arith::MinimumFOp::create(b, loc, x, c(y));
  }
  Value max(Value x, double y) {
    return arith::MaximumFOp::create(b, loc, x, c(y));
  }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value log1p(Value x) { return math::Log1pOp::create(b, loc, x); }
  Value tanh(Value x) { return math::TanhOp::create(b, loc, x); }
  Value erf(Value x) { return math::ErfOp::create(b, loc, x); }

  Value lt(Value x, double y) { return cmp(arith::CmpFPredicate::OLT, x, y); }
  Value ge(Value x, double y) { return cmp(arith::CmpFPredicate::OGE, x, y); }
  /// `x > lo && x < hi`: false for NaN (the predicate of clamp's 1-bit
  /// stash).
  Value inside(Value x, double lo, double hi) {
    return echo::buildInsideMask(b, loc, x, lo, hi);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value select(Value cond, Value x, double y) { return select(cond, x, c(y)); }
  Value select(Value cond, double x, Value y) { return select(cond, c(x), y); }

  /// 1 / (1 + exp(-x)).
  Value sigmoid(Value x) { return div(1.0, add(exp(neg(x)), 1.0)); }
  /// log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)), so that exp never
  /// overflows.
  Value softplus(Value x) {
    Value positive = max(x, 0.0);
    return add(positive, log1p(exp(neg(abs(x)))));
  }

private:
  Value cmp(arith::CmpFPredicate p, Value x, double y) {
    return arith::CmpFOp::create(b, loc, p, x, c(y));
  }

  OpBuilder &b;
  Location loc;
  Type type;
};

/// 1/√2, 2/√π, and √(2/π) and the cubic's coefficient of gelu's tanh form
/// (spelled out: M_SQRT1_2 and friends are POSIX, not C++).
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kGeluBeta = 0.79788456080286535588;
constexpr double kGeluKappa = 0.044715;

/// Adds the lowering of `OpTy` whose scalar body is `fn(s, op, a)`, where
/// `s` builds scalars of the element type of the last operand (the data, or
/// a gradient's `dy`) and `a` are the elements of the operands.
template <typename OpTy, typename Fn>
void addScalar(RewritePatternSet &patterns, Fn fn) {
  patterns.add<ElementwiseLowering<OpTy>>(
      patterns.getContext(),
      [fn](OpBuilder &b, Location loc, OpTy op, ValueRange a) -> Value {
        Scalar s(b, loc, a.back().getType());
        return fn(s, op, a);
      });
}

/// The activations the PyTorch importer maps onto, their gradient ops and
/// echo.select. The gradients follow PyTorch's kernels, including what they
/// give at a boundary and for a NaN input.
void populateActivationPatterns(RewritePatternSet &patterns) {
  addScalar<ErfOp>(patterns,
                   [](Scalar &s, ErfOp, ValueRange a) { return s.erf(a[0]); });
  addScalar<SiluOp>(patterns, [](Scalar &s, SiluOp, ValueRange a) {
    return s.mul(a[0], s.sigmoid(a[0]));
  });
  // x·min(max(x + 3, 0), 6)/6 and min(max(x + 3, 0), 6)/6, divided by 6
  // as PyTorch's kernels are (not multiplied by 1/6), so that they round
  // alike.
  addScalar<HardswishOp>(patterns, [](Scalar &s, HardswishOp, ValueRange a) {
    Value relu6 = s.min(s.max(s.add(a[0], 3.0), 0.0), 6.0);
    return s.div(s.mul(a[0], relu6), 6.0);
  });
  addScalar<HardsigmoidOp>(
      patterns, [](Scalar &s, HardsigmoidOp, ValueRange a) {
        return s.div(s.min(s.max(s.add(a[0], 3.0), 0.0), 6.0), 6.0);
      });
  addScalar<MishOp>(patterns, [](Scalar &s, MishOp, ValueRange a) {
    return s.mul(a[0], s.tanh(s.softplus(a[0])));
  });
  addScalar<GeluOp>(patterns, [](Scalar &s, GeluOp op, ValueRange a) {
    Value x = a[0];
    Value half = s.mul(x, 0.5);
    Value inner;
    if (op.getTanhApproximation()) {
      // √(2/π)·(x + κ·x³)
      Value cubic = s.mul(s.mul(s.mul(x, x), x), kGeluKappa);
      inner = s.tanh(s.mul(s.add(x, cubic), kGeluBeta));
    } else {
      inner = s.erf(s.mul(x, kInvSqrt2));
    }
    return s.mul(half, s.add(inner, 1.0));
  });
  addScalar<ClampOp>(patterns, [](Scalar &s, ClampOp op, ValueRange a) {
    Value low = s.max(a[0], op.getMin().convertToDouble());
    return s.min(low, op.getMax().convertToDouble());
  });
  addScalar<SelectOp>(patterns, [](Scalar &s, SelectOp, ValueRange a) {
    return s.select(a[0], a[1], a[2]);
  });

  // Gradients: a[0] is the forward input x, a[1] the adjoint dy.
  addScalar<ErfGradOp>(patterns, [](Scalar &s, ErfGradOp, ValueRange a) {
    Value x = a[0];
    Value slope = s.mul(s.exp(s.neg(s.mul(x, x))), kTwoOverSqrtPi);
    return s.mul(a[1], slope);
  });
  // dy·σ·(1 + x·(1 - σ)).
  addScalar<SiluGradOp>(patterns, [](Scalar &s, SiluGradOp, ValueRange a) {
    Value x = a[0];
    Value sig = s.sigmoid(x);
    Value slope = s.add(s.mul(x, s.sub(1.0, sig)), 1.0);
    return s.mul(a[1], s.mul(sig, slope));
  });
  // PyTorch's vectorized CPU kernel: dy·(x/3 + 1/2), replaced by dy where
  // x >= 3 and by 0 where x < -3 (so that a NaN x gives NaN).
  addScalar<HardswishGradOp>(
      patterns, [](Scalar &s, HardswishGradOp, ValueRange a) {
        Value x = a[0], dy = a[1];
        Value middle = s.mul(dy, s.add(s.div(x, 3.0), 0.5));
        Value upper = s.select(s.ge(x, 3.0), dy, middle);
        return s.select(s.lt(x, -3.0), 0.0, upper);
      });
  addScalar<HardsigmoidGradOp>(
      patterns, [](Scalar &s, HardsigmoidGradOp, ValueRange a) {
        Value scaled = s.mul(a[1], 1.0 / 6.0);
        return s.select(s.inside(a[0], -3.0, 3.0), scaled, 0.0);
      });
  // dy·(t + x·σ·(1 - t²)) with t = tanh(u), u = softplus(x) >= 0. t and
  // 1 - t² come from w = exp(-2u) as (1 - w)/(1 + w) and 4w/(1 + w)²: 1 -
  // tanh²(u) would lose its digits as t nears 1 (x above a few units).
  addScalar<MishGradOp>(patterns, [](Scalar &s, MishGradOp, ValueRange a) {
    Value x = a[0];
    Value w = s.exp(s.mul(s.softplus(x), -2.0));
    Value inv = s.div(1.0, s.add(w, 1.0));
    Value t = s.mul(s.sub(1.0, w), inv);
    Value sech2 = s.mul(s.mul(s.mul(w, inv), inv), 4.0);
    Value xSig = s.mul(x, s.sigmoid(x));
    return s.mul(a[1], s.add(t, s.mul(xSig, sech2)));
  });
  addScalar<GeluGradOp>(patterns, [](Scalar &s, GeluGradOp op, ValueRange a) {
    Value x = a[0], dy = a[1];
    Value x2 = s.mul(x, x);
    if (op.getTanhApproximation()) {
      // PyTorch's gelu_backward(approximate='tanh'): with u = √(2/π)·(x +
      // κx³) and t = tanh(u), (1 + t)/2 + x/2·(1 - t²)·√(2/π)·(1 + 3κx²).
      // As for mish, (1 + t)/2 = (u < 0 ? w : 1)/(1 + w) and 1 - t² =
      // 4w/(1 + w)² with w = exp(-2|u|), which keep the digits that 1 + t
      // (x below -3 or so) and 1 - t² (|x| above 3) would cancel.
      Value cubic = s.mul(s.mul(x2, x), kGeluKappa);
      Value u = s.mul(s.add(x, cubic), kGeluBeta);
      Value w = s.exp(s.mul(s.abs(u), -2.0));
      Value inv = s.div(1.0, s.add(w, 1.0));
      Value leftDerivative = s.mul(s.select(s.lt(u, 0.0), w, 1.0), inv);
      Value sech2 = s.mul(s.mul(s.mul(w, inv), inv), 4.0);
      Value innerDerivative =
          s.mul(s.add(s.mul(x2, 3.0 * kGeluKappa), 1.0), kGeluBeta);
      Value rightDerivative =
          s.mul(s.mul(s.mul(x, 0.5), sech2), innerDerivative);
      return s.mul(dy, s.add(leftDerivative, rightDerivative));
    }
    // Φ(x) + x·φ(x), with Φ(x) = (1 + erf(x/√2))/2 and φ(x) =
    // exp(-x²/2)/√(2π).
    Value cdf = s.mul(s.add(s.erf(s.mul(x, kInvSqrt2)), 1.0), 0.5);
    Value pdf = s.mul(s.exp(s.mul(x2, -0.5)), 0.5 * kTwoOverSqrtPi * kInvSqrt2);
    return s.mul(dy, s.add(cdf, s.mul(x, pdf)));
  });
  // PyTorch's hardtanh_backward: dy strictly inside (min, max), else 0. x
  // is the forward input or the i1 mask that echo-recompute stashed in its
  // place, made by the same predicate.
  addScalar<ClampGradOp>(patterns, [](Scalar &s, ClampGradOp op, ValueRange a) {
    Value inside = a[0];
    if (!inside.getType().isInteger(1))
      inside = s.inside(a[0], op.getMin().convertToDouble(),
                        op.getMax().convertToDouble());
    return s.select(inside, a[1], 0.0);
  });
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

/// `keep ? 1/(1-ratio) : 0` in `type`: dropout multiplies by it rather than
/// selecting, so that a NaN dropped is NaN (x * 0), as in PyTorch.
Value keepScale(OpBuilder &b, Location loc, Value keep, Type type,
                double ratio) {
  return arith::SelectOp::create(b, loc, keep,
                                 floatConst(b, loc, type, 1.0 / (1.0 - ratio)),
                                 floatConst(b, loc, type, 0.0));
}

/// Row-major linear index of the current iteration of a generic whose
/// parallel loops span `shape`, as i64, over the loops not in `skipped`
/// (dropout's broadcast dims: the index is the same all along them).
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<int64_t> skipped = {}) {
  Value linear = indexConst(b, loc, 0);
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (llvm::is_contained(skipped, static_cast<int64_t>(d)))
      continue;
    Value idx = linalg::IndexOp::create(b, loc, d);
    linear = arith::MulIOp::create(b, loc, linear, indexConst(b, loc, size));
    linear = arith::AddIOp::create(b, loc, linear, idx);
  }
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), linear);
}

/// SplitMix64's finalizer of `z` (an i64).
Value splitMix(OpBuilder &b, Location loc, Value z) {
  auto c = [&](uint64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(static_cast<int64_t>(v)));
  };
  auto xorShift = [&](Value z, uint64_t shift) -> Value {
    return arith::XOrIOp::create(b, loc, z,
                                 arith::ShRUIOp::create(b, loc, z, c(shift)));
  };
  // Ops are built one statement each: the order in which a call's arguments
  // are evaluated is unspecified, and GCC and clang would emit different IR.
  Value mixed = xorShift(z, 30);
  z = arith::MulIOp::create(b, loc, mixed, c(0xBF58476D1CE4E5B9ULL));
  mixed = xorShift(z, 27);
  z = arith::MulIOp::create(b, loc, mixed, c(0x94D049BB133111EBULL));
  return xorShift(z, 31);
}

/// The dropout generator: true iff element `index` of a dropout with `seed`
/// and `ratio` is kept; `stepSeed` (an i64, or null) is the step's seed,
/// mixed into the op's. See the pass description for the formula.
Value dropoutKeep(OpBuilder &b, Location loc, Value index, int64_t seed,
                  double ratio, Value stepSeed = {}) {
  auto c = [&](uint64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(static_cast<int64_t>(v)));
  };
  Value key = c(static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ULL);
  if (stepSeed) {
    // A step seed s moves the op's stream to seed·φ ⊕ splitmix(s + φ):
    // distinct steps' streams are unrelated, and within one step the key
    // is the same wherever the op is recomputed.
    Value s = arith::AddIOp::create(b, loc, stepSeed, c(0x9E3779B97F4A7C15ULL));
    Value mixedSeed = splitMix(b, loc, s);
    key = arith::XOrIOp::create(b, loc, key, mixedSeed);
  }
  Value z = arith::AddIOp::create(b, loc, index, key);
  z = splitMix(b, loc, z);
  Value bits24 = arith::ShRUIOp::create(b, loc, z, c(40));
  auto threshold = static_cast<uint64_t>(std::llround(ratio * (1 << 24)));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, bits24,
                               c(threshold));
}

struct DropoutLowering : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult().getType());
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    double ratio = op.getRatio().convertToDouble();
    auto seed = static_cast<int64_t>(op.getSeed());
    ArrayRef<int64_t> broadcast =
        op.getBroadcastDims().value_or(ArrayRef<int64_t>());
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> iters(type.getRank(),
                                           utils::IteratorType::parallel);
    SmallVector<Value> inputs = {op.getX()};
    SmallVector<AffineMap> maps = {id};
    if (Value stepSeed = op.getStepSeed()) {
      inputs.push_back(stepSeed);
      maps.push_back(AffineMap::get(type.getRank(), 0, {}, getContext()));
    }
    maps.append({id, id});
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type, maskType}, inputs,
        ValueRange{emptyTensor(rewriter, loc, type),
                   emptyTensor(rewriter, loc, maskType)},
        maps, iters, [&](OpBuilder &b, Location l, ValueRange args) {
          Value keep = dropoutKeep(
              b, l, linearIndex(b, l, type.getShape(), broadcast), seed, ratio,
              inputs.size() > 1 ? args[1] : Value());
          Value y = arith::MulFOp::create(
              b, l, args[0], keepScale(b, l, keep, args[0].getType(), ratio));
          linalg::YieldOp::create(b, l, ValueRange{y, keep});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Mask packing
//===----------------------------------------------------------------------===//

struct PackMaskLowering : OpRewritePattern<PackMaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PackMaskOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t bytes = type.getDimSize(0);
    Value flat = flatten(rewriter, loc, op.getMask());
    int64_t n = cast<RankedTensorType>(flat.getType()).getDimSize(0);
    if (bytes * 8 != n) {
      auto paddedType =
          RankedTensorType::get({bytes * 8}, rewriter.getI1Type());
      Value no =
          arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(false));
      flat = tensor::PadOp::create(
          rewriter, loc, paddedType, flat,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(bytes * 8 - n)}, no);
    }
    auto bitsType = RankedTensorType::get({bytes, 8}, rewriter.getI1Type());
    Value bits = tensor::ExpandShapeOp::create(
        rewriter, loc, bitsType, flat,
        ArrayRef<ReassociationIndices>{ReassociationIndices{0, 1}});
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    AffineMap maps[] = {rewriter.getMultiDimIdentityMap(2),
                        AffineMap::get(2, 0, {d0}, ctx)};
    Value packed = buildGeneric(
        rewriter, loc, ValueRange{bits}, maps, zeros(rewriter, loc, type),
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Type i8 = b.getI8Type();
          Value bit = arith::ExtUIOp::create(b, l, i8, a[0]);
          Value j = arith::IndexCastOp::create(
              b, l, i8, linalg::IndexOp::create(b, l, 1));
          return arith::OrIOp::create(b, l, a[1],
                                      arith::ShLIOp::create(b, l, bit, j));
        });
    rewriter.replaceOp(op, packed);
    return success();
  }
};

struct UnpackMaskLowering : OpRewritePattern<UnpackMaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UnpackMaskOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t bytes =
        cast<RankedTensorType>(op.getPacked().getType()).getDimSize(0);
    int64_t n = type.getNumElements();
    MLIRContext *ctx = getContext();
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    auto bitsType = RankedTensorType::get({bytes, 8}, rewriter.getI1Type());
    AffineMap maps[] = {AffineMap::get(2, 0, {d0}, ctx),
                        rewriter.getMultiDimIdentityMap(2)};
    Value bits = buildGeneric(
        rewriter, loc, ValueRange{op.getPacked()}, maps,
        emptyTensor(rewriter, loc, bitsType),
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Type i8 = b.getI8Type();
          Value j = arith::IndexCastOp::create(
              b, l, i8, linalg::IndexOp::create(b, l, 1));
          Value shifted = arith::ShRUIOp::create(b, l, a[0], j);
          return arith::TruncIOp::create(b, l, b.getI1Type(), shifted);
        });
    auto flatType = RankedTensorType::get({bytes * 8}, rewriter.getI1Type());
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, flatType, bits,
        ArrayRef<ReassociationIndices>{ReassociationIndices{0, 1}});
    if (bytes * 8 != n)
      flat = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get({n}, rewriter.getI1Type()), flat,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(n)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    rewriter.replaceOp(op, unflatten(rewriter, loc, flat, type));
    return success();
  }
};

} // namespace

void linalg_lowering::populateElementwisePatterns(RewritePatternSet &patterns) {
  addBinary<AddOp, arith::AddFOp>(patterns);
  addBinary<SubOp, arith::SubFOp>(patterns);
  addBinary<MulOp, arith::MulFOp>(patterns);
  addBinary<DivOp, arith::DivFOp>(patterns);
  addUnary<NegOp, arith::NegFOp>(patterns);
  addUnary<ExpOp, math::ExpOp>(patterns);
  addUnary<LogOp, math::LogOp>(patterns);
  addUnary<TanhOp, math::TanhOp>(patterns);
  addUnary<SqrtOp, math::SqrtOp>(patterns);
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseLowering<CastOp>>(
      ctx, [](OpBuilder &b, Location loc, CastOp op, ValueRange a) -> Value {
        return convertFloat(b, loc, a[0], getElementTypeOrSelf(op.getType()));
      });
  patterns.add<ElementwiseLowering<SigmoidOp>>(
      ctx, [](OpBuilder &b, Location loc, SigmoidOp, ValueRange a) -> Value {
        Type t = a[0].getType();
        Value e =
            math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
        Value one = floatConst(b, loc, t, 1.0);
        return arith::DivFOp::create(b, loc, one,
                                     arith::AddFOp::create(b, loc, one, e));
      });
  patterns.add<ElementwiseLowering<ReluOp>>(
      ctx, [](OpBuilder &b, Location loc, ReluOp, ValueRange a) -> Value {
        return selectPositive(b, loc, a[0], a[0]);
      });
  patterns.add<ElementwiseLowering<TanhGradOp>>(
      ctx, [](OpBuilder &b, Location loc, TanhGradOp, ValueRange a) -> Value {
        Value y2 = arith::MulFOp::create(b, loc, a[0], a[0]);
        Value d = arith::SubFOp::create(
            b, loc, floatConst(b, loc, y2.getType(), 1.0), y2);
        return arith::MulFOp::create(b, loc, a[1], d);
      });
  patterns.add<ElementwiseLowering<SigmoidGradOp>>(
      ctx,
      [](OpBuilder &b, Location loc, SigmoidGradOp, ValueRange a) -> Value {
        Value oneMinus = arith::SubFOp::create(
            b, loc, floatConst(b, loc, a[0].getType(), 1.0), a[0]);
        Value d = arith::MulFOp::create(b, loc, a[0], oneMinus);
        return arith::MulFOp::create(b, loc, a[1], d);
      });
  patterns.add<ElementwiseLowering<ReluGradOp>>(
      ctx, [](OpBuilder &b, Location loc, ReluGradOp, ValueRange a) -> Value {
        return selectPositive(b, loc, a[0], a[1]);
      });
  patterns.add<ElementwiseLowering<DropoutGradOp>>(
      ctx,
      [](OpBuilder &b, Location loc, DropoutGradOp op, ValueRange a) -> Value {
        return arith::MulFOp::create(
            b, loc, a[1],
            keepScale(b, loc, a[0], a[1].getType(),
                      op.getRatio().convertToDouble()));
      });
  patterns.add<DropoutLowering>(ctx);
  populateActivationPatterns(patterns);
}

void linalg_lowering::populateMaskPackingPatterns(RewritePatternSet &patterns) {
  patterns.add<PackMaskLowering, UnpackMaskLowering>(patterns.getContext());
}
