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
//===----------------------------------------------------------------------===//

#include "echo/Conversion/Passes.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

namespace mlir::echo {
#define GEN_PASS_DEF_CONVERTECHOTOLINALG
#include "echo/Conversion/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

//===----------------------------------------------------------------------===//
// Builders shared by the patterns
//===----------------------------------------------------------------------===//

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// Scalar constant `value` of the float type `type`.
Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// A tensor of `type` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value) {
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

Value zeros(OpBuilder &b, Location loc, RankedTensorType type) {
  return filledTensor(b, loc, type, b.getZeroAttr(type.getElementType()));
}

Value floatFilled(OpBuilder &b, Location loc, RankedTensorType type,
                  double value) {
  return filledTensor(b, loc, type,
                      b.getFloatAttr(type.getElementType(), value));
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

/// Builds a `linalg.generic` with one result written into `init`. `maps`
/// holds one map per input, then the output's. A loop is parallel iff the
/// output map uses it; the others are reductions.
Value buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                   ArrayRef<AffineMap> maps, Value init, BodyFn body) {
  AffineMap outMap = maps.back();
  SmallVector<utils::IteratorType> iters(outMap.getNumDims(),
                                         utils::IteratorType::reduction);
  for (AffineExpr e : outMap.getResults())
    if (auto d = dyn_cast<AffineDimExpr>(e))
      iters[d.getPosition()] = utils::IteratorType::parallel;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return generic.getResult(0);
}

/// The body of a contraction: out + in0 * in1.
Value multiplyAccumulate(OpBuilder &b, Location l, ValueRange a) {
  return arith::AddFOp::create(b, l, a[2],
                               arith::MulFOp::create(b, l, a[0], a[1]));
}

/// Elementwise generic over tensors of the result's shape.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, BodyFn body) {
  AffineMap id = b.getMultiDimIdentityMap(resultType.getRank());
  SmallVector<AffineMap> maps(inputs.size() + 1, id);
  return buildGeneric(b, loc, inputs, maps, emptyTensor(b, loc, resultType),
                      body);
}

/// The map from `rank` loops to the loops not in `dropped`.
AffineMap dropDimsMap(MLIRContext *ctx, unsigned rank,
                      ArrayRef<int64_t> dropped) {
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < rank; ++i)
    if (!llvm::is_contained(dropped, static_cast<int64_t>(i)))
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// The map from `rank` loops to the loops in `kept`.
AffineMap keepDimsMap(MLIRContext *ctx, unsigned rank, ArrayRef<int64_t> kept) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : kept)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

SmallVector<int64_t> complementDims(unsigned rank, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> rest;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(dims, i))
      rest.push_back(i);
  return rest;
}

SmallVector<int64_t> selectDims(ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> dims) {
  SmallVector<int64_t> out;
  for (int64_t d : dims)
    out.push_back(shape[d]);
  return out;
}

/// Reduces `input` over `dims` (removed from the shape) with `combine`,
/// starting from `initValue`.
Value reduceDims(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims,
    double initValue,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> kept = complementDims(type.getRank(), dims);
  auto outType = RankedTensorType::get(selectDims(type.getShape(), kept),
                                       type.getElementType());
  MLIRContext *ctx = b.getContext();
  AffineMap maps[] = {b.getMultiDimIdentityMap(type.getRank()),
                      keepDimsMap(ctx, type.getRank(), kept)};
  return buildGeneric(b, loc, input, maps,
                      floatFilled(b, loc, outType, initValue),
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        return combine(nb, nl, args[0], args[1]);
                      });
}

Value sumDims(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims) {
  return reduceDims(b, loc, input, dims, 0.0,
                    [](OpBuilder &nb, Location nl, Value x, Value acc) {
                      return arith::AddFOp::create(nb, nl, x, acc);
                    });
}

Value maxDims(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims) {
  return reduceDims(b, loc, input, dims, -INFINITY,
                    [](OpBuilder &nb, Location nl, Value x, Value acc) {
                      return arith::MaximumFOp::create(nb, nl, x, acc);
                    });
}

/// Pads the two spatial dims of an NCHW tensor by `pad` on both sides with
/// `value`.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> pad,
                 double value) {
  if (pad[0] == 0 && pad[1] == 0)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[2] += 2 * pad[0];
  shape[3] += 2 * pad[1];
  auto padded = RankedTensorType::get(shape, type.getElementType());
  SmallVector<OpFoldResult> lo = {b.getIndexAttr(0), b.getIndexAttr(0),
                                  b.getIndexAttr(pad[0]),
                                  b.getIndexAttr(pad[1])};
  Value padValue = floatConst(b, loc, type.getElementType(), value);
  return tensor::PadOp::create(b, loc, padded, x, lo, lo, padValue);
}

