//===- GradientCheck.h - Gradients against f64 references -------*- C++ -*-===//
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
  /// Largest accepted norm-wise relative error of a parameter's gradient,
  /// against finite differences and against the f64 step.
  double tolerance = 1e-3;
  /// Elements per parameter checked by finite differences (0 = all);
  /// sampled from `seed`.
  unsigned samples = 64;
  uint64_t seed = 0;
};

/// The f64 references of a gradient check: the training step and the
/// forward pass of the same model, compiled in f64 (strategy none, no
/// library calls), and their arguments (the f32 run's, widened).
struct GradientReference {
  /// Returns (loss, gradient of each parameter, in order).
  JitStep *step64;
  /// Returns the loss.
  JitStep *forward64;
  ArrayRef<HostTensor> args64;
  ArrayRef<unsigned> paramArgs;
};

/// Checks the f32 step's gradients `grads` in two independent ways, so that
/// f32 rounding is never taken for a wrong gradient and a wrong gradient
/// is never excused as rounding:
///
/// 1. The mathematics: the f64 step's gradients against central
///    differences of the f64 loss at a step of 1e-5 relative to each
///    (sampled) element and at half that. Where the two differ, or the
///    one-sided differences show a kink at the element itself (a ReLU or a
///    max switching within the step), the element is retried at 1e-7, then
///    left out; otherwise the Richardson extrapolation of the two is the
///    numeric gradient.
/// 2. The f32 arithmetic: the f32 gradients against the f64 step's, on the
///    same inputs. The tolerance widens to what the problem's conditioning
///    allows: 30x the change in the f64 gradients when every f32 input
///    moves by one f32 rounding.
///
/// Both compare norms over a parameter's elements; a parameter whose
/// gradient is tiny next to the others' (a bias before a batch norm) is
/// compared against 1% of the step's root-mean-square gradient instead of
/// its own norm. Prints one line per parameter; fails naming each
/// parameter beyond the tolerance, or with half of its elements or more on
/// kinks.
LogicalResult checkGradients(const GradientReference &reference,
                             ArrayRef<HostTensor> grads,
                             const GradientCheckOptions &options);

} // namespace mlir::echo

#endif // ECHO_RUNNER_GRADIENTCHECK_H
