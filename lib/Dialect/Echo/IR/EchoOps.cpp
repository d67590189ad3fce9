//===- EchoOps.cpp - Echo operations ----------------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// Verifiers for what ODS traits cannot express (shape relations between
// operands, attribute ranges), custom FLOP counts, and the custom assembly of
// echo.recompute. Diagnostics name the operand or attribute at fault.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::echo;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

static int64_t numElements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

/// Prints a shape as `[2, 3]`.
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

/// Checks that `result` has the shape `expected`.
static LogicalResult verifyResultShape(Operation *op, Value result,
                                       ArrayRef<int64_t> expected,
                                       StringRef name = "result") {
  if (shapeOf(result) == expected)
    return success();
  return op->emitOpError() << name << " has shape "
                           << formatShape(shapeOf(result)) << " but "
                           << formatShape(expected) << " was expected";
}

/// Checks that `dims` is strictly increasing within [0, rank).
static LogicalResult verifyDimensionList(Operation *op, ArrayRef<int64_t> dims,
                                         int64_t rank, StringRef attrName) {
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= rank)
      return op->emitOpError() << "'" << attrName << "' entry " << dim
                               << " is out of range [0, " << rank << ")";
    if (i > 0 && dims[i - 1] >= dim)
      return op->emitOpError()
             << "'" << attrName << "' must be strictly increasing";
  }
  return success();
}

/// Checks an axis attribute against a rank.
static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << "'axis' " << axis << " is out of range [0, " << rank << ")";
  return success();
}

/// Returns `shape` without the entries at `dims`.
static SmallVector<int64_t> removeDims(ArrayRef<int64_t> shape,
                                       ArrayRef<int64_t> dims) {
  SmallVector<int64_t> result;
  for (auto [i, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
      result.push_back(size);
  return result;
}

static LogicalResult verifyReduction(Operation *op, Value x, Value result,
                                     ArrayRef<int64_t> dims,
                                     StringRef resultName = "result") {
  if (failed(verifyDimensionList(op, dims, shapeOf(x).size(), "dimensions")))
    return failure();
  return verifyResultShape(op, result, removeDims(shapeOf(x), dims),
                           resultName);
}

static LogicalResult verifyEpsilon(Operation *op, APFloat epsilon) {
  if (!epsilon.isFinite() || !(epsilon.convertToDouble() > 0.0))
    return op->emitOpError() << "'epsilon' must be positive and finite";
  return success();
}

static LogicalResult verifyRatio(Operation *op, APFloat ratio) {
  double value = ratio.convertToDouble();
  if (!(value >= 0.0 && value < 1.0))
    return op->emitOpError()
           << "'ratio' must be in [0, 1), got " << llvm::formatv("{0}", value);
  return success();
}

/// Output extent of a sliding window; < 1 when the window does not fit.
static int64_t windowOutputSize(int64_t input, int64_t window, int64_t stride,
                                int64_t padding) {
  int64_t span = input + 2 * padding - window;
  if (span < 0)
    return 0;
  return span / stride + 1;
}

/// Computes the output shape [N, F, OH, OW] of a convolution of `xShape`
/// (N×C×H×W) with `wShape` (F×C×KH×KW) and checks that it is well formed.
static FailureOr<SmallVector<int64_t>>
inferConvShape(Operation *op, ArrayRef<int64_t> xShape,
               ArrayRef<int64_t> wShape, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> padding, StringRef xName, StringRef wName) {
  if (xShape[1] != wShape[1])
    return op->emitOpError()
           << "'" << wName << "' has " << wShape[1] << " input channels but '"
           << xName << "' has " << xShape[1];
  int64_t oh = windowOutputSize(xShape[2], wShape[2], strides[0], padding[0]);
  int64_t ow = windowOutputSize(xShape[3], wShape[3], strides[1], padding[1]);
  if (oh < 1 || ow < 1)
    return op->emitOpError() << "the " << wShape[2] << "x" << wShape[3]
                             << " filter does not fit the padded " << xShape[2]
                             << "x" << xShape[3] << " input";
  return SmallVector<int64_t>{xShape[0], wShape[0], oh, ow};
}

/// Computes the output shape of a pooling of `xShape` (N×C×H×W).
static FailureOr<SmallVector<int64_t>>
inferPoolShape(Operation *op, ArrayRef<int64_t> xShape,
               ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> padding) {
  for (int i = 0; i < 2; ++i)
    if (padding[i] >= kernel[i])
      return op->emitOpError()
             << "'padding' " << padding[i] << " must be smaller than the "
             << "kernel size " << kernel[i];
  int64_t oh = windowOutputSize(xShape[2], kernel[0], strides[0], padding[0]);
  int64_t ow = windowOutputSize(xShape[3], kernel[1], strides[1], padding[1]);
  if (oh < 1 || ow < 1)
    return op->emitOpError() << "the " << kernel[0] << "x" << kernel[1]
                             << " window does not fit the padded " << xShape[2]
                             << "x" << xShape[3] << " input";
  return SmallVector<int64_t>{xShape[0], xShape[1], oh, ow};
}

/// FLOPs of a convolution between N×C×H×W and F×C×KH×KW giving OH×OW.
static int64_t convFlops(ArrayRef<int64_t> xShape, ArrayRef<int64_t> wShape,
                         ArrayRef<int64_t> yShape) {
  return 2 * yShape[0] * yShape[1] * yShape[2] * yShape[3] * wShape[1] *
         wShape[2] * wShape[3];
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
                     getPadding(), "x", "w");
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getResult(), *shape);
}

