//===- Cpu.cpp - The Echo CPU runtime's host API --------------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/Cpu.h"

#include "EchoCountingAllocator.h"
#include "EchoCpuRuntime.h"
#include "RuntimeLibrary.h"

#include "llvm/Support/raw_ostream.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::echo;

LogicalResult CpuRuntime::load(StringRef path) {
  std::optional<llvm::sys::DynamicLibrary> lib = detail::openRuntimeLibrary(
      path, "target=cpu's library calls need the Echo CPU runtime library",
      "build Echo with libopenblas-dev and libdnnl-dev, pass --cpu-runtime=, "
      "or compile without library calls: --library-calls=false");
  if (!lib)
    return failure();
  // The header's prototypes type the entry points.
  static_assert(std::is_same_v<decltype(init), decltype(&echoCpuInit)>);
  static_assert(std::is_same_v<decltype(getError), decltype(&echoCpuGetError)>);
  static_assert(std::is_same_v<decltype(workspaceBytes),
                               decltype(&echoCpuWorkspaceBytes)>);
  static_assert(std::is_same_v<decltype(hostPoolPeakBytes),
                               decltype(&echoCpuHostPoolPeakBytes)>);
  static_assert(std::is_same_v<decltype(resetHostPeak),
                               decltype(&echoCpuResetHostPoolPeak)>);
  decltype(&echoCpuSetAllocator) setAllocator = nullptr;
  if (!detail::resolveSymbol(*lib, init, "echoCpuInit") ||
      !detail::resolveSymbol(*lib, getError, "echoCpuGetError") ||
      !detail::resolveSymbol(*lib, workspaceBytes, "echoCpuWorkspaceBytes") ||
      !detail::resolveSymbol(*lib, hostPoolPeakBytes,
                             "echoCpuHostPoolPeakBytes") ||
      !detail::resolveSymbol(*lib, resetHostPeak, "echoCpuResetHostPoolPeak") ||
      !detail::resolveSymbol(*lib, setAllocator, "echoCpuSetAllocator")) {
    llvm::errs() << "echo-run: " << path
                 << " is not the Echo CPU runtime (missing symbols)\n";
    return failure();
  }
  // The workspace is counted with the step's other bytes.
  if (setAllocator(host::workspaceAlloc, host::workspaceFree) != 0) {
    llvm::errs() << "echo-run: " << path
                 << " already holds a workspace from another allocator\n";
    return failure();
  }
  if (init() != 0)
    return check();
  return success();
}

LogicalResult CpuRuntime::check() const {
  if (!getError)
    return success();
  const char *error = getError();
  if (!error)
    return success();
  llvm::errs() << "echo-run: target=cpu: " << error
               << " (or compile without library calls: "
                  "--library-calls=false)\n";
  return failure();
}

size_t CpuRuntime::getWorkspaceBytes() const {
  return workspaceBytes ? workspaceBytes() : 0;
}

size_t CpuRuntime::getHostPoolPeakBytes() const {
  return hostPoolPeakBytes ? hostPoolPeakBytes() : 0;
}

void CpuRuntime::resetHostPoolPeak() const {
  if (resetHostPeak)
    resetHostPeak();
}
