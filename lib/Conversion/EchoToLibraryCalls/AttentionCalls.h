//===- AttentionCalls.h - Fused attention as runtime calls ------*- C++ -*-===//
//
// Part of the Echo project.
//
// What echo-library-calls shares between its files. Private to
// lib/Conversion/EchoToLibraryCalls.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_CONVERSION_ECHOTOLIBRARYCALLS_ATTENTIONCALLS_H
#define ECHO_LIB_CONVERSION_ECHOTOLIBRARYCALLS_ATTENTIONCALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::echo {

/// The private `llvm.emit_c_interface` declaration of `name` in `module`
/// with the argument types `argTypes`, for the call `op` makes; an error at
/// `op` (naming `pass`) when the symbol is taken by something else.
FailureOr<func::FuncOp> declareLibraryCall(ModuleOp module, Operation *op,
                                           StringRef pass, StringRef name,
                                           TypeRange argTypes);

/// Rewrites every echo.attention and echo.attention_grad of `module` into
/// a call of echo_attention_forward / echo_attention_backward
/// (echo/Runtime/EchoRuntimeABI.h) on f32 buffers: 16-bit operands are
/// widened around the call. `pass` names the pass in diagnostics.
LogicalResult lowerAttentionToCalls(ModuleOp module, StringRef pass);

} // namespace mlir::echo

#endif // ECHO_LIB_CONVERSION_ECHOTOLIBRARYCALLS_ATTENTIONCALLS_H