/// Removes `pad` rows/columns from both sides of an NCHW tensor.
Value unpadSpatial(OpBuilder &b, Location loc, Value x, RankedTensorType type,
                   ArrayRef<int64_t> pad) {
  if (pad[0] == 0 && pad[1] == 0)
    return x;
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                       b.getIndexAttr(pad[0]),
                                       b.getIndexAttr(pad[1])};
  SmallVector<OpFoldResult> sizes, strides(4, b.getIndexAttr(1));
  for (int64_t s : type.getShape())
    sizes.push_back(b.getIndexAttr(s));
  return tensor::ExtractSliceOp::create(b, loc, type, x, offsets, sizes,
                                        strides);
}

/// Offsets/sizes/strides of the window position (kh, kw) of every output
/// pixel in a padded NCHW input: rows kh, kh+s, ..., columns likewise.
struct WindowSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

WindowSlice windowSlice(OpBuilder &b, RankedTensorType outType, int64_t kh,
                        int64_t kw, ArrayRef<int64_t> strides) {
  WindowSlice s;
  s.offsets = {b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(kh),
               b.getIndexAttr(kw)};
  for (int64_t d : outType.getShape())
    s.sizes.push_back(b.getIndexAttr(d));
  s.strides = {b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(strides[0]),
               b.getIndexAttr(strides[1])};
  return s;
}

/// acc[:, :, kh::s, kw::s] += contrib (the col2im step of a scatter
/// gradient); `contrib` has the output's NCHW shape.
Value accumulateWindow(OpBuilder &b, Location loc, Value acc, Value contrib,
                       int64_t kh, int64_t kw, ArrayRef<int64_t> strides) {
  auto outType = cast<RankedTensorType>(contrib.getType());
  WindowSlice s = windowSlice(b, outType, kh, kw, strides);
  Value current = tensor::ExtractSliceOp::create(b, loc, outType, acc,
                                                 s.offsets, s.sizes, s.strides);
  Value sum =
      buildElementwise(b, loc, outType, ValueRange{current, contrib},
                       [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                         return arith::AddFOp::create(nb, nl, a[0], a[1]);
                       });
  return tensor::InsertSliceOp::create(b, loc, sum, acc, s.offsets, s.sizes,
                                       s.strides);
}

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

/// Reduces each pooling window of an already padded NCHW tensor into
/// `outType` with `combine`, starting from `init`.
Value poolWindows(
    OpBuilder &b, Location loc, Value xPadded, RankedTensorType outType,
    ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides, double init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  MLIRContext *ctx = b.getContext();
  // Loops: n, c, oh, ow, kh, kw. linalg infers loop bounds from operand
  // shapes: a [KH, KW] operand that is never read carries the extent of the
  // kh/kw loops.
  AffineExpr n, c, oh, ow, kh, kw;
  bindDims(ctx, n, c, oh, ow, kh, kw);
  Value window =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{kernel[0], kernel[1]},
                              outType.getElementType());
  AffineMap maps[] = {
      AffineMap::get(6, 0, {n, c, oh * strides[0] + kh, ow * strides[1] + kw},
                     ctx),
      AffineMap::get(6, 0, {kh, kw}, ctx),
      AffineMap::get(6, 0, {n, c, oh, ow}, ctx)};
  return buildGeneric(b, loc, ValueRange{xPadded, window}, maps,
                      floatFilled(b, loc, outType, init),
                      [&](OpBuilder &nb, Location nl, ValueRange a) {
                        return combine(nb, nl, a[0], a[2]);
                      });
}

