//===- FunctionRun.h - Run one function of a module -------------*- C++ -*-===//
//
// Part of the Echo project.
//
// What `echo-run --function=@f` does when @f is not an Echo model: run any
// statically shaped function once on the CPU (TOSA or linalg on tensors,
// or Echo ops), with its arguments read from .npy files or drawn from the
// seed, and write its results as .npy files. With `--loss=` or
// `--tangents=`, @f is a training step differentiated elsewhere: it is
// adopted and planned under a recompute strategy first
// (echo-foreign-step-pipeline, echo/Pipelines/ForeignStep.h), and the report
// puts the measured bytes beside the estimate and the buffer plan.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_FUNCTIONRUN_H
#define ECHO_RUNNER_FUNCTIONRUN_H

#include "echo/Runner/TrainingRun.h"

#include <string>
#include <vector>

namespace mlir::echo {

/// Everything `echo-run --function` takes besides TrainingRunOptions'.
struct FunctionRunOptions {
  /// echo-adopt-training-step's loss= (-1: not given) and tangents=.
  int64_t loss = -1;
  std::vector<int64_t> tangents;
  /// Whether --strategy (or --budget) was given: they apply to an adopted
  /// step only.
  bool strategyGiven = false;
  /// The flags given that only a training run takes (`--steps`,
  /// `--check-gradients`, ...), as `--name`: refused for a plain function.
  std::vector<std::string> trainingOnlyFlags;
};

/// Runs `training.function` of `training.input`: trains it with
/// runTraining when it is an Echo model and `options` names no split, else
/// runs it once as a function. Returns the process exit code.
int runFunction(MLIRContext &context, const TrainingRunOptions &training,
                const FunctionRunOptions &options);

} // namespace mlir::echo

#endif // ECHO_RUNNER_FUNCTIONRUN_H
