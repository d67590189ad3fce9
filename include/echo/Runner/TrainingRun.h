//===- TrainingRun.h - Compile a model's step and train it ------*- C++ -*-===//
//
// Part of the Echo project.
//
// What `echo-run` does (SPEC.md), as a library: parse a model, draw its
// arguments from a seed (or read them from .npy files), compile its training
// step through the Echo pipelines, run steps on the CPU (JIT) or a GPU (the
// Echo CUDA runtime), and write the losses, the memory report and the
// first step's results. Or compile the step ahead of time (AotBundle.h).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_TRAININGRUN_H
#define ECHO_RUNNER_TRAININGRUN_H

#include "echo/Transforms/Options.h"

#include "mlir/IR/MLIRContext.h"

#include <string>

namespace mlir::echo {

/// Everything `echo-run` takes (its flags, see tools/echo-run).
struct TrainingRunOptions {
  std::string input;
  RecomputeStrategy strategy = RecomputeStrategy::Echo;
  Target target = Target::CPU;
  /// GEMMs and convolutions as runtime calls (echo-pipeline library-calls=).
  bool libraryCalls = true;
  /// The runtime libraries: target=cuda's, and target=cpu's for library
  /// calls.
  std::string cudaRuntime, cpuRuntime;
  unsigned steps = 1;
  uint64_t seed = 0;
  std::string function;
  Optimizer optimizer = Optimizer::None;
  /// echo-pipeline's precision= (echo-autocast before echo-autodiff).
  Precision precision = Precision::F32;
  double lr = 0.1;
  /// The hyperparameters of the optimizers inside the step (momentum, adam,
  /// adamw), torch.optim's defaults; the step takes them as arguments.
  double momentum = 0.9, beta1 = 0.9, beta2 = 0.999, eps = 1e-8,
         weightDecay = 0;
  bool checkGradients = false;
  double tolerance = 1e-3;
  unsigned checkSamples = 64;
  std::string report, inputs, dump;
  /// Where to write the f64 reference's first-step results (the gradient
  /// check's step: no recomputation, no library calls), as --dump does.
  std::string referenceDump;
  unsigned optLevel = 2;
  /// Verify the IR after every pass of the pipelines (echo-run
  /// --verify-each), not only after each pipeline.
  bool verifyEach = false;
  bool quiet = false;
  bool planBuffers = true;
  /// echo-pipeline's budget= (strategy budget).
  std::string budget;
  /// echo-pipeline's chunk-loss= (auto, off or a number of chunks).
  std::string chunkLoss = "auto";
  /// echo-pipeline's offload= and link-bandwidth=.
  OffloadPolicy offload = OffloadPolicy::None;
  double linkBandwidth = 25.0;
  /// echo-pipeline's compare-plans.
  unsigned comparePlans = 3;
  /// echo-pipeline's peak-gflops= and memory-gbps= (the time model
  /// recomputation is priced in; echo-run takes them from --machine).
  double peakGflops = 100.0, memoryGbps = 20.0;
  /// --emit-aot: the bundle's directory, driver library and linker, and the
  /// CPU runtime's archive a CPU bundle with library calls links.
  std::string emitAot, stepMainLibrary, aotCxx, cpuRuntimeArchive;
  /// --emit-library: the directory of DIR/libechostep.so, and the step
  /// library's C front (libEchoStepLibrary.a) it links.
  std::string emitLibrary, stepLibrary;
};

/// Runs `options` in `context` (which must have the dialects and LLVM
/// translations registered); returns the process exit code.
int runTraining(MLIRContext &context, const TrainingRunOptions &options);

} // namespace mlir::echo

#endif // ECHO_RUNNER_TRAININGRUN_H
