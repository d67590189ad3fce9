//===- EchoDialect.cpp - Echo dialect ---------------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::echo;

#include "echo/Dialect/Echo/IR/EchoOpsDialect.cpp.inc"

void EchoDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "echo/Dialect/Echo/IR/EchoOps.cpp.inc"
      >();
}

/// `echo.train_step` is a unit attribute on a `func.func`.
LogicalResult EchoDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getTrainStepAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getTrainStepAttrName()
                             << "' must be a unit attribute";
    if (!isa<func::FuncOp>(op))
      return op->emitError() << "'" << getTrainStepAttrName()
                             << "' may only be attached to a func.func";
    return success();
  }
  return op->emitError() << "unknown echo attribute '" << attr.getName()
                         << "' on an operation";
}

/// `echo.param` is a unit attribute on an argument of a `func.func`.
LogicalResult EchoDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() != getParamAttrName())
    return op->emitError() << "unknown echo argument attribute '"
                           << attr.getName() << "' on argument " << argIndex;
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << getParamAttrName() << "' on argument "
                           << argIndex << " must be a unit attribute";
  if (!isa<func::FuncOp>(op))
    return op->emitError() << "'" << getParamAttrName()
                           << "' may only mark arguments of a func.func";
  auto type = dyn_cast<RankedTensorType>(
      op->getRegion(regionIndex).getArgument(argIndex).getType());
  if (!type || !type.hasStaticShape() ||
      !isa<FloatType>(type.getElementType()))
    return op->emitError() << "parameter argument " << argIndex
                           << " must be a statically shaped floating-point "
                              "tensor";
  return success();
}