/// Max-pools an already padded NCHW tensor into `outType`.
Value maxPool(OpBuilder &b, Location loc, Value xPadded,
              RankedTensorType outType, ArrayRef<int64_t> kernel,
              ArrayRef<int64_t> strides) {
  return poolWindows(b, loc, xPadded, outType, kernel, strides, -INFINITY,
                     [](OpBuilder &nb, Location nl, Value x, Value acc) {
                       return arith::MaximumFOp::create(nb, nl, x, acc);
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

/// Collapses any tensor to 1-D (rank-0 becomes tensor<1x...>).
Value flatten(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 1)
    return v;
  auto flat =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flat, v,
                                         ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  return tensor::CollapseShapeOp::create(b, loc, flat, v,
                                         ArrayRef<ReassociationIndices>{all});
}

/// Expands a 1-D tensor into `type` (same element count).
Value unflatten(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  if (type.getRank() == 1)
    return v;
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, v,
                                           ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, type, v,
                                       ArrayRef<ReassociationIndices>{all});
}

/// Row-major linear index of the current iteration of a generic whose
/// parallel loops span `shape`, as i64.
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value linear = indexConst(b, loc, 0);
  for (auto [d, size] : llvm::enumerate(shape)) {
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
  z = arith::MulIOp::create(b, loc, xorShift(z, 30), c(0xBF58476D1CE4E5B9ULL));
  z = arith::MulIOp::create(b, loc, xorShift(z, 27), c(0x94D049BB133111EBULL));
  z = xorShift(z, 31);
  Value bits24 = arith::ShRUIOp::create(b, loc, z, c(40));
  auto threshold = static_cast<uint64_t>(std::llround(ratio * (1 << 24)));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, bits24,
                               c(threshold));
}

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
  Value cond = x;
  if (!x.getType().isInteger(1))
    cond = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                 floatConst(b, loc, x.getType(), 0.0));
  return arith::SelectOp::create(b, loc, cond, v, zero);
}

void populateElementwisePatterns(RewritePatternSet &patterns) {
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
        double scale = 1.0 / (1.0 - op.getRatio().convertToDouble());
        Value scaled = arith::MulFOp::create(
            b, loc, a[1], floatConst(b, loc, a[1].getType(), scale));
        return selectPositive(b, loc, a[0], scaled);
      });
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

struct DropoutLowering : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult().getType());
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    double ratio = op.getRatio().convertToDouble();
    auto seed = static_cast<int64_t>(op.getSeed());
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> iters(type.getRank(),
                                           utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type, maskType}, ValueRange{op.getX()},
        ValueRange{emptyTensor(rewriter, loc, type),
                   emptyTensor(rewriter, loc, maskType)},
        ArrayRef<AffineMap>{id, id, id}, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value keep = dropoutKeep(b, l, linearIndex(b, l, type.getShape()),
                                   seed, ratio);
          Value scaled = arith::MulFOp::create(
              b, l, args[0],
              floatConst(b, l, args[0].getType(), 1.0 / (1.0 - ratio)));
          Value y = arith::SelectOp::create(
              b, l, keep, scaled, floatConst(b, l, args[0].getType(), 0.0));
          linalg::YieldOp::create(b, l, ValueRange{y, keep});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

struct BroadcastLowering : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value init = emptyTensor(rewriter, op.getLoc(), type);
    auto bcast = linalg::BroadcastOp::create(rewriter, op.getLoc(), op.getX(),
                                             init, op.getDimensions());
    rewriter.replaceOp(op, bcast->getResults());
    return success();
  }
};

template <typename OpTy, bool isMax>
struct ReduceLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value r =
        isMax ? maxDims(rewriter, op.getLoc(), op.getX(), op.getDimensions())
              : sumDims(rewriter, op.getLoc(), op.getX(), op.getDimensions());
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct ReduceMaxGradLowering : OpRewritePattern<ReduceMaxGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceMaxGradOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced =
        dropDimsMap(rewriter.getContext(), rank, op.getDimensions());
    AffineMap maps[] = {id, reduced, reduced, id};
    Value r = buildGeneric(
        rewriter, op.getLoc(), ValueRange{op.getX(), op.getY(), op.getDy()},
        maps, emptyTensor(rewriter, op.getLoc(), type),
        [](OpBuilder &b, Location loc, ValueRange a) -> Value {
          Value isMax = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                              a[0], a[1]);
          return arith::SelectOp::create(
              b, loc, isMax, a[2], floatConst(b, loc, a[2].getType(), 0.0));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> strides(op.getOffsets().size(), 1);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), op.getX(), ValueRange{}, ValueRange{}, ValueRange{},
        op.getOffsets(), op.getSizes(), strides);
    return success();
  }
};

struct SliceGradLowering : OpRewritePattern<SliceGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceGradOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto dyType = cast<RankedTensorType>(op.getDy().getType());
    SmallVector<int64_t> strides(type.getRank(), 1);
    Value full = zeros(rewriter, op.getLoc(), type);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, op.getDy(), full, ValueRange{}, ValueRange{}, ValueRange{},
        op.getOffsets(), dyType.getShape(), strides);
    return success();
  }
};

struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Value acc = emptyTensor(rewriter, op.getLoc(), type);
    SmallVector<int64_t> offsets(type.getRank(), 0);
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (Value in : op.getInputs()) {
      auto inType = cast<RankedTensorType>(in.getType());
      acc = tensor::InsertSliceOp::create(
          rewriter, op.getLoc(), in, acc, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, inType.getShape(), strides);
      offsets[axis] += inType.getDimSize(axis);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

struct ReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value flat = flatten(rewriter, op.getLoc(), op.getX());
    rewriter.replaceOp(op, unflatten(rewriter, op.getLoc(), flat, type));
    return success();
  }
};

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value init = emptyTensor(rewriter, op.getLoc(), type);
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), op.getX(), init,
                                         op.getPermutation());
    rewriter.replaceOp(op, t->getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Matmul family
//===----------------------------------------------------------------------===//

/// The indexing maps of a (batched) matmul with optional transposes.
SmallVector<AffineMap> matmulMaps(MLIRContext *ctx, bool batched, bool ta,
                                  bool tb) {
  unsigned nd = batched ? 4 : 3;
  SmallVector<AffineExpr> d;
  for (unsigned i = 0; i < nd; ++i)
    d.push_back(getAffineDimExpr(i, ctx));
  // Loops: [batch,] m, n, k.
  ArrayRef<AffineExpr> batch =
      batched ? ArrayRef(d).take_front(1) : ArrayRef<AffineExpr>{};
  unsigned o = batched ? 1 : 0;
  AffineExpr m = d[o], n = d[o + 1], k = d[o + 2];
  auto map = [&](AffineExpr a, AffineExpr bb) {
    SmallVector<AffineExpr> e(batch);
    e.push_back(a);
    e.push_back(bb);
    return AffineMap::get(nd, 0, e, ctx);
  };
  return {ta ? map(k, m) : map(m, k), tb ? map(n, k) : map(k, n), map(m, n)};
}

/// Builds `init + op(a) * op(b)` as a named linalg matmul.
Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs, Value init,
                  bool batched, bool ta, bool tb) {
  SmallVector<AffineMap> maps = matmulMaps(b.getContext(), batched, ta, tb);
  SmallVector<Attribute> mapAttrs;
  for (AffineMap m : maps)
    mapAttrs.push_back(AffineMapAttr::get(m));
  NamedAttribute attr(b.getStringAttr("indexing_maps"),
                      b.getArrayAttr(mapAttrs));
  if (batched)
    return linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                         ValueRange{lhs, rhs}, ValueRange{init},
                                         ArrayRef<NamedAttribute>{attr})
        .getResult(0);
  return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{init},
                                  ArrayRef<NamedAttribute>{attr})
      .getResult(0);
}

template <typename OpTy, bool batched>
struct MatmulLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value init = zeros(rewriter, op.getLoc(), type);
    rewriter.replaceOp(op, buildMatmul(rewriter, op.getLoc(), op.getA(),
                                       op.getB(), init, batched,
                                       op.getTransposeA(), op.getTransposeB()));
    return success();
  }
};

struct LinearLowering : OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value bias = linalg::BroadcastOp::create(rewriter, loc, op.getB(),
                                             emptyTensor(rewriter, loc, type),
                                             ArrayRef<int64_t>{0})
                     ->getResult(0);
    rewriter.replaceOp(op, buildMatmul(rewriter, loc, op.getX(), op.getW(),
                                       bias, /*batched=*/false, false, true));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// conv2d (y = x ⋆ w) and conv2d_grad_filter (dw = x ⋆ dy): one
/// contraction of the zero-padded input with the op's second operand over
/// the loops n, f, oh, ow, c, kh, kw.
template <typename OpTy, bool filterGrad>
struct ConvContractionLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> s = op.getStrides();
    Value x = padSpatial(rewriter, loc, op.getX(), op.getPadding(), 0.0);
    AffineExpr n, f, oh, ow, c, kh, kw;
    bindDims(ctx, n, f, oh, ow, c, kh, kw);
    AffineMap xMap =
        AffineMap::get(7, 0, {n, c, oh * s[0] + kh, ow * s[1] + kw}, ctx);
    AffineMap filterMap = AffineMap::get(7, 0, {f, c, kh, kw}, ctx);
    AffineMap outMap = AffineMap::get(7, 0, {n, f, oh, ow}, ctx);
    SmallVector<AffineMap> maps = {xMap, filterGrad ? outMap : filterMap,
                                   filterGrad ? filterMap : outMap};
    Value r =
        buildGeneric(rewriter, loc, ValueRange{x, op->getOperand(1)}, maps,
                     zeros(rewriter, loc, type), multiplyAccumulate);
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// The zero-initialised padded input-gradient accumulator of a scatter
/// gradient, and the final unpadding.
RankedTensorType paddedType(RankedTensorType type, ArrayRef<int64_t> pad) {
  SmallVector<int64_t> shape(type.getShape());
  shape[2] += 2 * pad[0];
  shape[3] += 2 * pad[1];
  return RankedTensorType::get(shape, type.getElementType());
}

