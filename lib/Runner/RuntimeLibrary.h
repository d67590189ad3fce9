//===- RuntimeLibrary.h - Opening an Echo runtime library -------*- C++ -*-===//
//
// Part of the Echo project.
//
// What the CPU and CUDA runtime bindings share (private to lib/Runner):
// opening the library and resolving its host API, typed by the runtime's
// header.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_RUNNER_RUNTIMELIBRARY_H
#define ECHO_LIB_RUNNER_RUNTIMELIBRARY_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/DynamicLibrary.h"

#include <optional>
#include <type_traits>

namespace mlir::echo::detail {

/// Opens the runtime library at `path`. When it does not exist, prints
/// "echo-run: <missing> (not found[ at 'path']; <hint>)"; when it does not
/// load, why.
std::optional<llvm::sys::DynamicLibrary>
openRuntimeLibrary(StringRef path, StringRef missing, StringRef hint);

/// Resolves `name` in `library` into `fn` (typed by the runtime's header);
/// false when it is missing.
template <typename Fn>
bool resolveSymbol(llvm::sys::DynamicLibrary &library, Fn &fn,
                   const char *name) {
  fn = reinterpret_cast<Fn>(library.getAddressOfSymbol(name));
  return fn != nullptr;
}

} // namespace mlir::echo::detail

#endif // ECHO_LIB_RUNNER_RUNTIMELIBRARY_H
