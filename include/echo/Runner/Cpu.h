//===- Cpu.h - The Echo CPU runtime's host API ------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// A step compiled for target=cpu with library calls runs its GEMMs and
// convolutions in libEchoCpuRuntime.so (OpenBLAS, oneDNN). The runner loads
// it before compiling (so that a missing library is reported first, by
// name), links the JIT against it, and checks its sticky error after each
// step.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_CPU_H
#define ECHO_RUNNER_CPU_H

#include "mlir/Support/LLVM.h"

#include <cstddef>

namespace mlir::echo {

/// The Echo CPU runtime's host API (runtime/cpu/EchoCpuRuntime.h).
class CpuRuntime {
public:
  /// Loads the library at `path` and opens OpenBLAS and oneDNN; reports
  /// what is missing.
  LogicalResult load(StringRef path);
  /// Fails, reporting the runtime's first error, when it has one.
  LogicalResult check() const;
  /// Bytes the runtime holds for the libraries (oneDNN's scratchpad).
  size_t getWorkspaceBytes() const;
  /// The most bytes the host pool of offloaded values held since the last
  /// reset, and the reset (to what it holds now).
  size_t getHostPoolPeakBytes() const;
  void resetHostPoolPeak() const;

private:
  int (*init)() = nullptr;
  const char *(*getError)() = nullptr;
  size_t (*workspaceBytes)() = nullptr;
  size_t (*hostPoolPeakBytes)() = nullptr;
  void (*resetHostPeak)() = nullptr;
};

} // namespace mlir::echo

#endif // ECHO_RUNNER_CPU_H
