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
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

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

LogicalResult mlir::echo::detail::verifyClampBounds(Operation *op, APFloat min,
                                                    APFloat max) {
  double lo = min.convertToDouble(), hi = max.convertToDouble();
  // Written so that a NaN bound fails too.
  if (!(lo <= hi))
    return op->emitOpError()
           << "'min' (" << llvm::formatv("{0}", lo)
           << ") must be at most 'max' (" << llvm::formatv("{0}", hi) << ")";
  return success();
}

/// Output extent of a sliding window; < 1 when the window does not fit, none
/// when the arithmetic overflows int64 (absurd padding or window sizes).
/// `ceilMode` is PyTorch's pooling rule: the extent rounds up, but a last
/// window that would start inside the far padding is dropped.
static std::optional<int64_t> windowOutputSize(int64_t input, int64_t window,
                                               int64_t stride, int64_t padding,
                                               bool ceilMode) {
  std::optional<int64_t> padded = llvm::checkedMul<int64_t>(2, padding);
  if (padded)
    padded = llvm::checkedAdd(input, *padded);
  std::optional<int64_t> span =
      padded ? llvm::checkedSub(*padded, window) : std::nullopt;
  if (!span)
    return std::nullopt;
  if (!ceilMode)
    return *span < 0 ? 0 : *span / stride + 1;
  // PyTorch's pooling_output_shape: floor((span + stride - 1) / stride) + 1
  // (rounding toward -inf), then one less if the last window would start at
  // or past the input's end plus the near padding.
  std::optional<int64_t> rounded = llvm::checkedAdd(*span, stride - 1);
  if (!rounded)
    return std::nullopt;
  int64_t out = llvm::divideFloorSigned(*rounded, stride) + 1;
  // (out - 1) * stride <= span + stride - 1 < padded: no overflow.
  if (out >= 1 && (out - 1) * stride >= input + padding)
    --out;
  return out;
}

/// The [OH, OW] extents of a `what` ("filter", "window") of `kh` x `kw`
/// sliding over the spatial dims of `xShape` (NCHW); reports one that
/// overflows int64 or does not fit the padded input.
static FailureOr<std::pair<int64_t, int64_t>>
inferWindowExtents(Operation *op, StringRef what, ArrayRef<int64_t> xShape,
                   int64_t kh, int64_t kw, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> padding, bool ceilMode = false) {
  std::optional<int64_t> oh =
      windowOutputSize(xShape[2], kh, strides[0], padding[0], ceilMode);
  std::optional<int64_t> ow =
      windowOutputSize(xShape[3], kw, strides[1], padding[1], ceilMode);
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
    ArrayRef<int64_t> strides, ArrayRef<int64_t> padding, bool ceilMode) {
  for (int i = 0; i < 2; ++i)
    if (padding[i] >= kernel[i])
      return op->emitOpError()
             << "'padding' " << padding[i] << " must be smaller than the "
             << "kernel size " << kernel[i];
  auto extents = inferWindowExtents(op, "window", xShape, kernel[0], kernel[1],
                                    strides, padding, ceilMode);
  if (failed(extents))
    return failure();
  return SmallVector<int64_t>{xShape[0], xShape[1], extents->first,
                              extents->second};
}

LogicalResult mlir::echo::detail::verifyBroadcastDims(Operation *op,
                                                      ArrayRef<int64_t> dims,
                                                      int64_t rank) {
  if (failed(verifyDimensionList(op, dims, rank, "broadcast_dims")))
    return failure();
  // Sharing one decision along every dim would make the op drop all of x or
  // none of it, which is not dropout.
  if (rank > 0 && static_cast<int64_t>(dims.size()) == rank)
    return op->emitOpError() << "'broadcast_dims' names every dimension of "
                                "'x'; at least one must keep its own draws";
  return success();
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

LogicalResult mlir::echo::detail::verifyCrossEntropy(
    Operation *op, Value logits, Value labels,
    std::optional<APFloat> labelSmoothing) {
  if (shapeOf(logits)[1] < 1)
    return op->emitOpError()
           << "'logits' has no classes (dim 1 is 0): a cross-entropy over 0 "
              "classes has no value";
  if (labelSmoothing) {
    double e = labelSmoothing->convertToDouble();
    // Written so that NaN fails too.
    if (!(e >= 0.0 && e <= 1.0))
      return op->emitOpError() << "'label_smoothing' must be in [0, 1], got "
                               << llvm::formatv("{0}", e);
  }
  return verifyLabels(op, logits, labels);
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

/// The total length of the windows of an adaptive pooling from `in` to
/// `out` positions, Σ_i (ceil((i+1)·in/out) − floor(i·in/out)): the windows
/// tile [0, in), and consecutive windows share a position wherever (i+1)·in
/// is not a multiple of out, which happens for all but gcd(in, out) − 1 of
/// the out − 1 boundaries. In closed form, so that its cost is O(1) for any
/// verified shape.
static int64_t adaptiveWindowTotal(int64_t in, int64_t out) {
  return in + out - std::gcd(in, out);
}

int64_t mlir::echo::detail::adaptivePoolFlops(Value input, Value output) {
  ArrayRef<int64_t> x = shapeOf(input), y = shapeOf(output);
  // One add per window position, one division per output element.
  return x[0] * x[1] * adaptiveWindowTotal(x[2], y[2]) *
             adaptiveWindowTotal(x[3], y[3]) +
         numElements(output);
}
