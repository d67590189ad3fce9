//===- EchoInterfaces.h - Echo op interfaces --------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_H
#define ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::echo::detail {
/// Returns `flopsPerElement` times the element count of the largest tensor
/// among the operands and results of `op`.
int64_t estimatePerElementFlops(Operation *op, int64_t flopsPerElement);
} // namespace mlir::echo::detail

namespace mlir::echo {
/// Builds `value > 0` (`arith.cmpf ogt` against a zero of `value`'s type, a
/// float scalar or a float tensor): the 1-bit predicate ReLU's gradient
/// reads. Spelled once, here, for the interface's buildGradientReadMask and
/// for the lowering of `relu`/`relu_grad`.
Value buildPositiveMask(OpBuilder &builder, Location loc, Value value);
} // namespace mlir::echo

#include "echo/Dialect/Echo/IR/EchoInterfaces.h.inc"

namespace mlir::echo {
/// Returns the FLOP estimate of `op`: its CostOpInterface estimate, the sum
/// over nested ops for ops with regions, and 0 for other ops.
int64_t estimateFlops(Operation *op);

/// Returns true when `op` is compute-heavy according to CostOpInterface.
bool isComputeHeavy(Operation *op);

/// Returns true when a result of `op` is a stochastic mask according to
/// DifferentiableOpInterface (dropout).
bool producesStochasticMask(Operation *op);
} // namespace mlir::echo

#endif // ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_H
