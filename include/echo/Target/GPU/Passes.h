//===- Passes.h - Echo's GPU passes -----------------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// The passes of the target=nvvm lowering (declared in Passes.td): splat
// constants filled in device memory, linalg mapped onto blocks and threads,
// and the outlined kernels merged into one gpu.module.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TARGET_GPU_PASSES_H
#define ECHO_TARGET_GPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::echo {

#define GEN_PASS_DECL
#include "echo/Target/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "echo/Target/GPU/Passes.h.inc"

} // namespace mlir::echo

#endif // ECHO_TARGET_GPU_PASSES_H