struct Conv2DGradInputLowering : OpRewritePattern<Conv2DGradInputOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DGradInputOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getType());
    auto wType = cast<RankedTensorType>(op.getW().getType());
    auto dyType = cast<RankedTensorType>(op.getDy().getType());
    int64_t f = wType.getDimSize(0), c = wType.getDimSize(1);
    Value acc = zeros(rewriter, loc, paddedType(type, op.getPadding()));
    auto contribType = RankedTensorType::get(
        {dyType.getDimSize(0), c, dyType.getDimSize(2), dyType.getDimSize(3)},
        type.getElementType());
    auto wkType = RankedTensorType::get({f, c}, type.getElementType());
    // Loops: n, c, oh, ow, f.
    AffineExpr dn, dc, doh, dow, df;
    bindDims(ctx, dn, dc, doh, dow, df);
    AffineMap maps[] = {AffineMap::get(5, 0, {dn, df, doh, dow}, ctx),
                        AffineMap::get(5, 0, {df, dc}, ctx),
                        AffineMap::get(5, 0, {dn, dc, doh, dow}, ctx)};
    for (int64_t kh = 0; kh < wType.getDimSize(2); ++kh) {
      for (int64_t kw = 0; kw < wType.getDimSize(3); ++kw) {
        SmallVector<OpFoldResult> offsets = {
            rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
            rewriter.getIndexAttr(kh), rewriter.getIndexAttr(kw)};
        SmallVector<OpFoldResult> sizes = {
            rewriter.getIndexAttr(f), rewriter.getIndexAttr(c),
            rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)};
        SmallVector<OpFoldResult> strides(4, rewriter.getIndexAttr(1));
        Value wk = tensor::ExtractSliceOp::create(
            rewriter, loc, wkType, op.getW(), offsets, sizes, strides);
        Value contrib =
            buildGeneric(rewriter, loc, ValueRange{op.getDy(), wk}, maps,
                         zeros(rewriter, loc, contribType), multiplyAccumulate);
        acc = accumulateWindow(rewriter, loc, acc, contrib, kh, kw,
                               op.getStrides());
      }
    }
    rewriter.replaceOp(op,
                       unpadSpatial(rewriter, loc, acc, type, op.getPadding()));
    return success();
  }
};

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
    Value sum = poolWindows(rewriter, loc, x, type, k, s, 0.0,
                            [](OpBuilder &b, Location l, Value v, Value acc) {
                              return arith::AddFOp::create(b, l, v, acc);
                            });
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
    Value acc = zeros(rewriter, loc, paddedType(type, op.getPadding()));
    for (int64_t kh = 0; kh < k[0]; ++kh)
      for (int64_t kw = 0; kw < k[1]; ++kw)
        acc = accumulateWindow(rewriter, loc, acc, share, kh, kw, s);
    rewriter.replaceOp(op,
                       unpadSpatial(rewriter, loc, acc, type, op.getPadding()));
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
    // The forward maximum is recomputed from x (the gradient reads x only).
    Value y = maxPool(rewriter, loc, xPad, dyType, k, s);
    auto takenType =
        RankedTensorType::get(dyType.getShape(), rewriter.getI1Type());
    Value taken =
        filledTensor(rewriter, loc, takenType, rewriter.getBoolAttr(false));
    Value acc = zeros(rewriter, loc, paddedType(type, op.getPadding()));
    // Visit window positions in row-major order; each output's adjoint goes
    // to the first position equal to the maximum.
    for (int64_t kh = 0; kh < k[0]; ++kh) {
      for (int64_t kw = 0; kw < k[1]; ++kw) {
        WindowSlice ws = windowSlice(rewriter, dyType, kh, kw, s);
        Value xs = tensor::ExtractSliceOp::create(
            rewriter, loc, dyType, xPad, ws.offsets, ws.sizes, ws.strides);
        auto first = [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value eq = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                           a[0], a[1]);
          Value notTaken = arith::XOrIOp::create(
              b, l, a[2], arith::ConstantOp::create(b, l, b.getBoolAttr(true)));
          return arith::AndIOp::create(b, l, eq, notTaken);
        };
        Value contrib = buildElementwise(
            rewriter, loc, dyType, ValueRange{xs, y, taken, op.getDy()},
            [&](OpBuilder &b, Location l, ValueRange a) -> Value {
              return arith::SelectOp::create(
                  b, l, first(b, l, a), a[3],
                  floatConst(b, l, a[3].getType(), 0.0));
            });
        taken = buildElementwise(
            rewriter, loc, takenType, ValueRange{xs, y, taken},
            [&](OpBuilder &b, Location l, ValueRange a) -> Value {
              return arith::OrIOp::create(b, l, a[2], first(b, l, a));
            });
        acc = accumulateWindow(rewriter, loc, acc, contrib, kh, kw, s);
      }
    }
    rewriter.replaceOp(op,
                       unpadSpatial(rewriter, loc, acc, type, op.getPadding()));
    return success();
  }
};

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