int64_t Conv2DOp::estimateFlops() {
  return convFlops(shapeOf(getX()), shapeOf(getW()), shapeOf(getResult()));
}

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

template <typename PoolOp> static LogicalResult verifyPool(PoolOp op) {
  FailureOr<SmallVector<int64_t>> shape = inferPoolShape(
      op, shapeOf(op.getX()), op.getKernel(), op.getStrides(), op.getPadding());
  if (failed(shape))
    return failure();
  return verifyResultShape(op, op.getResult(), *shape);
}

static int64_t poolFlops(Value output, ArrayRef<int64_t> kernel) {
  return numElements(output) * kernel[0] * kernel[1];
}

LogicalResult MaxPool2DOp::verify() { return verifyPool(*this); }
LogicalResult AvgPool2DOp::verify() { return verifyPool(*this); }
int64_t MaxPool2DOp::estimateFlops() {
  return poolFlops(getResult(), getKernel());
}
int64_t AvgPool2DOp::estimateFlops() {
  return poolFlops(getResult(), getKernel());
}

/// Checks that `gamma` and `beta` have `channels` entries.
static LogicalResult verifyAffineParams(Operation *op, Value gamma, Value beta,
                                        int64_t channels, StringRef what) {
  for (auto [name, value] :
       {std::make_pair("gamma", gamma), std::make_pair("beta", beta)}) {
    if (!value)
      continue;
    int64_t size = shapeOf(value)[0];
    if (size != channels)
      return op->emitOpError()
             << "'" << name << "' has " << size << " entries but 'x' has "
             << channels << " " << what;
  }
  return success();
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

LogicalResult DropoutOp::verify() { return verifyRatio(*this, getRatio()); }

LogicalResult EmbeddingOp::verify() {
  SmallVector<int64_t> expected(shapeOf(getIds()));
  expected.push_back(shapeOf(getTable())[1]);
  return verifyResultShape(*this, getResult(), expected);
}

/// One label per row of the logits.
static LogicalResult verifyLabels(Operation *op, Value logits, Value labels) {
  int64_t n = shapeOf(logits)[0], count = shapeOf(labels)[0];
  if (n != count)
    return op->emitOpError() << "'labels' has " << count
                             << " entries but 'logits' has " << n << " rows";
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  return verifyLabels(*this, getLogits(), getLabels());
}

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

LogicalResult ReluGradOp::verify() {
  Type xElement = getElementTypeOrSelf(getX().getType());
  if (!xElement.isInteger(1) && xElement != getElementTypeOrSelf(getDy()))
    return emitOpError() << "'x' must be an i1 mask or have the element type "
                         << "of 'dy'";
  return success();
}

LogicalResult ReduceMaxGradOp::verify() {
  return verifyReduction(*this, getX(), getY(), getDimensions(), "'y'");
}

LogicalResult SliceGradOp::verify() {
  ArrayRef<int64_t> full = shapeOf(getResult()), part = shapeOf(getDy());
  ArrayRef<int64_t> offsets = getOffsets();
  if (part.size() != full.size() || offsets.size() != full.size())
    return emitOpError() << "'dy', 'offsets' and the result must have the "
                         << "same rank";
  for (size_t d = 0; d < full.size(); ++d)
    if (offsets[d] < 0 || part[d] < 1 || part[d] > full[d] ||
        offsets[d] > full[d] - part[d])
      return emitOpError() << "'dy' placed at offset " << offsets[d]
                           << " of dimension " << d
                           << " does not fit the result (size " << full[d]
                           << ")";
  return success();
}

LogicalResult SoftmaxGradOp::verify() {
  return verifyAxis(*this, getAxis(), shapeOf(getY()).size());
}

LogicalResult DropoutGradOp::verify() { return verifyRatio(*this, getRatio()); }

LogicalResult EmbeddingGradOp::verify() {
  SmallVector<int64_t> expected(shapeOf(getIds()));
  expected.push_back(shapeOf(getResult())[1]);
  return verifyResultShape(*this, getDy(), expected, "'dy'");
}

LogicalResult CrossEntropyGradOp::verify() {
  return verifyLabels(*this, getLogits(), getLabels());
}

LogicalResult Conv2DGradInputOp::verify() {
  FailureOr<SmallVector<int64_t>> shape =
      inferConvShape(*this, shapeOf(getResult()), shapeOf(getW()), getStrides(),
                     getPadding(), "result", "w");
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getDy(), *shape, "'dy'");
}

