//===- GradientCheck.h - Gradients against finite differences ---*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_GRADIENTCHECK_H
#define ECHO_RUNNER_GRADIENTCHECK_H

#include "echo/Runner/HostTensor.h"
#include "echo/Runner/Jit.h"

namespace mlir::echo {

/// Options of checkGradients.
struct GradientCheckOptions {
  /// Largest accepted norm-wise relative error of a parameter's gradient.
  double tolerance = 1e-3;
  /// Elements per parameter checked (0 = all); sampled from `seed`.
  unsigned samples = 64;
  uint64_t seed = 0;
};

/// Compares `grads` (the step's f32 gradients of the parameters at
/// `paramArgs`) with central differences of the f64 loss computed by
/// `forward64` (the model re-typed to f64) at `args64`, with a step of 1e-5
/// relative to each element. An element whose one-sided differences
/// disagree beyond rounding sits on a kink of the loss (a ReLU or max switching
/// within the step): it is retried with a step 100x smaller, then left out.
/// Prints one line per parameter; fails naming each parameter beyond the
/// tolerance, or with half of its elements or more on kinks.
LogicalResult checkGradients(JitStep &forward64, ArrayRef<HostTensor> args64,
                             ArrayRef<unsigned> paramArgs,
                             ArrayRef<HostTensor> grads,
                             const GradientCheckOptions &options);

} // namespace mlir::echo

#endif // ECHO_RUNNER_GRADIENTCHECK_H