/// mean and 1/sqrt(var + eps) of `x` for `layout`.
std::pair<Value, Value> normStats(OpBuilder &b, Location loc, Value x,
                                  const NormLayout &layout, double eps) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  Type et = type.getElementType();
  SmallVector<int64_t> reduced = layout.reducedDims(rank);
  Value sum = sumDims(b, loc, x, reduced);
  auto statType = cast<RankedTensorType>(sum.getType());
  unsigned statRank = statType.getRank();
  AffineMap statId = b.getMultiDimIdentityMap(statRank);
  double invCount = 1.0 / static_cast<double>(layout.count);
  Value mean = buildGeneric(
      b, loc, ValueRange{sum}, {statId, statId}, emptyTensor(b, loc, statType),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::MulFOp::create(nb, l, a[0],
                                     floatConst(nb, l, et, invCount));
      });
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap statMap = keepDimsMap(ctx, rank, layout.statDims);
  Value sq =
      buildGeneric(b, loc, ValueRange{x, mean}, {id, statMap, statMap},
                   zeros(b, loc, statType),
                   [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                     return arith::AddFOp::create(
                         nb, l, a[2], arith::MulFOp::create(nb, l, d, d));
                   });
  Value rstd = buildGeneric(
      b, loc, ValueRange{sq}, {statId, statId}, emptyTensor(b, loc, statType),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value var =
            arith::MulFOp::create(nb, l, a[0], floatConst(nb, l, et, invCount));
        Value v = arith::AddFOp::create(nb, l, var, floatConst(nb, l, et, eps));
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
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value xhat = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, a[0], a[1]), a[2]);
          return arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, xhat, a[3]), a[4]);
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
    Type et = type.getElementType();
    unsigned rank = type.getRank();
    NormLayout layout = NormLayout::get(type, batchNorm);
    auto [mean, rstd] = normStats(rewriter, loc, op.getX(), layout,
                                  op.getEpsilon().convertToDouble());
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap statMap = keepDimsMap(ctx, rank, layout.statDims);
    AffineMap paramMap = keepDimsMap(ctx, rank, layout.paramDims);
    Value empty = emptyTensor(rewriter, loc, type);
    Value xhat =
        buildGeneric(rewriter, loc, ValueRange{op.getX(), mean, rstd},
                     {id, statMap, statMap, id}, empty,
                     [](OpBuilder &b, Location l, ValueRange a) -> Value {
                       return arith::MulFOp::create(
                           b, l, arith::SubFOp::create(b, l, a[0], a[1]), a[2]);
                     });
    Value dxhat =
        buildGeneric(rewriter, loc, ValueRange{op.getDy(), op.getGamma()},
                     {id, paramMap, id}, empty,
                     [](OpBuilder &b, Location l, ValueRange a) -> Value {
                       return arith::MulFOp::create(b, l, a[0], a[1]);
                     });
    auto mul = [](OpBuilder &b, Location l, ValueRange a) -> Value {
      return arith::MulFOp::create(b, l, a[0], a[1]);
    };
    Value dxhatXhat = buildGeneric(rewriter, loc, ValueRange{dxhat, xhat},
                                   {id, id, id}, empty, mul);
    Value dyXhat = buildGeneric(rewriter, loc, ValueRange{op.getDy(), xhat},
                                {id, id, id}, empty, mul);
    SmallVector<int64_t> statReduced = layout.reducedDims(rank);
    SmallVector<int64_t> paramReduced = complementDims(rank, layout.paramDims);
    Value sumDxhat = sumDims(rewriter, loc, dxhat, statReduced);
    Value sumDxhatXhat = sumDims(rewriter, loc, dxhatXhat, statReduced);
    double m = static_cast<double>(layout.count);
    Value dx = buildGeneric(
        rewriter, loc, ValueRange{dxhat, xhat, rstd, sumDxhat, sumDxhatXhat},
        {id, id, statMap, statMap, statMap, id}, empty,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value t = arith::MulFOp::create(b, l, a[0], floatConst(b, l, et, m));
          t = arith::SubFOp::create(b, l, t, a[3]);
          t = arith::SubFOp::create(b, l, t,
                                    arith::MulFOp::create(b, l, a[1], a[4]));
          Value scale =
              arith::MulFOp::create(b, l, a[2], floatConst(b, l, et, 1.0 / m));
          return arith::MulFOp::create(b, l, t, scale);
        });
    Value dgamma = sumDims(rewriter, loc, dyXhat, paramReduced);
    Value dbeta = sumDims(rewriter, loc, op.getDy(), paramReduced);
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

