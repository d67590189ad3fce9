//===- EchoOpUtils.cpp - Helpers shared by the op verifiers ---------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "EchoOpUtils.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> mlir::echo::detail::shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

int64_t mlir::echo::detail::numElements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

std::string mlir::echo::detail::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

SmallVector<int64_t> mlir::echo::detail::removeDims(ArrayRef<int64_t> shape,
                                                    ArrayRef<int64_t> dims) {
  SmallVector<int64_t> result;
  for (auto [i, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
      result.push_back(size);
  return result;
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

LogicalResult mlir::echo::detail::verifyResultShape(Operation *op, Value result,
                                                    ArrayRef<int64_t> expected,
                                                    StringRef name) {
  if (shapeOf(result) == expected)
    return success();
  return op->emitOpError() << name << " has shape "
                           << formatShape(shapeOf(result)) << " but "
                           << formatShape(expected) << " was expected";
}

LogicalResult mlir::echo::detail::verifyDimensionList(Operation *op,
                                                      ArrayRef<int64_t> dims,
                                                      int64_t rank,
                                                      StringRef attrName) {
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

LogicalResult mlir::echo::detail::verifyAxis(Operation *op, int64_t axis,
                                             int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << "'axis' " << axis << " is out of range [0, " << rank << ")";
  return success();
}

LogicalResult mlir::echo::detail::verifyReduction(Operation *op, Value x,
                                                  Value result,
                                                  ArrayRef<int64_t> dims,
                                                  StringRef resultName) {
  if (failed(verifyDimensionList(op, dims, shapeOf(x).size(), "dimensions")))
    return failure();
  return verifyResultShape(op, result, removeDims(shapeOf(x), dims),
                           resultName);
}

LogicalResult mlir::echo::detail::verifyEpsilon(Operation *op,
                                                APFloat epsilon) {
  if (!epsilon.isFinite() || !(epsilon.convertToDouble() > 0.0))
    return op->emitOpError() << "'epsilon' must be positive and finite";
  return success();
}

LogicalResult mlir::echo::detail::verifyRatio(Operation *op, APFloat ratio) {
  double value = ratio.convertToDouble();
  if (!(value >= 0.0 && value < 1.0))
    return op->emitOpError()
           << "'ratio' must be in [0, 1), got " << llvm::formatv("{0}", value);
  return success();
}

/// Output extent of a sliding window; < 1 when the window does not fit, none
/// when the arithmetic overflows int64 (absurd padding or window sizes).
static std::optional<int64_t> windowOutputSize(int64_t input, int64_t window,
                                               int64_t stride,
                                               int64_t padding) {
  std::optional<int64_t> padded = llvm::checkedMul<int64_t>(2, padding);
  if (padded)
    padded = llvm::checkedAdd(input, *padded);
  std::optional<int64_t> span =
      padded ? llvm::checkedSub(*padded, window) : std::nullopt;
  if (!span)
    return std::nullopt;
  if (*span < 0)
    return 0;
  return *span / stride + 1;
}

/// The [OH, OW] extents of a `what` ("filter", "window") of `kh` x `kw`
/// sliding over the spatial dims of `xShape` (NCHW); reports one that
/// overflows int64 or does not fit the padded input.
static FailureOr<std::pair<int64_t, int64_t>>
inferWindowExtents(Operation *op, StringRef what, ArrayRef<int64_t> xShape,
                   int64_t kh, int64_t kw, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> padding) {
  std::optional<int64_t> oh =
      windowOutputSize(xShape[2], kh, strides[0], padding[0]);
  std::optional<int64_t> ow =
      windowOutputSize(xShape[3], kw, strides[1], padding[1]);
  if (!oh || !ow)
    return op->emitOpError() << "the " << kh << "x" << kw << " " << what
                             << " with its padding overflows int64";
  if (*oh < 1 || *ow < 1)
    return op->emitOpError() << "the " << kh << "x" << kw << " " << what
                             << " does not fit the padded " << xShape[2] << "x"
                             << xShape[3] << " input";
  return std::make_pair(*oh, *ow);
}

FailureOr<SmallVector<int64_t>> mlir::echo::detail::inferConvShape(
    Operation *op, ArrayRef<int64_t> xShape, ArrayRef<int64_t> wShape,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> padding, int64_t groups,
    StringRef xName, StringRef wName) {
  // Divisibility first: afterwards groups <= C, and C / groups is exact.
  if (xShape[1] % groups != 0)
    return op->emitOpError()
           << "'" << xName << "' has " << xShape[1]
           << " channels, which 'groups' " << groups << " does not divide";
  if (wShape[0] % groups != 0)
    return op->emitOpError()
           << "'" << wName << "' has " << wShape[0]
           << " filters, which 'groups' " << groups << " does not divide";
  if (groups == 1 && xShape[1] != wShape[1])
    return op->emitOpError()
           << "'" << wName << "' has " << wShape[1] << " input channels but '"
           << xName << "' has " << xShape[1];
  if (xShape[1] / groups != wShape[1])
    return op->emitOpError()
           << "'" << wName << "' has " << wShape[1]
           << " input channels per group but '" << xName << "' has "
           << xShape[1] << " in " << groups << " groups (" << xShape[1] / groups
           << " per group)";
  auto extents = inferWindowExtents(op, "filter", xShape, wShape[2], wShape[3],
                                    strides, padding);
  if (failed(extents))
    return failure();
  return SmallVector<int64_t>{xShape[0], wShape[0], extents->first,
                              extents->second};
}

FailureOr<SmallVector<int64_t>> mlir::echo::detail::inferPoolShape(
    Operation *op, ArrayRef<int64_t> xShape, ArrayRef<int64_t> kernel,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> padding) {
  for (int i = 0; i < 2; ++i)
    if (padding[i] >= kernel[i])
      return op->emitOpError()
             << "'padding' " << padding[i] << " must be smaller than the "
             << "kernel size " << kernel[i];
  auto extents = inferWindowExtents(op, "window", xShape, kernel[0], kernel[1],
                                    strides, padding);
  if (failed(extents))
    return failure();
  return SmallVector<int64_t>{xShape[0], xShape[1], extents->first,
                              extents->second};
}

LogicalResult mlir::echo::detail::verifyAffineParams(Operation *op, Value gamma,
                                                     Value beta,
                                                     int64_t channels,
                                                     StringRef what) {
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

LogicalResult mlir::echo::detail::verifyLabels(Operation *op, Value logits,
                                               Value labels) {
  int64_t n = shapeOf(logits)[0], count = shapeOf(labels)[0];
  if (n != count)
    return op->emitOpError() << "'labels' has " << count
                             << " entries but 'logits' has " << n << " rows";
  return success();
}

//===----------------------------------------------------------------------===//
// FLOP estimates
//===----------------------------------------------------------------------===//

int64_t mlir::echo::detail::convFlops(ArrayRef<int64_t> xShape,
                                      ArrayRef<int64_t> wShape,
                                      ArrayRef<int64_t> yShape) {
  return 2 * yShape[0] * yShape[1] * yShape[2] * yShape[3] * wShape[1] *
         wShape[2] * wShape[3];
}

int64_t mlir::echo::detail::poolFlops(Value output, ArrayRef<int64_t> kernel) {
  return numElements(output) * kernel[0] * kernel[1];
}
