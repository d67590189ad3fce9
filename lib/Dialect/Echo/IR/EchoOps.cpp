//===- EchoOps.cpp - Echo forward operations --------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// Verifiers of the forward ops (EchoOps.td) for what ODS traits cannot express
// (shape relations between operands, attribute ranges) and their custom FLOP
// counts. Diagnostics name the operand or attribute at fault. The gradient,
// recompute and mask ops are in EchoGradOps.cpp; the helpers both share are in
// EchoOpUtils.h.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "EchoOpUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// The two forms of gelu differ in cost: x/√2, erf (6), 1 +, and the two
/// products; or x², x³, the cubic's scale and sum, its scale by √(2/π),
/// tanh (6), 1 +, and the two products.
int64_t GeluOp::estimateFlops() {
  return estimatePerElementFlops(*this, getTanhApproximation() ? 14 : 10);
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  Value x = getX();
  if (x.getType() == getType())
    return x;
  // cast(cast(a)) through f32 is one cast of a: f32 holds every f16 and
  // bf16 value, so the first conversion is exact or the second undoes it.
  auto inner = x.getDefiningOp<CastOp>();
  if (!inner || !getElementTypeOrSelf(x.getType()).isF32())
    return {};
  Value a = inner.getX();
  if (a.getType() == getType())
    return a;
  getXMutable().assign(a);
  return getResult();
}

LogicalResult ClampOp::verify() {
  return verifyClampBounds(*this, getMin(), getMax());
}

//===----------------------------------------------------------------------===//
// Shape and reduction ops
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  ArrayRef<int64_t> dims = getDimensions();
  ArrayRef<int64_t> inShape = shapeOf(getX());
  ArrayRef<int64_t> outShape = shapeOf(getResult());
  if (outShape.size() != inShape.size() + dims.size())
    return emitOpError() << "result rank " << outShape.size()
                         << " must be the rank of 'x' (" << inShape.size()
                         << ") plus the number of 'dimensions' (" << dims.size()
                         << ")";
  if (failed(verifyDimensionList(*this, dims, outShape.size(), "dimensions")))
    return failure();
  SmallVector<int64_t> kept = removeDims(outShape, dims);
  if (kept != inShape)
    return emitOpError() << "result dimensions not in 'dimensions' "
                         << formatShape(kept) << " must equal the shape of "
                         << "'x' " << formatShape(inShape);
  return success();
}

LogicalResult ReduceSumOp::verify() {
  return verifyReduction(*this, getX(), getResult(), getDimensions());
}

LogicalResult ReduceMaxOp::verify() {
  return verifyReduction(*this, getX(), getResult(), getDimensions());
}

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getX());
  ArrayRef<int64_t> offsets = getOffsets(), sizes = getSizes();
  if (offsets.size() != shape.size() || sizes.size() != shape.size())
    return emitOpError() << "'offsets' and 'sizes' need one entry per "
                         << "dimension of 'x' (" << shape.size() << ")";
  for (auto [dim, offset, size, extent] : llvm::zip_equal(
           llvm::seq<size_t>(0, shape.size()), offsets, sizes, shape)) {
    // Written so that huge offsets cannot overflow.
    if (offset < 0 || size < 1 || size > extent || offset > extent - size)
      return emitOpError() << "slice [" << offset << ", " << offset + size
                           << ") of dimension " << dim
                           << " is out of bounds of 'x' (size " << extent
                           << ")";
  }
  return verifyResultShape(*this, getResult(), sizes);
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  ArrayRef<int64_t> first = shapeOf(getInputs().front());
  int64_t rank = first.size();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (failed(verifyAxis(*this, axis, rank)))
    return failure();
  SmallVector<int64_t> expected(first);
  expected[axis] = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    ArrayRef<int64_t> shape = shapeOf(input);
    if (static_cast<int64_t>(shape.size()) != rank)
      return emitOpError() << "input #" << i << " has rank " << shape.size()
                           << " but input #0 has rank " << rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && shape[d] != first[d])
        return emitOpError()
               << "input #" << i << " has size " << shape[d] << " in dimension "
               << d << " but input #0 has " << first[d];
    expected[axis] += shape[axis];
  }
  return verifyResultShape(*this, getResult(), expected);
}

