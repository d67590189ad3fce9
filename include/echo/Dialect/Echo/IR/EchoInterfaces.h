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

#include "echo/Dialect/Echo/IR/EchoInterfaces.h.inc"

namespace mlir::echo {
/// Returns the FLOP estimate of `op`: its CostOpInterface estimate, the sum
/// over nested ops for ops with regions, and 0 for other ops.
int64_t estimateFlops(Operation *op);

/// Returns true when `op` is compute-heavy according to CostOpInterface.
bool isComputeHeavy(Operation *op);
} // namespace mlir::echo

#endif // ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_H