int64_t Conv2DGradInputOp::estimateFlops() {
  return convFlops(shapeOf(getResult()), shapeOf(getW()), shapeOf(getDy()));
}

LogicalResult Conv2DGradFilterOp::verify() {
  FailureOr<SmallVector<int64_t>> shape =
      inferConvShape(*this, shapeOf(getX()), shapeOf(getResult()), getStrides(),
                     getPadding(), "x", "result");
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getDy(), *shape, "'dy'");
}

int64_t Conv2DGradFilterOp::estimateFlops() {
  return convFlops(shapeOf(getX()), shapeOf(getResult()), shapeOf(getDy()));
}

LogicalResult MaxPool2DGradOp::verify() {
  FailureOr<SmallVector<int64_t>> shape = inferPoolShape(
      *this, shapeOf(getX()), getKernel(), getStrides(), getPadding());
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getDy(), *shape, "'dy'");
}

int64_t MaxPool2DGradOp::estimateFlops() {
  return poolFlops(getDy(), getKernel());
}

LogicalResult AvgPool2DGradOp::verify() {
  FailureOr<SmallVector<int64_t>> shape = inferPoolShape(
      *this, shapeOf(getResult()), getKernel(), getStrides(), getPadding());
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getDy(), *shape, "'dy'");
}

int64_t AvgPool2DGradOp::estimateFlops() {
  return poolFlops(getDy(), getKernel());
}

LogicalResult BatchNormGradOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon())))
    return failure();
  int64_t rank = shapeOf(getX()).size();
  if (rank != 2 && rank != 4)
    return emitOpError() << "'x' must have rank 2 or 4, got " << rank;
  return verifyAffineParams(*this, getGamma(), Value(), shapeOf(getX())[1],
                            "channels (dimension 1)");
}

LogicalResult LayerNormGradOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon())))
    return failure();
  if (shapeOf(getX()).empty())
    return emitOpError() << "'x' must have rank >= 1";
  return verifyAffineParams(*this, getGamma(), Value(), shapeOf(getX()).back(),
                            "features (last dimension)");
}

//===----------------------------------------------------------------------===//
// Masks
//===----------------------------------------------------------------------===//

static int64_t packedBytes(int64_t bits) { return (bits + 7) / 8; }

LogicalResult PackMaskOp::verify() {
  int64_t expected = packedBytes(numElements(getMask()));
  if (shapeOf(getResult())[0] != expected)
    return emitOpError() << "a mask of " << numElements(getMask())
                         << " elements packs into " << expected
                         << " bytes, but the result has "
                         << shapeOf(getResult())[0];
  return success();
}

