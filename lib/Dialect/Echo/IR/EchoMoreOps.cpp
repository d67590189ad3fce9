//===- EchoMoreOps.cpp - Stop-gradient, sinusoids, resampling ---*- C++ -*-===//
//
// Part of the Echo project.
//
// Verifiers, custom FLOP counts and vector-Jacobian products of the ops of
// EchoMoreOps.td. The generated op classes are defined in EchoOps.cpp; the
// gradients read exactly the forward values the ops list in EchoMoreOps.td.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "EchoOpUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

/// Fills `grads` with null values, one per operand of `op`, and returns the
/// adjoint of its first result (null when there is none).
static Value prepare(Operation *op, ValueRange resultGrads,
                     SmallVectorImpl<Value> &grads) {
  grads.assign(op->getNumOperands(), Value());
  return resultGrads.empty() ? Value() : resultGrads[0];
}

//===----------------------------------------------------------------------===//
// Stop-gradient and sinusoids
//===----------------------------------------------------------------------===//

LogicalResult StopGradientOp::buildGradient(OpBuilder &b,
                                            ValueRange resultGrads,
                                            SmallVectorImpl<Value> &grads) {
  // The operand's adjoint gets nothing.
  (void)prepare(*this, resultGrads, grads);
  return success();
}

LogicalResult SinOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  // PyTorch's sin_backward: grad · cos(x).
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = MulOp::create(b, getLoc(), dy, CosOp::create(b, getLoc(), getX()));
  return success();
}

LogicalResult CosOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  // PyTorch's cos_backward: grad · −sin(x).
  if (Value dy = prepare(*this, resultGrads, grads)) {
    Value negSin =
        NegOp::create(b, getLoc(), SinOp::create(b, getLoc(), getX()));
    grads[0] = MulOp::create(b, getLoc(), dy, negSin);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Transposed convolution
//===----------------------------------------------------------------------===//

/// The extent (in − 1)·stride − 2·padding + kernel + outputPadding of a
/// transposed convolution along one axis, or none on int64 overflow.
static std::optional<int64_t> transposedExtent(int64_t in, int64_t stride,
                                               int64_t padding, int64_t kernel,
                                               int64_t outputPadding) {
  std::optional<int64_t> grown = llvm::checkedMul<int64_t>(in - 1, stride);
  std::optional<int64_t> cropped = llvm::checkedMul<int64_t>(2, padding);
  if (!grown || !cropped)
    return std::nullopt;
  std::optional<int64_t> extent = llvm::checkedSub(*grown, *cropped);
  if (extent)
    extent = llvm::checkedAdd(*extent, kernel);
  if (extent)
    extent = llvm::checkedAdd(*extent, outputPadding);
  return extent;
}

LogicalResult ConvTranspose2DOp::verify() {
  ArrayRef<int64_t> x = shapeOf(getX()), w = shapeOf(getW());
  auto groups = static_cast<int64_t>(getGroups());
  if (x[1] != w[0])
    return emitOpError() << "'w' has " << w[0]
                         << " input channels (its dim 0) but 'x' has " << x[1];
  if (x[1] % groups != 0)
    return emitOpError() << "'x' has " << x[1]
                         << " channels, which 'groups' " << groups
                         << " does not divide";
  SmallVector<int64_t, 2> outputPadding = getOutputPaddingOrZero();
  ArrayRef<int64_t> strides = getStrides(), padding = getPadding();
  SmallVector<int64_t> expected = {x[0], 0, 0, 0};
  // No overflow: 'groups' divides x's channels, which are w's dim 0, and
  // w's elements are bounded (the tensor byte bound the operand types pass).
  expected[1] = w[1] * groups;
  for (int i = 0; i < 2; ++i) {
    if (outputPadding[i] >= strides[i])
      return emitOpError() << "'output_padding' " << outputPadding[i]
                           << " must be smaller than the stride "
                           << strides[i];
    std::optional<int64_t> extent = transposedExtent(
        x[2 + i], strides[i], padding[i], w[2 + i], outputPadding[i]);
    if (!extent)
      return emitOpError() << "the output extent overflows int64";
    if (*extent < 1)
      return emitOpError() << "'padding' " << padding[i]
                           << " crops the whole output (its extent would be "
                           << *extent << ")";
    expected[2 + i] = *extent;
  }
  return verifyResultShape(*this, getResult(), expected);
}

int64_t ConvTranspose2DOp::estimateFlops() {
  // conv2d_grad_input's count, `x` in the place of `dy`.
  return convFlops(shapeOf(getResult()), shapeOf(getW()), shapeOf(getX()));
}

LogicalResult
ConvTranspose2DOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                 SmallVectorImpl<Value> &grads) {
  Value dy = prepare(*this, resultGrads, grads);
  if (!dy)
    return success();
  // y = conv2d_grad_input(w, x): the transposed convolution's adjoints are
  // the convolution of dy with w (for x, whose extent the floor of conv2d's
  // output size gives back: output_padding < strides) and that
  // convolution's filter gradient with dy and x in the roles of input and
  // output gradient (for w).
  grads[0] =
      Conv2DOp::create(b, getLoc(), getX().getType(), dy, getW(),
                       getStridesAttr(), getPaddingAttr(), getGroupsAttr());
  grads[1] = Conv2DGradFilterOp::create(b, getLoc(), getW().getType(), dy,
                                        getX(), getStridesAttr(),
                                        getPaddingAttr(), getGroupsAttr());
  return success();
}

