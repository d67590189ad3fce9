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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::echo {

/// The CPU runtime's entry point that runs a kernel's part
/// (EchoDialect::getParallelPartAttrName()) on its threads.
inline constexpr llvm::StringLiteral kParallelForFunction =
    "echo_cpu_parallel_for";

#define GEN_PASS_DECL
#include "echo/Target/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "echo/Target/CPU/Passes.h.inc"

} // namespace mlir::echo

#endif // ECHO_TARGET_CPU_PASSES_H
