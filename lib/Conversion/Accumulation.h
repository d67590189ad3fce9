//===- Accumulation.h - Sums written into their accumulator -----*- C++ -*-===//
//
// Part of the Echo project.
//
// The rule shared by the lowerings that add into an existing tensor's
// buffer (a GEMM that accumulates, a slice gradient added in place): they
// write through `bufferization.to_buffer` (not read-only) and name the
// result with `bufferization.to_tensor restrict writable`. Private to
// lib/Conversion.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_CONVERSION_ACCUMULATION_H
#define ECHO_LIB_CONVERSION_ACCUMULATION_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir::echo {

/// Whether `use`'s value may be written in place by its owner, the add
/// that sums into it: the value is the result of an op in the owner's
/// block and `use` is its only use. Not a block argument: the caller's
/// buffers (data, parameters) are never written. One use only:
/// canonicalization folds `to_buffer(to_tensor(m))` into `m` before
/// one-shot bufferization can see the write, so a second reader of the
/// accumulator (the value before the sum) would read the sum.
bool canAccumulateInPlace(OpOperand &use);

/// A memref type of `shape` with a fully dynamic strided layout: what
/// `bufferization.to_buffer` can return for any tensor without a copy.
MemRefType stridedType(ArrayRef<int64_t> shape, Type elementType);

} // namespace mlir::echo

#endif // ECHO_LIB_CONVERSION_ACCUMULATION_H
