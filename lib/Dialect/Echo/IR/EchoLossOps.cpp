//===- EchoLossOps.cpp - Per-row losses -------------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// Verifiers, index bounds and the vector-Jacobian product of the ops of
// EchoLossOps.td. The generated op classes are defined in EchoOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "EchoOpUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

/// `value` (a result or a dloss) has the logits' element type or is f32.
static LogicalResult verifyRowsType(Operation *op, Value logits, Value value,
                                    StringRef what) {
  Type et = getElementTypeOrSelf(value.getType());
  if (et != getElementTypeOrSelf(logits.getType()) && !et.isF32())
    return op->emitOpError() << what << " must be f32 or of the logits' "
                             << "element type, not " << et;
  return verifyResultShape(op, value, {shapeOf(logits)[0]}, what);
}

LogicalResult CrossEntropyRowsOp::verify() {
  if (failed(verifyCrossEntropy(*this, getLogits(), getLabels(),
                                getLabelSmoothing())))
    return failure();
  return verifyRowsType(*this, getLogits(), getResult(), "result");
}

LogicalResult CrossEntropyRowsGradOp::verify() {
  if (failed(verifyCrossEntropy(*this, getLogits(), getLabels(),
                                getLabelSmoothing())))
    return failure();
  return verifyRowsType(*this, getLogits(), getDloss(), "'dloss'");
}

int64_t CrossEntropyRowsOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? getLogits().getType().getDimSize(1) : 0;
}

std::optional<int64_t>
CrossEntropyRowsOp::getIgnoredIndex(unsigned operandIndex) {
  return operandIndex == 1 ? getIgnoreIndex() : std::nullopt;
}

int64_t CrossEntropyRowsGradOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? getLogits().getType().getDimSize(1) : 0;
}

std::optional<int64_t>
CrossEntropyRowsGradOp::getIgnoredIndex(unsigned operandIndex) {
  return operandIndex == 1 ? getIgnoreIndex() : std::nullopt;
}

LogicalResult CrossEntropyRowsOp::buildGradient(OpBuilder &b,
                                                ValueRange resultGrads,
                                                SmallVectorImpl<Value> &grads) {
  grads.assign(getNumOperands(), Value());
  if (resultGrads.empty() || !resultGrads[0])
    return success();
  grads[0] = CrossEntropyRowsGradOp::create(
      b, getLoc(), getLogits().getType(), getLogits(), getLabels(),
      resultGrads[0], getIgnoreIndexAttr(), getLabelSmoothingAttr());
  return success();
}
