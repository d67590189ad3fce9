//===- EchoDataOps.cpp - Masks, conversions and indexing ops ----*- C++ -*-===//
//
// Part of the Echo project.
//
// The ops of EchoDataOps.td: their verifiers (shape relations between the
// indices and the data they index, which the traits cannot say), the folding
// of a conversion to the type it has, their FLOP counts, the ranges their
// index operands accept (IndexOperandOpInterface) and their vector-Jacobian
// products. The data ops (comparisons, logical ops, conversions, one_hot)
// give no operand an adjoint; the indexing ops differentiate into each
// other. The generated op classes are defined in EchoOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "EchoOpUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

#include "echo/Dialect/Echo/IR/EchoEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Verifiers and folders
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  Type from = getElementTypeOrSelf(getX().getType());
  Type to = getElementTypeOrSelf(getType());
  if (isa<FloatType>(from) && isa<FloatType>(to))
    return emitOpError() << "converts " << from << " to " << to
                         << ", two float types: that is 'echo.cast' (which "
                            "has a gradient)";
  return success();
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getX().getType() == getType())
    return getX();
  return {};
}

LogicalResult TopkOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getX());
  if (shape.empty())
    return emitOpError() << "'x' must have a dimension to take the top k "
                            "along (it is 0-d)";
  SmallVector<int64_t> expected(shape);
  int64_t k = shapeOf(getValues()).empty() ? 0 : shapeOf(getValues()).back();
  if (k < 1 || k > shape.back())
    return emitOpError() << "k (the last dimension of 'values', " << k
                         << ") must be in [1, " << shape.back()
                         << "], the last dimension of 'x'";
  expected.back() = k;
  return verifyResultShape(*this, getValues(), expected, "'values'");
}

/// `indices` indexes `x` along `axis`: the same rank, the same extent along
/// every other dimension.
static LogicalResult verifyIndexedAlong(Operation *op, Value x, Value indices,
                                        int64_t axis) {
  ArrayRef<int64_t> xShape = shapeOf(x);
  ArrayRef<int64_t> idShape = shapeOf(indices);
  if (failed(verifyAxis(op, axis, xShape.size())))
    return failure();
  if (idShape.size() != xShape.size())
    return op->emitOpError() << "'indices' has rank " << idShape.size()
                             << " but 'x' has rank " << xShape.size();
  for (int64_t d = 0, rank = xShape.size(); d < rank; ++d)
    if (d != axis && idShape[d] != xShape[d])
      return op->emitOpError()
             << "'indices' has shape " << formatShape(idShape)
             << ", which differs from the shape of 'x' " << formatShape(xShape)
             << " outside 'axis' " << axis;
  if (xShape[axis] == 0 && idShape[axis] != 0)
    return op->emitOpError() << "'x' has no entries along 'axis' " << axis
                             << " for 'indices' to pick";
  return success();
}

LogicalResult GatherOp::verify() {
  return verifyIndexedAlong(*this, getX(), getIndices(), getAxis());
}

LogicalResult ScatterOp::verify() {
  return verifyIndexedAlong(*this, getX(), getIndices(), getAxis());
}

LogicalResult ScatterAddOp::verify() {
  return verifyIndexedAlong(*this, getX(), getIndices(), getAxis());
}

LogicalResult OneHotOp::verify() {
  SmallVector<int64_t> expected(shapeOf(getIds()));
  ArrayRef<int64_t> shape = shapeOf(getResult());
  if (shape.size() != expected.size() + 1)
    return emitOpError() << "result has rank " << shape.size()
                         << " but 'ids' has rank " << expected.size()
                         << " (the result adds the class dimension)";
  expected.push_back(shape.back());
  if (failed(verifyResultShape(*this, getResult(), expected)))
    return failure();
  if (shape.back() < 1)
    return emitOpError() << "result has no classes (its last dimension is 0)";
  std::optional<int64_t> ignored = getIgnoreIndex();
  if (ignored && (*ignored < std::numeric_limits<int32_t>::min() ||
                  *ignored > std::numeric_limits<int32_t>::max()))
    return emitOpError() << "ignore_index " << *ignored
                         << " is not an i32 (the ids are i32)";
  return success();
}

//===----------------------------------------------------------------------===//
// Costs
//===----------------------------------------------------------------------===//

/// Each entry of a row is ranked against every other (a comparison each),
/// then each of the k outputs picks its entry (a comparison per entry).
int64_t TopkOp::estimateFlops() {
  ArrayRef<int64_t> shape = shapeOf(getX());
  int64_t n = shape.back();
  int64_t rows = n ? numElements(getX()) / n : 0;
  int64_t k = shapeOf(getValues()).back();
  return rows * n * (n + k);
}

/// Each element of the result compares (and adds or selects) the M entries
/// of `indices` along the axis that may reach it.
static int64_t scatterFlops(Value result, Value indices, int64_t axis) {
  return 2 * numElements(result) * shapeOf(indices)[axis];
}