LogicalResult ReshapeOp::verify() {
  // (BoundedTensors has checked that both counts fit in int64: a count that
  // wrapped around could have equalled the input's.)
  if (numElements(getX()) != numElements(getResult()))
    return emitOpError() << "'x' has " << numElements(getX())
                         << " elements but the result has "
                         << numElements(getResult());
  return success();
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> perm = getPermutation();
  ArrayRef<int64_t> shape = shapeOf(getX());
  if (perm.size() != shape.size())
    return emitOpError() << "'permutation' has " << perm.size()
                         << " entries but 'x' has rank " << shape.size();
  llvm::SmallBitVector seen(shape.size());
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(shape.size()) || seen.test(p))
      return emitOpError() << "'permutation' is not a permutation of [0, "
                           << shape.size() << ")";
    seen.set(p);
    expected.push_back(shape[p]);
  }
  return verifyResultShape(*this, getResult(), expected);
}

//===----------------------------------------------------------------------===//
// Compute-heavy ops
//===----------------------------------------------------------------------===//

/// Returns {rows, cols} of an operand as it enters the product.
static std::pair<int64_t, int64_t> matrixDims(ArrayRef<int64_t> shape,
                                              bool transpose) {
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  return transpose ? std::make_pair(cols, rows) : std::make_pair(rows, cols);
}

static LogicalResult verifyMatmul(Operation *op, Value a, Value b, Value result,
                                  bool transposeA, bool transposeB) {
  ArrayRef<int64_t> aShape = shapeOf(a), bShape = shapeOf(b);
  auto [m, ka] = matrixDims(aShape, transposeA);
  auto [kb, n] = matrixDims(bShape, transposeB);
  if (ka != kb)
    return op->emitOpError()
           << "contraction size of 'a' (" << ka << ") does not match that of "
           << "'b' (" << kb << ")";
  SmallVector<int64_t> expected;
  if (aShape.size() == 3) {
    if (aShape[0] != bShape[0])
      return op->emitOpError()
             << "batch size of 'a' (" << aShape[0]
             << ") does not match that of 'b' (" << bShape[0] << ")";
    expected.push_back(aShape[0]);
  }
  expected.append({m, n});
  return verifyResultShape(op, result, expected);
}

static int64_t matmulFlops(Value a, Value result, bool transposeA) {
  int64_t k = matrixDims(shapeOf(a), transposeA).second;
  return 2 * numElements(result) * k;
}

LogicalResult MatmulOp::verify() {
  return verifyMatmul(*this, getA(), getB(), getResult(), getTransposeA(),
                      getTransposeB());
}

int64_t MatmulOp::estimateFlops() {
  return matmulFlops(getA(), getResult(), getTransposeA());
}

LogicalResult BatchMatmulOp::verify() {
  return verifyMatmul(*this, getA(), getB(), getResult(), getTransposeA(),
                      getTransposeB());
}

int64_t BatchMatmulOp::estimateFlops() {
  return matmulFlops(getA(), getResult(), getTransposeA());
}

LogicalResult LinearOp::verify() {
  ArrayRef<int64_t> x = shapeOf(getX()), w = shapeOf(getW()),
                    b = shapeOf(getB());
  if (x[1] != w[1])
    return emitOpError() << "'w' has " << w[1] << " input features but 'x' "
                         << "has " << x[1];
  if (b[0] != w[0])
    return emitOpError() << "'b' has " << b[0] << " entries but 'w' has "
                         << w[0] << " output features";
  return verifyResultShape(*this, getResult(), {x[0], w[0]});
}

int64_t LinearOp::estimateFlops() {
  return 2 * numElements(getResult()) * shapeOf(getX())[1] +
         numElements(getResult());
}

LogicalResult Conv2DOp::verify() {
  FailureOr<SmallVector<int64_t>> shape =
      inferConvShape(*this, shapeOf(getX()), shapeOf(getW()), getStrides(),
                     getPadding(), getGroups(), "x", "w");
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getResult(), *shape);
}

