//===- Npy.h - NumPy .npy files of host tensors -----------------*- C++ -*-===//
//
// Part of the Echo project.
//
// SPEC.md's `--inputs`/`--dump` format: NumPy .npy, little-endian, C order,
// dtype matching the argument (<f4, <f8, <i4).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_NPY_H
#define ECHO_RUNNER_NPY_H

#include "echo/Runner/HostTensor.h"

#include "mlir/Support/LLVM.h"

namespace mlir::echo {

/// Writes `t` to `path`; reports a failure on stderr.
LogicalResult writeNpy(StringRef path, const HostTensor &t);

/// Reads `path` into `t`, checking the dtype and the shape against `t`'s
/// type; reports what is wrong (naming the file and argument `argIndex`).
LogicalResult readNpy(StringRef path, HostTensor &t, unsigned argIndex);

} // namespace mlir::echo

#endif // ECHO_RUNNER_NPY_H