struct CrossEntropyLowering : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getLogits().getType());
    Type et = type.getElementType();
    int64_t n = type.getDimSize(0);
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    AffineMap id = rewriter.getMultiDimIdentityMap(2);
    AffineMap row = AffineMap::get(2, 0, {d0}, ctx);
    Value mx = maxDims(rewriter, loc, op.getLogits(), {1});
    auto rowType = cast<RankedTensorType>(mx.getType());
    // sumexp[n] = Σ_c exp(l - max); picked[n] = l[n, label[n]].
    Value sumExp =
        buildGeneric(rewriter, loc, ValueRange{op.getLogits(), mx},
                     {id, row, row}, zeros(rewriter, loc, rowType),
                     [](OpBuilder &b, Location l, ValueRange a) -> Value {
                       Value e = math::ExpOp::create(
                           b, l, arith::SubFOp::create(b, l, a[0], a[1]));
                       return arith::AddFOp::create(b, l, a[2], e);
                     });
    Value picked =
        buildGeneric(rewriter, loc, ValueRange{op.getLogits(), op.getLabels()},
                     {id, row, row}, zeros(rewriter, loc, rowType),
                     [](OpBuilder &b, Location l, ValueRange a) -> Value {
                       Value v = arith::SelectOp::create(
                           b, l, isLabel(b, l, a[1]), a[0],
                           floatConst(b, l, a[0].getType(), 0.0));
                       return arith::AddFOp::create(b, l, a[2], v);
                     });
    // loss = Σ_n (max + log(sumexp) - picked) / N.
    auto scalarType = cast<RankedTensorType>(op.getType());
    AffineMap rowId = rewriter.getMultiDimIdentityMap(1);
    AffineMap toScalar = AffineMap::get(1, 0, {}, ctx);
    Value loss = buildGeneric(
        rewriter, loc, ValueRange{mx, sumExp, picked},
        {rowId, rowId, rowId, toScalar}, zeros(rewriter, loc, scalarType),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value lse = arith::AddFOp::create(b, l, a[0],
                                            math::LogOp::create(b, l, a[1]));
          Value nll = arith::SubFOp::create(b, l, lse, a[2]);
          nll = arith::MulFOp::create(b, l, nll, floatConst(b, l, et, 1.0 / n));
          return arith::AddFOp::create(b, l, a[3], nll);
        });
    rewriter.replaceOp(op, loss);
    return success();
  }
};

struct CrossEntropyGradLowering : OpRewritePattern<CrossEntropyGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    int64_t n = type.getDimSize(0);
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
          Value one = arith::SelectOp::create(b, l, isLabel(b, l, a[1]),
                                              floatConst(b, l, et, 1.0),
                                              floatConst(b, l, et, 0.0));
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
    Type et = type.getElementType();
    unsigned rank = type.getRank();
    double inv = 1.0 / static_cast<double>(type.getNumElements());
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap scalar = AffineMap::get(rank, 0, {}, getContext());
    Value loss = buildGeneric(
        rewriter, loc, ValueRange{op.getPred(), op.getTarget()},
        {id, id, scalar},
        zeros(rewriter, loc, cast<RankedTensorType>(op.getType())),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value d = arith::SubFOp::create(b, l, a[0], a[1]);
          Value sq = arith::MulFOp::create(b, l, d, d);
          sq = arith::MulFOp::create(b, l, sq, floatConst(b, l, et, inv));
          return arith::AddFOp::create(b, l, a[2], sq);
        });
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

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

