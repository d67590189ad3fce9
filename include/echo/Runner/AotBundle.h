//===- AotBundle.h - Ahead-of-time training-step executables ----*- C++ -*-===//
//
// Part of the Echo project.
//
// `echo-run --emit-aot=DIR`: the lowered step as an object file, linked
// with the MLIR-free driver of runtime/aot into DIR/echo-step, with
// DIR/manifest.txt (arguments, results, seed, optimizer) and
// DIR/memory.json (the memory report), for machines without MLIR. The
// object also carries both texts (`echo_step_signature`,
// `echo_step_memory_report`), against which echo-step checks the files
// before it runs anything.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_AOTBUNDLE_H
#define ECHO_RUNNER_AOTBUNDLE_H

#include "echo/Runner/HostTensor.h"
#include "echo/Transforms/Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir::echo {
namespace host {
struct StepManifest;
} // namespace host

/// One argument of the step as the driver draws it (EchoHostData.h).
struct AotArgument {
  bool isParam = false;
  /// For integer arguments: values are drawn in [0, range).
  int64_t range = 0;
  /// An optimizer's state (`echo.optimizer_state`): zeros at first.
  bool isState = false;
  /// An optimizer hyperparameter (`echo.hyper`): its name, else empty.
  std::string hyper;
  /// The step's random seed (`echo.rng_seed`): a fresh value every step.
  bool isSeed = false;
  /// For integer arguments: a value outside [0, range) that every use
  /// accepts too (a loss's ignore_index).
  std::optional<int64_t> ignored;
};

/// What a bundle holds.
struct AotBundleOptions {
  /// The output directory.
  std::string dir;
  /// The model's and the step function's symbol names.
  std::string model, entry;
  /// cpu: the host's own CPU; nvvm: generic x86-64 host code plus a copy of
  /// the CUDA runtime library `cudaRuntime`.
  Target target = Target::CPU;
  /// target=cuda: the chip the kernels were compiled for (echo-step checks
  /// the device against it).
  std::string chip = "sm_90";
  std::string cudaRuntime;
  /// target=cpu with library calls: the CPU runtime's archive, linked into
  /// the executable (empty: the step makes no library calls).
  std::string cpuRuntimeArchive;
  /// The driver library (libEchoStepMain.a, or libEchoStepLibrary.a for a
  /// shared library) and the C++ driver that links.
  std::string stepMainLibrary, cxx;
  /// Link DIR/libechostep.so (the C front of EchoStepLibrary.cpp, for a host
  /// program to load) instead of the executable DIR/echo-step.
  bool sharedLibrary = false;
  /// LLVM optimization level (0-3).
  unsigned optLevel = 2;
  /// The training the driver runs: seed of the data, what the step returns,
  /// the learning rate.
  uint64_t seed = 0;
  Optimizer optimizer = Optimizer::None;
  double lr = 0.1;
  /// The values of the hyperparameters other than lr and the step count
  /// (`momentum`, `beta1`, `beta2`, `eps`, `weight_decay`) that the step
  /// takes, by name: the manifest records those the step's arguments name.
  llvm::StringMap<double> hypers;
};

/// Describes the bufferized training step `step` for the bundle's manifest:
/// its first `argInfo.size()` operands are the arguments (drawn as `argInfo`
/// says), the memrefs after them its results, and an operand marked
/// `echo.arena` the arena. Fails (with a message) when the step does not
/// take what echo-run draws (`args`) and returns (`outs`), so that a bundle
/// trains as echo-run does. The step hash is left to emitAotBundle.
FailureOr<host::StepManifest> describeAotStep(func::FuncOp step,
                                              const AotBundleOptions &options,
                                              ArrayRef<AotArgument> argInfo,
                                              ArrayRef<HostTensor> args,
                                              ArrayRef<HostTensor> outs);

/// Compiles the lowered `module` into a bundle (see the file comment) whose
/// step `signature` describes (with the step hash, a digest of `module`,
/// added).
LogicalResult emitAotBundle(ModuleOp module, const AotBundleOptions &options,
                            const host::StepManifest &signature,
                            const llvm::json::Object &memoryReport);

} // namespace mlir::echo

#endif // ECHO_RUNNER_AOTBUNDLE_H
