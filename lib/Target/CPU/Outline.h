//===- Outline.h - Functions outlined for the CPU's code generation -*- C++
//-*-===//
//
// Part of the Echo project.
//
// What echo-outline-kernels and echo-outline-segments share (private to
// lib/Target/CPU): the function that receives outlined ops.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_TARGET_CPU_OUTLINE_H
#define ECHO_LIB_TARGET_CPU_OUTLINE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::echo {

/// Creates, at `b`'s insertion point, a private function `name` taking
/// `inputs` and returning `resultTypes`, marked `noinline` (`passthrough`
/// becomes the LLVM function's attributes): it is outlined to be compiled on
/// its own, and LLVM must not inline it back. Its entry block's arguments
/// stand for `inputs` in `mapping`.
func::FuncOp createOutlinedFunction(OpBuilder &b, Location loc, StringRef name,
                                    ValueRange inputs, TypeRange resultTypes,
                                    IRMapping &mapping);

} // namespace mlir::echo

#endif // ECHO_LIB_TARGET_CPU_OUTLINE_H