struct EmbeddingLowering : OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    Value table = op.getTable();
    SmallVector<int64_t> idDims;
    for (unsigned i = 0; i + 1 < rank; ++i)
      idDims.push_back(i);
    AffineMap maps[] = {keepDimsMap(ctx, rank, idDims),
                        rewriter.getMultiDimIdentityMap(rank)};
    Value r = buildGeneric(
        rewriter, loc, ValueRange{op.getIds()}, maps,
        emptyTensor(rewriter, loc, type),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          return tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// dtable[ids[i], :] += dy[i, :], one row per token in an scf.for.
struct EmbeddingGradLowering : OpRewritePattern<EmbeddingGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t h = type.getDimSize(1);
    Value ids = flatten(rewriter, loc, op.getIds());
    int64_t tokens = cast<RankedTensorType>(ids.getType()).getDimSize(0);
    auto dyType = cast<RankedTensorType>(op.getDy().getType());
    auto dy2Type = RankedTensorType::get({tokens, h}, type.getElementType());
    Value dy = op.getDy();
    if (dyType.getRank() != 2) {
      SmallVector<ReassociationIndices> reassoc(2);
      for (int64_t i = 0; i + 1 < dyType.getRank(); ++i)
        reassoc[0].push_back(i);
      reassoc[1].push_back(dyType.getRank() - 1);
      dy = tensor::CollapseShapeOp::create(rewriter, loc, dy2Type, dy, reassoc);
    }
    auto rowType = RankedTensorType::get({1, h}, type.getElementType());
    Value init = zeros(rewriter, loc, type);
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConst(rewriter, loc, 0),
        indexConst(rewriter, loc, tokens), indexConst(rewriter, loc, 1),
        ValueRange{init},
        [&](OpBuilder &b, Location l, Value i, ValueRange iter) {
          Value id = tensor::ExtractOp::create(b, l, ids, ValueRange{i});
          Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), id);
          SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                             b.getIndexAttr(h)};
          SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
          SmallVector<OpFoldResult> src = {i, b.getIndexAttr(0)};
          SmallVector<OpFoldResult> dst = {row, b.getIndexAttr(0)};
          Value g = tensor::ExtractSliceOp::create(b, l, rowType, dy, src,
                                                   sizes, strides);
          Value cur = tensor::ExtractSliceOp::create(b, l, rowType, iter[0],
                                                     dst, sizes, strides);
          Value sum = buildElementwise(
              b, l, rowType, ValueRange{cur, g},
              [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                return arith::AddFOp::create(nb, nl, a[0], a[1]);
              });
          Value next = tensor::InsertSliceOp::create(b, l, sum, iter[0], dst,
                                                     sizes, strides);
          scf::YieldOp::create(b, l, next);
        });
    rewriter.replaceOp(op, loop.getResult(0));
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

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertEchoToLinalgPass
    : echo::impl::ConvertEchoToLinalgBase<ConvertEchoToLinalgPass> {
  void runOnOperation() override {
    inlineRecomputeRegions(getOperation());
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
  populateElementwisePatterns(patterns);
  patterns.add<
      DropoutLowering, BroadcastLowering, ReduceLowering<ReduceSumOp, false>,
      ReduceLowering<ReduceMaxOp, true>, ReduceMaxGradLowering, SliceLowering,
      SliceGradLowering, ConcatLowering, ReshapeLowering, TransposeLowering,
      MatmulLowering<MatmulOp, false>, MatmulLowering<BatchMatmulOp, true>,
      LinearLowering, ConvContractionLowering<Conv2DOp, false>,
      ConvContractionLowering<Conv2DGradFilterOp, true>,
      Conv2DGradInputLowering, MaxPool2DLowering, AvgPool2DLowering,
      AvgPool2DGradLowering, MaxPool2DGradLowering,
      NormLowering<BatchNormOp, true>, NormLowering<LayerNormOp, false>,
      NormGradLowering<BatchNormGradOp, true>,
      NormGradLowering<LayerNormGradOp, false>, SoftmaxLowering,
      SoftmaxGradLowering, CrossEntropyLowering, CrossEntropyGradLowering,
      MseLossLowering, MseLossGradLowering, EmbeddingLowering,
      EmbeddingGradLowering, PackMaskLowering, UnpackMaskLowering>(
      patterns.getContext());
}