//===----------------------------------------------------------------------===//
// Upsampling
//===----------------------------------------------------------------------===//

/// The checks every upsampling op and gradient shares: `input` is the
/// forward input's type ('x', or the gradient's result), `output` the
/// forward result's ('result', or 'dy').
static LogicalResult verifyUpsample(Operation *op, Value input, Value output,
                                    StringRef inputName, StringRef outputName,
                                    std::optional<APFloat> scalesH,
                                    std::optional<APFloat> scalesW,
                                    bool alignCorners) {
  ArrayRef<int64_t> in = shapeOf(input), out = shapeOf(output);
  if (in[0] != out[0] || in[1] != out[1])
    return op->emitOpError()
           << outputName << " has shape " << formatShape(out) << " but "
           << inputName << " has " << formatShape(in)
           << ": batch and channels must agree";
  for (int i = 2; i < 4; ++i)
    if (in[i] < 1 || out[i] < 1)
      return op->emitOpError()
             << "the spatial extents must be positive, got " << inputName
             << " " << formatShape(in) << " and " << outputName << " "
             << formatShape(out);
  for (auto [name, scale] : {std::make_pair("scales_h", scalesH),
                             std::make_pair("scales_w", scalesW)}) {
    if (!scale)
      continue;
    if (alignCorners)
      return op->emitOpError()
             << "'" << name << "' cannot be given with 'align_corners' "
             << "(the corners set the source coordinates)";
    double value = scale->convertToDouble();
    // Written so that NaN fails too.
    if (!(value > 0.0 && std::isfinite(value)))
      return op->emitOpError() << "'" << name
                               << "' must be positive and finite, got "
                               << llvm::formatv("{0}", value);
  }
  return success();
}

LogicalResult UpsampleNearest2DOp::verify() {
  return verifyUpsample(*this, getX(), getResult(), "'x'", "result",
                        getScalesH(), getScalesW(),
                        /*alignCorners=*/false);
}

LogicalResult UpsampleBilinear2DOp::verify() {
  return verifyUpsample(*this, getX(), getResult(), "'x'", "result",
                        getScalesH(), getScalesW(),
                        getAlignCorners());
}

LogicalResult UpsampleNearest2DGradOp::verify() {
  return verifyUpsample(*this, getResult(), getDy(), "result", "'dy'",
                        getScalesH(), getScalesW(),
                        /*alignCorners=*/false);
}

LogicalResult UpsampleBilinear2DGradOp::verify() {
  return verifyUpsample(*this, getResult(), getDy(), "result", "'dy'",
                        getScalesH(), getScalesW(),
                        getAlignCorners());
}

LogicalResult
UpsampleNearest2DOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = UpsampleNearest2DGradOp::create(
        b, getLoc(), getX().getType(), dy, getScalesHAttr(), getScalesWAttr());
  return success();
}

LogicalResult
UpsampleBilinear2DOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                    SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = UpsampleBilinear2DGradOp::create(
        b, getLoc(), getX().getType(), dy, getScalesHAttr(), getScalesWAttr(),
        getAlignCornersAttr());
  return success();
}
