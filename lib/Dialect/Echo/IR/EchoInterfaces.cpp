//===- EchoInterfaces.cpp - Echo op interfaces ------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

#include "echo/Dialect/Echo/IR/EchoInterfaces.cpp.inc"

int64_t mlir::echo::detail::estimatePerElementFlops(Operation *op,
                                                    int64_t flopsPerElement) {
  int64_t largest = 0;
  auto visit = [&](Type type) {
    if (auto shaped = dyn_cast<ShapedType>(type);
        shaped && shaped.hasStaticShape())
      largest = std::max(largest, shaped.getNumElements());
  };
  for (Type type : op->getOperandTypes())
    visit(type);
  for (Type type : op->getResultTypes())
    visit(type);
  return flopsPerElement * largest;
}

int64_t mlir::echo::estimateFlops(Operation *op) {
  if (auto cost = dyn_cast<echo::CostOpInterface>(op))
    return cost.estimateFlops();
  int64_t total = 0;
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps())
      total += estimateFlops(&nested);
  return total;
}

bool mlir::echo::isComputeHeavy(Operation *op) {
  auto cost = dyn_cast<echo::CostOpInterface>(op);
  return cost && cost.isComputeHeavy();
}

bool mlir::echo::producesStochasticMask(Operation *op) {
  auto diff = dyn_cast<echo::DifferentiableOpInterface>(op);
  if (!diff)
    return false;
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
    if (diff.isStochasticMaskResult(i))
      return true;
  return false;
}

Value mlir::echo::buildPositiveMask(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  TypedAttr zero;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    zero =
        DenseElementsAttr::get(tensor, b.getZeroAttr(tensor.getElementType()));
  else
    zero = b.getFloatAttr(type, 0.0);
  Value zeroValue = arith::ConstantOp::create(b, loc, zero);
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, value,
                               zeroValue);
}