int64_t Conv2DOp::estimateFlops() {
  // The filter's C/groups channels: a grouped convolution costs 1/groups.
  return convFlops(shapeOf(getX()), shapeOf(getW()), shapeOf(getResult()));
}

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

template <typename PoolOp> static LogicalResult verifyPool(PoolOp op) {
  FailureOr<SmallVector<int64_t>> shape =
      inferPoolShape(op, shapeOf(op.getX()), op.getKernel(), op.getStrides(),
                     op.getPadding(), op.getCeilMode());
  if (failed(shape))
    return failure();
  return verifyResultShape(op, op.getResult(), *shape);
}

LogicalResult MaxPool2DOp::verify() { return verifyPool(*this); }
LogicalResult AvgPool2DOp::verify() { return verifyPool(*this); }
int64_t MaxPool2DOp::estimateFlops() {
  return poolFlops(getResult(), getKernel());
}
int64_t AvgPool2DOp::estimateFlops() {
  return poolFlops(getResult(), getKernel());
}

LogicalResult AdaptiveAvgPool2DOp::verify() {
  ArrayRef<int64_t> x = shapeOf(getX());
  ArrayRef<int64_t> size = getOutputSize();
  return verifyResultShape(*this, getResult(), {x[0], x[1], size[0], size[1]});
}

int64_t AdaptiveAvgPool2DOp::estimateFlops() {
  return adaptivePoolFlops(getX(), getResult());
}

LogicalResult BatchNormOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon())))
    return failure();
  return verifyAffineParams(*this, getGamma(), getBeta(), shapeOf(getX())[1],
                            "channels (dimension 1)");
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon())))
    return failure();
  if (shapeOf(getX()).empty())
    return emitOpError() << "'x' must have rank >= 1";
  return verifyAffineParams(*this, getGamma(), getBeta(),
                            shapeOf(getX()).back(),
                            "features (last dimension)");
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), shapeOf(getX()).size());
}

LogicalResult DropoutOp::verify() {
  if (failed(verifyRatio(*this, getRatio())))
    return failure();
  if (std::optional<ArrayRef<int64_t>> dims = getBroadcastDims())
    return verifyBroadcastDims(*this, *dims, shapeOf(getX()).size());
  return success();
}

LogicalResult EmbeddingOp::verify() {
  int64_t rows = shapeOf(getTable())[0];
  if (std::optional<uint64_t> pad = getPaddingIdx()) {
    auto row = static_cast<int64_t>(*pad);
    if (row < 0 || row >= rows)
      return emitOpError() << "'padding_idx' " << row
                           << " is not a row of 'table' [0, " << rows << ")";
  }
  SmallVector<int64_t> expected(shapeOf(getIds()));
  expected.push_back(shapeOf(getTable())[1]);
  return verifyResultShape(*this, getResult(), expected);
}

/// A loss's `what` (its result, a gradient's dloss) has the logits' element
/// type or is f32 (low-precision logits, an f32 loss).
static LogicalResult verifyLossElementType(Operation *op, Value logits,
                                           Value value, StringRef what) {
  Type et = getElementTypeOrSelf(value.getType());
  if (et == getElementTypeOrSelf(logits.getType()) || et.isF32())
    return success();
  return op->emitOpError() << what << " must be f32 or of the logits' "
                           << "element type, not " << et;
}

LogicalResult CrossEntropyOp::verify() {
  if (failed(
          verifyLossElementType(*this, getLogits(), getResult(), "the result")))
    return failure();
  return verifyCrossEntropy(*this, getLogits(), getLabels(),
                            getLabelSmoothing());
}

