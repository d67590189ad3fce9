//===- Jit.h - JIT-compiled training steps ----------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_JIT_H
#define ECHO_RUNNER_JIT_H

#include "echo/Runner/HostTensor.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace mlir::echo {

/// A JIT-compiled module and one of its entry points.
class JitStep {
public:
  /// JIT-compiles `module` (lowered to the LLVM dialect) at `optLevel` (0-3)
  /// with `sharedLibs` loaded, and looks up `_mlir_ciface_<function>` (so
  /// that the compile time is not the first call's). Reports failures on
  /// stderr.
  static FailureOr<JitStep> compile(ModuleOp module, StringRef function,
                                    unsigned optLevel,
                                    ArrayRef<StringRef> sharedLibs = {});

  /// Returns the entry `function` of the same compiled module (which must
  /// have been lowered with a C interface for it), sharing its engine.
  FailureOr<JitStep> getSibling(StringRef function) const;

  /// Calls the entry with `args` then `outs` (results are out-parameters).
  LogicalResult call(ArrayRef<HostTensor *> args, ArrayRef<HostTensor *> outs);

  /// Calls the entry with one memref descriptor per argument.
  LogicalResult invoke(ArrayRef<int64_t *> descriptors);

private:
  std::shared_ptr<ExecutionEngine> engine;
  std::string entry; // `_mlir_ciface_<name>`
};

} // namespace mlir::echo

#endif // ECHO_RUNNER_JIT_H