int64_t ScatterOp::estimateFlops() {
  return scatterFlops(getResult(), getIndices(), getAxis());
}

int64_t ScatterAddOp::estimateFlops() {
  return scatterFlops(getResult(), getIndices(), getAxis());
}

//===----------------------------------------------------------------------===//
// IndexOperandOpInterface
//===----------------------------------------------------------------------===//

int64_t GatherOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? shapeOf(getX())[getAxis()] : 0;
}

int64_t ScatterOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? shapeOf(getX())[getAxis()] : 0;
}

int64_t ScatterAddOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? shapeOf(getX())[getAxis()] : 0;
}

int64_t OneHotOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 0 ? shapeOf(getResult()).back() : 0;
}

std::optional<int64_t> OneHotOp::getIgnoredIndex(unsigned operandIndex) {
  return operandIndex == 0 ? getIgnoreIndex() : std::nullopt;
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

/// No operand of a data op gets an adjoint.
static LogicalResult noGradient(Operation *op, SmallVectorImpl<Value> &grads) {
  grads.assign(op->getNumOperands(), Value());
  return success();
}

LogicalResult CompareOp::buildGradient(OpBuilder &, ValueRange,
                                       SmallVectorImpl<Value> &grads) {
  return noGradient(*this, grads);
}

LogicalResult LogicalAndOp::buildGradient(OpBuilder &, ValueRange,
                                          SmallVectorImpl<Value> &grads) {
  return noGradient(*this, grads);
}

LogicalResult LogicalOrOp::buildGradient(OpBuilder &, ValueRange,
                                         SmallVectorImpl<Value> &grads) {
  return noGradient(*this, grads);
}

LogicalResult LogicalXorOp::buildGradient(OpBuilder &, ValueRange,
                                          SmallVectorImpl<Value> &grads) {
  return noGradient(*this, grads);
}

LogicalResult LogicalNotOp::buildGradient(OpBuilder &, ValueRange,
                                          SmallVectorImpl<Value> &grads) {
  return noGradient(*this, grads);
}

LogicalResult ConvertOp::buildGradient(OpBuilder &, ValueRange,
                                       SmallVectorImpl<Value> &grads) {
  return noGradient(*this, grads);
}

LogicalResult OneHotOp::buildGradient(OpBuilder &, ValueRange,
                                      SmallVectorImpl<Value> &grads) {
  return noGradient(*this, grads);
}

/// A zero constant of `type`.
static Value zerosOf(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(tensor, b.getZeroAttr(tensor.getElementType())));
}

LogicalResult TopkOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                    SmallVectorImpl<Value> &grads) {
  grads.assign((*this)->getNumOperands(), Value());
  Value dv = resultGrads.empty() ? Value() : resultGrads[0];
  if (!dv)
    return success();
  // PyTorch's value_selecting_reduction_backward: zeros scattered with the
  // values' adjoint at their indices (distinct within a row).
  Location loc = getLoc();
  int64_t axis = shapeOf(getX()).size() - 1;
  grads[0] = ScatterOp::create(b, loc, getX().getType(),
                               zerosOf(b, loc, getX().getType()), getIndices(),
                               dv, b.getI64IntegerAttr(axis));
  return success();
}

LogicalResult GatherOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                      SmallVectorImpl<Value> &grads) {
  grads.assign((*this)->getNumOperands(), Value());
  Value dy = resultGrads.empty() ? Value() : resultGrads[0];
  if (!dy || !isa<FloatType>(getElementTypeOrSelf(getX().getType())))
    return success();
  Location loc = getLoc();
  grads[0] = ScatterAddOp::create(b, loc, getX().getType(),
                                  zerosOf(b, loc, getX().getType()),
                                  getIndices(), dy, getAxisAttr());
  return success();
}

LogicalResult ScatterOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                       SmallVectorImpl<Value> &grads) {
  grads.assign((*this)->getNumOperands(), Value());
  Value dy = resultGrads.empty() ? Value() : resultGrads[0];
  if (!dy)
    return success();
  // The overwritten elements of x do not reach the result; every entry of
  // src gets the adjoint of where it was written, as in PyTorch (even one a
  // later entry overwrote).
  Location loc = getLoc();
  grads[0] =
      ScatterOp::create(b, loc, dy.getType(), dy, getIndices(),
                        zerosOf(b, loc, getSrc().getType()), getAxisAttr());
  grads[2] = GatherOp::create(b, loc, getSrc().getType(), dy, getIndices(),
                              getAxisAttr());
  return success();
}

LogicalResult ScatterAddOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                          SmallVectorImpl<Value> &grads) {
  grads.assign((*this)->getNumOperands(), Value());
  Value dy = resultGrads.empty() ? Value() : resultGrads[0];
  if (!dy)
    return success();
  grads[0] = dy;
  grads[2] = GatherOp::create(b, getLoc(), getSrc().getType(), dy, getIndices(),
                              getAxisAttr());
  return success();
}