LogicalResult CrossEntropyTermsOp::verify() {
  if (failed(
          verifyLossElementType(*this, getLogits(), getResult(), "the result")))
    return failure();
  if (failed(verifyCrossEntropy(*this, getLogits(), getLabels(),
                                getLabelSmoothing())))
    return failure();
  return verifyResultShape(*this, getResult(), {shapeOf(getLogits())[0]});
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

// One ODS run over EchoOps.td, which includes EchoGradOps.td, generates the
// classes of all ops, gradient ones included. They are defined here, once;
// EchoDialect.cpp only takes the op list from the same file.
#define GET_OP_CLASSES
#include "echo/Dialect/Echo/IR/EchoOps.cpp.inc"

//===----------------------------------------------------------------------===//
// IndexOperandOpInterface
//===----------------------------------------------------------------------===//

int64_t EmbeddingOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 0 ? getTable().getType().getDimSize(0) : 0;
}

int64_t CrossEntropyOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? getLogits().getType().getDimSize(1) : 0;
}

int64_t CrossEntropyTermsOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? getLogits().getType().getDimSize(1) : 0;
}

std::optional<int64_t>
CrossEntropyOp::getIgnoredIndex(unsigned operandIndex) {
  return operandIndex == 1 ? getIgnoreIndex() : std::nullopt;
}

std::optional<int64_t>
CrossEntropyTermsOp::getIgnoredIndex(unsigned operandIndex) {
  return operandIndex == 1 ? getIgnoreIndex() : std::nullopt;
}

//===----------------------------------------------------------------------===//
// RowChunkOpInterface
//===----------------------------------------------------------------------===//

/// Dimension `dim` of 2-D `x` restricted to [offset, offset + size).
static Value sliceDim(OpBuilder &b, Location loc, Value x, unsigned dim,
                      int64_t offset, int64_t size) {
  SmallVector<int64_t> offsets(shapeOf(x).size(), 0);
  SmallVector<int64_t> sizes(shapeOf(x));
  offsets[dim] = offset;
  sizes[dim] = size;
  auto type = RankedTensorType::get(sizes, getElementTypeOrSelf(x));
  return SliceOp::create(b, loc, type, x, b.getDenseI64ArrayAttr(offsets),
                         b.getDenseI64ArrayAttr(sizes));
}

Value MatmulOp::buildOnRowChunk(OpBuilder &b, unsigned operandIndex,
                                Value chunk, int64_t offset, bool &summed) {
  // op(a) is M×K, op(b) K×N. The rows of a are M (rows of the result) or,
  // transposed, K; the rows of b are K or, transposed, N (columns of the
  // result, which this interface does not split).
  Location loc = getLoc();
  int64_t rows = shapeOf(chunk)[0];
  bool ta = getTransposeA(), tb = getTransposeB();
  auto build = [&](Value a, Value bv, ArrayRef<int64_t> shape) {
    return MatmulOp::create(
               b, loc, RankedTensorType::get(shape, getType().getElementType()),
               a, bv, getTransposeAAttr(), getTransposeBAttr())
        .getResult();
  };
  ArrayRef<int64_t> shape = shapeOf(getResult());
  if (operandIndex == 0 && !ta) {
    summed = false;
    return build(chunk, getB(), {rows, shape[1]});
  }
  if (operandIndex == 0) {
    summed = true;
    return build(chunk, sliceDim(b, loc, getB(), tb ? 1 : 0, offset, rows),
                 shape);
  }
  if (operandIndex == 1 && !tb) {
    summed = true;
    return build(sliceDim(b, loc, getA(), ta ? 0 : 1, offset, rows), chunk,
                 shape);
  }
  return {};
}

Value ReduceSumOp::buildOnRowChunk(OpBuilder &b, unsigned operandIndex,
                                   Value chunk, int64_t offset, bool &summed) {
  if (operandIndex != 0)
    return {};
  // Dimensions are strictly increasing: the rows are reduced when the
  // first is 0, else they are the result's rows.
  ArrayRef<int64_t> dims = getDimensions();
  summed = !dims.empty() && dims.front() == 0;
  SmallVector<int64_t> shape(shapeOf(getResult()));
  if (!summed)
    shape[0] = shapeOf(chunk)[0];
  return ReduceSumOp::create(
      b, getLoc(), RankedTensorType::get(shape, getType().getElementType()),
      chunk, getDimensionsAttr());
}
