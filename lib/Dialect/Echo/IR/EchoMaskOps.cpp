//===- EchoMaskOps.cpp - Masks computed from positions ----------*- C++ -*-===//
//
// Part of the Echo project.
//
// The ops of EchoMaskOps.td: the verifier of echo.triangle (what its type
// constraint cannot say) and its vector-Jacobian product (none: it has no
// operand). The generated op classes are defined in EchoOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::echo;

LogicalResult TriangleOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (type.getRank() < 2)
    return emitOpError() << "result has rank " << type.getRank()
                         << "; a triangle needs at least 2 dims";
  if (type.getElementType().isInteger(1)) {
    for (auto [name, value] :
         {std::pair{"inside", getInside()}, {"outside", getOutside()}}) {
      double v = value.convertToDouble();
      if (v != 0.0 && v != 1.0)
        return emitOpError()
               << "an i1 result takes '" << name << "' as 0 or 1, not " << v;
    }
  }
  return success();
}

LogicalResult TriangleOp::buildGradient(OpBuilder &, ValueRange,
                                        SmallVectorImpl<Value> &grads) {
  grads.clear();
  return success();
}
