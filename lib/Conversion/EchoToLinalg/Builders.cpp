//===- Builders.cpp - Builders shared by the EchoToLinalg patterns --------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

//===----------------------------------------------------------------------===//
// Constants and initial tensors
//===----------------------------------------------------------------------===//

Value linalg_lowering::floatConst(OpBuilder &b, Location loc, Type type,
                                  double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

Value linalg_lowering::indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value linalg_lowering::filledTensor(OpBuilder &b, Location loc,
                                    RankedTensorType type, TypedAttr value) {
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

Value linalg_lowering::zeros(OpBuilder &b, Location loc,
                             RankedTensorType type) {
  return filledTensor(b, loc, type, b.getZeroAttr(type.getElementType()));
}

Value linalg_lowering::convertFloat(OpBuilder &b, Location loc, Value x,
                                    Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth == toWidth) {
    x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    fromWidth = 32;
  }
  if (fromWidth < toWidth)
    return arith::ExtFOp::create(b, loc, to, x);
  return arith::TruncFOp::create(b, loc, to, x);
}

Value linalg_lowering::floatFilled(OpBuilder &b, Location loc,
                                   RankedTensorType type, double value) {
  return filledTensor(b, loc, type,
                      b.getFloatAttr(type.getElementType(), value));
}

Value linalg_lowering::emptyTensor(OpBuilder &b, Location loc,
                                   RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

//===----------------------------------------------------------------------===//
// linalg.generic
//===----------------------------------------------------------------------===//

Value linalg_lowering::buildGeneric(OpBuilder &b, Location loc,
                                    ValueRange inputs, ArrayRef<AffineMap> maps,
                                    Value init, BodyFn body) {
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

Value linalg_lowering::buildElementwise(OpBuilder &b, Location loc,
                                        RankedTensorType resultType,
                                        ValueRange inputs, BodyFn body) {
  AffineMap id = b.getMultiDimIdentityMap(resultType.getRank());
  SmallVector<AffineMap> maps(inputs.size() + 1, id);
  return buildGeneric(b, loc, inputs, maps, emptyTensor(b, loc, resultType),
                      body);
}

//===----------------------------------------------------------------------===//
// Dims and reductions
//===----------------------------------------------------------------------===//

AffineMap linalg_lowering::dropDimsMap(MLIRContext *ctx, unsigned rank,
                                       ArrayRef<int64_t> dropped) {
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < rank; ++i)
    if (!llvm::is_contained(dropped, static_cast<int64_t>(i)))
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

AffineMap linalg_lowering::keepDimsMap(MLIRContext *ctx, unsigned rank,
                                       ArrayRef<int64_t> kept) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : kept)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

SmallVector<int64_t> linalg_lowering::complementDims(unsigned rank,
                                                     ArrayRef<int64_t> dims) {
  SmallVector<int64_t> rest;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(dims, i))
      rest.push_back(i);
  return rest;
}

SmallVector<int64_t> linalg_lowering::selectDims(ArrayRef<int64_t> shape,
                                                 ArrayRef<int64_t> dims) {
  SmallVector<int64_t> out;
  for (int64_t d : dims)
    out.push_back(shape[d]);
  return out;
}

Value linalg_lowering::reduceDims(
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

Type linalg_lowering::widenedFloatType(Type type) {
  auto f = dyn_cast<FloatType>(type);
  return f && f.getWidth() < 32 ? Float32Type::get(type.getContext()) : type;
}

Type linalg_lowering::sumAccumulatorType(Type type, int64_t terms) {
  auto f = dyn_cast<FloatType>(type);
  if (!f || f.getWidth() >= 64)
    return type;
  if (f.getWidth() < 32)
    return widenedFloatType(type);
  if (terms <= kShortSumTerms)
    return type;
  return Float64Type::get(type.getContext());
}

int64_t linalg_lowering::reductionLength(ValueRange inputs,
                                         ArrayRef<AffineMap> maps) {
  AffineMap outMap = maps.back();
  SmallVector<int64_t> ranges(outMap.getNumDims(), ShapedType::kDynamic);
  for (auto [input, map] : llvm::zip(inputs, maps.drop_back())) {
    auto type = cast<ShapedType>(input.getType());
    for (auto [k, e] : llvm::enumerate(map.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(e))
        ranges[d.getPosition()] = type.getDimSize(k);
  }
  int64_t length = 1;
  for (auto [d, range] : llvm::enumerate(ranges)) {
    if (outMap.isFunctionOfDim(d))
      continue;
    if (range == ShapedType::kDynamic)
      return INT64_MAX;
    if (range > 0 && length > INT64_MAX / range)
      return INT64_MAX;
    length *= range;
  }
  return length;
}

Value linalg_lowering::buildSum(OpBuilder &b, Location loc, ValueRange inputs,
                                ArrayRef<AffineMap> maps,
                                RankedTensorType resultType, BodyFn term,
                                double scale) {
  Type et = resultType.getElementType();
  Type acc = sumAccumulatorType(et, reductionLength(inputs, maps));
  auto accType = RankedTensorType::get(resultType.getShape(), acc);
  Value sum =
      buildGeneric(b, loc, inputs, maps, zeros(b, loc, accType),
                   [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                     Value t = term(nb, nl, args.drop_back());
                     if (acc != et)
                       t = arith::ExtFOp::create(nb, nl, acc, t);
                     return arith::AddFOp::create(nb, nl, args.back(), t);
                   });
  if (acc == et && scale == 1.0)
    return sum;
  return buildElementwise(
      b, loc, resultType, sum,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value v = args[0];
        if (scale != 1.0)
          v = arith::MulFOp::create(nb, nl, v, floatConst(nb, nl, acc, scale));
        if (acc != et)
          v = arith::TruncFOp::create(nb, nl, et, v);
        return v;
      });
}

Value linalg_lowering::sumDims(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> kept = complementDims(type.getRank(), dims);
  auto outType = RankedTensorType::get(selectDims(type.getShape(), kept),
                                       type.getElementType());
  AffineMap maps[] = {b.getMultiDimIdentityMap(type.getRank()),
                      keepDimsMap(b.getContext(), type.getRank(), kept)};
  return buildSum(
      b, loc, input, maps, outType,
      [](OpBuilder &, Location, ValueRange args) -> Value { return args[0]; });
}

Value linalg_lowering::maxDims(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> dims) {
  return reduceDims(b, loc, input, dims, -INFINITY,
                    [](OpBuilder &nb, Location nl, Value x, Value acc) {
                      return arith::MaximumFOp::create(nb, nl, x, acc);
                    });
}

//===----------------------------------------------------------------------===//
// NCHW padding and windows
//===----------------------------------------------------------------------===//

Value linalg_lowering::padSpatial(OpBuilder &b, Location loc, Value x,
                                  ArrayRef<int64_t> pad, double value) {
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

Value linalg_lowering::unpadSpatial(OpBuilder &b, Location loc, Value x,
                                    RankedTensorType type,
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

RankedTensorType linalg_lowering::paddedType(RankedTensorType type,
                                             ArrayRef<int64_t> pad) {
  SmallVector<int64_t> shape(type.getShape());
  shape[2] += 2 * pad[0];
  shape[3] += 2 * pad[1];
  return RankedTensorType::get(shape, type.getElementType());
}

WindowSlice linalg_lowering::windowSlice(OpBuilder &b, RankedTensorType outType,
                                         int64_t kh, int64_t kw,
                                         ArrayRef<int64_t> strides) {
  WindowSlice s;
  s.offsets = {b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(kh),
               b.getIndexAttr(kw)};
  for (int64_t d : outType.getShape())
    s.sizes.push_back(b.getIndexAttr(d));
  s.strides = {b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(strides[0]),
               b.getIndexAttr(strides[1])};
  return s;
}

Value linalg_lowering::accumulateWindow(OpBuilder &b, Location loc, Value acc,
                                        Value contrib, int64_t kh, int64_t kw,
                                        ArrayRef<int64_t> strides) {
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

//===----------------------------------------------------------------------===//
// Flattening
//===----------------------------------------------------------------------===//

Value linalg_lowering::flatten(OpBuilder &b, Location loc, Value v) {
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

Value linalg_lowering::unflatten(OpBuilder &b, Location loc, Value v,
                                 RankedTensorType type) {
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
