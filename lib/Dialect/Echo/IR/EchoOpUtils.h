//===- EchoOpUtils.h - Helpers shared by the op verifiers -------*- C++ -*-===//
//
// Part of the Echo project.
//
// The shape, verification and FLOP helpers that the forward ops (EchoOps.cpp)
// and the gradient ops (EchoGradOps.cpp) both use: a gradient op checks the
// same shape relations as its forward op, seen from the other side, and must
// report them with the same words. Helpers used by one side only stay static
// in that file. Private to lib/Dialect/Echo/IR.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_DIALECT_ECHO_IR_ECHOOPUTILS_H
#define ECHO_LIB_DIALECT_ECHO_IR_ECHOOPUTILS_H

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::echo::detail {

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// Returns the shape of `value`, which must have a shaped type.
ArrayRef<int64_t> shapeOf(Value value);

/// Returns the element count of `value`, which must have a statically shaped
/// type.
int64_t numElements(Value value);

/// Prints a shape as `[2, 3]`.
std::string formatShape(ArrayRef<int64_t> shape);

/// Returns `shape` without the entries at `dims`.
SmallVector<int64_t> removeDims(ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> dims);

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

/// Checks that `result` has the shape `expected`; `name` is how the
/// diagnostic refers to `result`.
LogicalResult verifyResultShape(Operation *op, Value result,
                                ArrayRef<int64_t> expected,
                                StringRef name = "result");

/// Checks that `dims` is strictly increasing within [0, rank).
LogicalResult verifyDimensionList(Operation *op, ArrayRef<int64_t> dims,
                                  int64_t rank, StringRef attrName);

/// Checks an axis attribute against a rank.
LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank);

/// Checks the 'dimensions' of a reduction of `x` and that `result` has the
/// shape of `x` without them; `resultName` is how the diagnostic refers to
/// `result`.
LogicalResult verifyReduction(Operation *op, Value x, Value result,
                              ArrayRef<int64_t> dims,
                              StringRef resultName = "result");

/// Checks that the 'epsilon' attribute is positive and finite.
LogicalResult verifyEpsilon(Operation *op, APFloat epsilon);

/// Checks that the 'ratio' attribute of dropout lies in [0, 1).
LogicalResult verifyRatio(Operation *op, APFloat ratio);

/// Checks the 'min' and 'max' attributes of clamp: numbers (infinities
/// allowed) with min <= max.
LogicalResult verifyClampBounds(Operation *op, APFloat min, APFloat max);

/// Computes the output shape [N, F, OH, OW] of a convolution of `xShape`
/// (N×C×H×W) with `wShape` (F×(C/groups)×KH×KW) in `groups` groups and
/// checks that it is well formed (C and F divisible by `groups`). `xName`
/// and `wName` are how the diagnostics refer to the two operands.
FailureOr<SmallVector<int64_t>>
inferConvShape(Operation *op, ArrayRef<int64_t> xShape,
               ArrayRef<int64_t> wShape, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> padding, int64_t groups, StringRef xName,
               StringRef wName);

/// Computes the output shape of a pooling of `xShape` (N×C×H×W) and checks
/// that it is well formed; `ceilMode` rounds the output extents up as
/// PyTorch's `ceil_mode` does (poolOutputSize).
FailureOr<SmallVector<int64_t>>
inferPoolShape(Operation *op, ArrayRef<int64_t> xShape,
               ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> padding, bool ceilMode = false);

/// Checks the 'broadcast_dims' of a dropout of rank `rank`: strictly
/// increasing dims of 'x', not all of them.
LogicalResult verifyBroadcastDims(Operation *op, ArrayRef<int64_t> dims,
                                  int64_t rank);

/// Checks that `gamma` and `beta` have `channels` entries; a null value is
/// skipped. `what` names the dimension of 'x' that `channels` counts.
LogicalResult verifyAffineParams(Operation *op, Value gamma, Value beta,
                                 int64_t channels, StringRef what);

/// Checks that there is one label per row of the logits.
LogicalResult verifyLabels(Operation *op, Value logits, Value labels);
/// A cross-entropy's logits have at least one class and its
/// `label_smoothing` (when given) is in [0, 1].
LogicalResult verifyCrossEntropy(Operation *op, Value logits, Value labels,
                                 std::optional<APFloat> labelSmoothing);

//===----------------------------------------------------------------------===//
// FLOP estimates
//===----------------------------------------------------------------------===//

/// Returns the FLOPs of a convolution between N×C×H×W and F×C×KH×KW giving
/// OH×OW.
int64_t convFlops(ArrayRef<int64_t> xShape, ArrayRef<int64_t> wShape,
                  ArrayRef<int64_t> yShape);

/// Returns the FLOPs of a pooling with window `kernel` that produces
/// `output`.
int64_t poolFlops(Value output, ArrayRef<int64_t> kernel);

/// Returns the FLOPs of an adaptive average pooling between the N×C×H×W
/// `input` and the N×C×OH×OW `output` (either direction: the gradient
/// visits the same windows).
int64_t adaptivePoolFlops(Value input, Value output);

} // namespace mlir::echo::detail

#endif // ECHO_LIB_DIALECT_ECHO_IR_ECHOOPUTILS_H
