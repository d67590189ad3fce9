//===- Passes.h - Echo's CPU passes -----------------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// The passes of the target=cpu lowering (declared in Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TARGET_CPU_PASSES_H
#define ECHO_TARGET_CPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::echo {

#define GEN_PASS_DECL
#include "echo/Target/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "echo/Target/CPU/Passes.h.inc"

} // namespace mlir::echo

#endif // ECHO_TARGET_CPU_PASSES_H