LogicalResult UnpackMaskOp::verify() {
  int64_t expected = packedBytes(numElements(getResult()));
  if (shapeOf(getPacked())[0] != expected)
    return emitOpError() << "a mask of " << numElements(getResult())
                         << " elements needs " << expected
                         << " packed bytes, but 'packed' has "
                         << shapeOf(getPacked())[0];
  return success();
}

//===----------------------------------------------------------------------===//
// RecomputeOp
//===----------------------------------------------------------------------===//

void RecomputeOp::build(OpBuilder &builder, OperationState &state,
                        TypeRange resultTypes, ValueRange inputs) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

YieldOp RecomputeOp::getYield() {
  return dyn_cast<YieldOp>(getBodyBlock().getTerminator());
}

LogicalResult RecomputeOp::verify() {
  if (getResults().empty())
    return emitOpError() << "must recompute at least one value";
  return success();
}

LogicalResult RecomputeOp::verifyRegions() {
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "body takes " << block.getNumArguments()
                         << " argument(s) but the op has " << getInputs().size()
                         << " input(s)";
  for (auto [i, arg, input] :
       llvm::enumerate(block.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << " but input #" << i
                           << " has type " << input.getType();
  YieldOp yield = getYield();
  if (!yield)
    return emitOpError() << "body must end with 'echo.yield'";
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " value(s) of types "
                         << yield.getValues().getTypes()
                         << " but the op has result types " << getResultTypes();
  return success();
}

int64_t RecomputeOp::estimateFlops() {
  int64_t total = 0;
  for (Operation &op : getBodyBlock())
    total += echo::estimateFlops(&op);
  return total;
}

/// Custom form:
///   echo.recompute (%a, %b) : (tensor<..>, tensor<..>) -> tensor<..> {
///   ^bb0(%x: tensor<..>, %y: tensor<..>):
///     ...
///     echo.yield %r : tensor<..>
///   }
ParseResult RecomputeOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> inputs;
  SmallVector<Type> inputTypes, resultTypes;
  SMLoc inputsLoc = parser.getCurrentLocation();
  if (parser.parseOperandList(inputs, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseColon() || parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen())) {
    if (parser.parseTypeList(inputTypes) || parser.parseRParen())
      return failure();
  }
  if (parser.parseArrow())
    return failure();
  if (succeeded(parser.parseOptionalLParen())) {
    if (failed(parser.parseOptionalRParen()) &&
        (parser.parseTypeList(resultTypes) || parser.parseRParen()))
      return failure();
  } else {
    Type type;
    if (parser.parseType(type))
      return failure();
    resultTypes.push_back(type);
  }
  if (parser.resolveOperands(inputs, inputTypes, inputsLoc, result.operands))
    return failure();
  result.addTypes(resultTypes);
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, /*arguments=*/{},
                         /*enableNameShadowing=*/false))
    return failure();
  if (body->empty())
    return parser.emitError(inputsLoc, "expected a non-empty body");
  return success();
}

void RecomputeOp::print(OpAsmPrinter &p) {
  p << " (";
  p.printOperands(getInputs());
  p << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  p << " : (";
  llvm::interleaveComma(getInputs().getTypes(), p);
  p << ") -> ";
  if (getNumResults() == 1)
    p << getResult(0).getType();
  else {
    p << "(";
    llvm::interleaveComma(getResultTypes(), p);
    p << ")";
  }
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true,
                /*printBlockTerminators=*/true);
}

#define GET_OP_CLASSES
#include "echo/Dialect/Echo/IR/EchoOps.cpp.inc"

//===----------------------------------------------------------------------===//
// IndexOperandOpInterface
//===----------------------------------------------------------------------===//

int64_t EmbeddingOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 0 ? getTable().getType().getDimSize(0) : 0;
}

int64_t EmbeddingGradOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 0 ? getType().getDimSize(0) : 0;
}

int64_t CrossEntropyOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? getLogits().getType().getDimSize(1) : 0;
}

int64_t CrossEntropyGradOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? getLogits().getType().getDimSize(1) : 0;
}
