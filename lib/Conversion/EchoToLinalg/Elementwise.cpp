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
/// scalar computation is given per op at registration.
template <typename OpTy> struct ElementwiseLowering : OpRewritePattern<OpTy> {
  using ScalarFn =
      std::function<Value(OpBuilder &, Location, OpTy, ValueRange)>;
  ElementwiseLowering(MLIRContext *ctx, ScalarFn fn)
      : OpRewritePattern<OpTy>(ctx), fn(std::move(fn)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value result =
        buildElementwise(rewriter, op.getLoc(), type, op->getOperands(),
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return fn(b, loc, op, args.drop_back());
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

/// The dropout generator: true iff element `index` of a dropout with `seed`
/// and `ratio` is kept. See the pass description for the formula.
Value dropoutKeep(OpBuilder &b, Location loc, Value index, int64_t seed,
                  double ratio) {
  auto c = [&](uint64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, b.getI64IntegerAttr(static_cast<int64_t>(v)));
  };
  auto xorShift = [&](Value z, uint64_t shift) -> Value {
    return arith::XOrIOp::create(b, loc, z,
                                 arith::ShRUIOp::create(b, loc, z, c(shift)));
  };
  Value z = arith::AddIOp::create(
      b, loc, index, c(static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ULL));
  // Ops are built one statement each: the order in which a call's arguments
  // are evaluated is unspecified, and GCC and clang would emit different IR.
  Value mixed = xorShift(z, 30);
  z = arith::MulIOp::create(b, loc, mixed, c(0xBF58476D1CE4E5B9ULL));
  mixed = xorShift(z, 27);
  z = arith::MulIOp::create(b, loc, mixed, c(0x94D049BB133111EBULL));
  z = xorShift(z, 31);
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
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type, maskType}, ValueRange{op.getX()},
        ValueRange{emptyTensor(rewriter, loc, type),
                   emptyTensor(rewriter, loc, maskType)},
        ArrayRef<AffineMap>{id, id, id}, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value keep = dropoutKeep(
              b, l, linearIndex(b, l, type.getShape(), broadcast), seed, ratio);
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
}

void linalg_lowering::populateMaskPackingPatterns(RewritePatternSet &patterns) {
  patterns.add<PackMaskLowering, UnpackMaskLowering>(patterns.getContext());
}
