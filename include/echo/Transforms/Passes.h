//===- Passes.h - Echo transformation passes --------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TRANSFORMS_PASSES_H
#define ECHO_TRANSFORMS_PASSES_H

#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Transforms/LoweredSteps.h"
#include "echo/Transforms/Options.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::echo {

#define GEN_PASS_DECL
#include "echo/Transforms/Passes.h.inc"

/// echo-recompute whose echo strategy compares candidate steps on the step
/// bytes of the buffer plan `planPipeline` (on builtin.module, ending with
/// echo-plan-buffers) makes of each: the `plan-pipeline` option, built.
/// With `lowered`, the lowered candidates are kept there, for an
/// echo-reuse-lowered-steps of the same cache.
std::unique_ptr<Pass>
createEchoRecompute(const EchoRecomputeOptions &options,
                    OpPassManager planPipeline,
                    std::shared_ptr<LoweredStepCache> lowered = nullptr);

/// echo-reuse-lowered-steps running `lowering`, reusing the steps in
/// `cache` (see LoweredSteps.h).
std::unique_ptr<Pass>
createEchoReuseLoweredSteps(OpPassManager lowering,
                            std::shared_ptr<LoweredStepCache> cache);

/// Returns true when argument `index` of `func` is a trainable parameter
/// (carries `echo.param`).
bool isParamArgument(func::FuncOp func, unsigned index);

/// Returns true when `func` is subject to the model convention: it has a
/// body and is not itself a training step (`echo.train_step`).
bool isModelCandidate(func::FuncOp func);

/// Checks that `func` follows the model convention (see the
/// `echo-verify-model` pass) and emits an error at each violation.
LogicalResult verifyModelConvention(func::FuncOp func);

/// Writes the memory report (SPEC.md) of the training steps of `module` to
/// `output` ('-' = stdout).
LogicalResult writeMemoryReport(ModuleOp module, StringRef output);

#define GEN_PASS_REGISTRATION
#include "echo/Transforms/Passes.h.inc"

} // namespace mlir::echo

#endif // ECHO_TRANSFORMS_PASSES_H
