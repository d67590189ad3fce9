//===- Passes.h - Echo conversion passes ------------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_CONVERSION_PASSES_H
#define ECHO_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace echo {

#define GEN_PASS_DECL
#include "echo/Conversion/Passes.h.inc"

/// Adds the patterns that lower each Echo op (except `echo.recompute`, which
/// is inlined by `inlineRecomputeRegions`) to linalg/tensor/arith/math/scf.
void populateEchoToLinalgPatterns(RewritePatternSet &patterns);

/// Replaces every `echo.recompute` under `root` by the ops of its region.
void inlineRecomputeRegions(Operation *root);

#define GEN_PASS_REGISTRATION
#include "echo/Conversion/Passes.h.inc"

} // namespace echo
} // namespace mlir

#endif // ECHO_CONVERSION_PASSES_H
