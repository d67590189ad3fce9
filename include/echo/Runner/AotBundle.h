//===- AotBundle.h - Ahead-of-time training-step executables ----*- C++ -*-===//
//
// Part of the Echo project.
//
// `echo-run --emit-aot=DIR`: the lowered step as an object file, linked
// with the MLIR-free driver of runtime/aot into DIR/echo-step, with
// DIR/manifest.txt (arguments, results, seed, optimizer) and
// DIR/memory.json (the memory report), for machines without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_AOTBUNDLE_H
#define ECHO_RUNNER_AOTBUNDLE_H

#include "echo/Runner/HostTensor.h"
#include "echo/Transforms/Options.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::echo {

/// One argument of the step as the driver draws it (EchoHostData.h).
struct AotArgument {
  bool isParam = false;
  /// For integer arguments: values are drawn in [0, range).
  int64_t range = 0;
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
  /// The driver library (libEchoStepMain.a) and the C++ driver that links.
  std::string stepMainLibrary, cxx;
  /// LLVM optimization level (0-3).
  unsigned optLevel = 2;
  /// The training the driver runs: seed of the data, what the step returns,
  /// the learning rate.
  uint64_t seed = 0;
  Optimizer optimizer = Optimizer::None;
  double lr = 0.1;
  /// The step's arena argument (nvvm), or -1: it allocates its own.
  int64_t arenaBytes = -1;
};

/// Compiles the lowered `module` into a bundle (see the file comment).
LogicalResult emitAotBundle(ModuleOp module, const AotBundleOptions &options,
                            ArrayRef<HostTensor> args,
                            ArrayRef<AotArgument> argInfo,
                            ArrayRef<HostTensor> outs,
                            const llvm::json::Object &memoryReport);

} // namespace mlir::echo

#endif // ECHO_RUNNER_AOTBUNDLE_H
