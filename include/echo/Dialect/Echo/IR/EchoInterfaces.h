//===- EchoInterfaces.h - Echo op interfaces --------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_H
#define ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::echo::detail {
/// Returns `flopsPerElement` times the element count of the largest tensor
/// among the operands and results of `op`.
int64_t estimatePerElementFlops(Operation *op, int64_t flopsPerElement);
/// Returns the bytes of the statically shaped tensors `op` reads and writes,
/// each operand and result once (`i1` one byte per element).
int64_t estimateOperandAndResultBytes(Operation *op);
} // namespace mlir::echo::detail

namespace mlir::echo {
/// Builds `!(value <= 0)` (`arith.cmpf ugt` against a zero of `value`'s
/// type, a float scalar or a float tensor; true for NaN, so that ReLU
/// propagates NaN as PyTorch's does): the 1-bit predicate ReLU's gradient
/// reads. Spelled once, here, for the interface's buildGradientReadMask and
/// for the lowering of `relu`/`relu_grad`.
Value buildPositiveMask(OpBuilder &builder, Location loc, Value value);

/// Builds `lo < value && value < hi` (ordered comparisons with constants of
/// `value`'s type, a float scalar or a float tensor; false for NaN, as
/// PyTorch's hardtanh_backward): the 1-bit predicate clamp's gradient reads.
/// Spelled once, here, for ClampOp's buildGradientReadMask and for the
/// lowering of `clamp_grad`.
Value buildInsideMask(OpBuilder &builder, Location loc, Value value, double lo,
                      double hi);

/// The precision an op runs in under automatic mixed precision
/// (AutocastOpInterface, `echo-autocast`).
enum class AutocastPolicy {
  /// As written: the pass leaves the op alone, so it reads its operands in
  /// whatever type they arrive (casts, gradient and optimizer ops, which a
  /// model does not contain before echo-autodiff; the cross-entropy losses,
  /// which widen low-precision logits as they read them and keep an f32
  /// loss).
  Keep,
  /// In the low-precision type: every float operand is cast to it (GEMMs
  /// and convolutions, PyTorch autocast's lower-precision ops).
  Lower,
  /// In f32: every float operand is cast to f32 (sums, softmax, losses).
  Full,
  /// In the widest float type among its operands that are not constants,
  /// as PyTorch's type promotion (elementwise ops, pooling, dropout, shape
  /// ops, embedding): a constant takes the op's type, as a Python scalar
  /// does in PyTorch, and a value that meets an f32 one is widened.
  Follow,
  /// In the float type of operand 0, its data; the other float operands
  /// (affine parameters) are cast to it (batch_norm and layer_norm, whose
  /// lowering keeps their statistics in f32).
  FollowInput,
};

/// The largest tensor Echo accepts, in bytes (1 PiB): far beyond any
/// device, small enough that sums over a step's tensors stay in int64.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 50;

/// The bytes of a statically shaped tensor of `type`, or nullopt when its
/// element or byte count does not fit in int64 (0 for other types).
std::optional<int64_t> getCheckedTensorBytes(Type type);

/// Emits an error at `loc` and fails when `type` (`what`, e.g. "result #0")
/// is a tensor larger than kMaxTensorBytes or whose size overflows int64.
LogicalResult verifyTensorBound(function_ref<InFlightDiagnostic()> emitError,
                                Type type, const Twine &what);

/// The verifier of the BoundedTensors trait: every operand and result.
LogicalResult verifyBoundedTensors(Operation *op);

/// Every tensor an Echo op reads or writes is at most kMaxTensorBytes.
template <typename ConcreteType>
class BoundedTensors : public OpTrait::TraitBase<ConcreteType, BoundedTensors> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyBoundedTensors(op);
  }
};

/// What a byte of a training step holds, in the terms of PyTorch's memory
/// profiler: the arguments (parameters, optimizer state, data), the
/// gradients and other values of the backward pass, the forward values the
/// backward pass reads (stashed activations), values made inside
/// `echo.recompute` regions, forward values nothing after the loss reads
/// (temporaries), and host copies made by `echo.offload`.
enum class MemoryCategory : unsigned {
  Parameters,
  OptimizerState,
  Data,
  Activations,
  Recompute,
  Temporaries,
  Gradients,
  HostOffload,
};
/// The number of MemoryCategory values.
constexpr unsigned kNumMemoryCategories = 8;

/// The results of the op live in host memory (`echo.offload`): the device's
/// live bytes do not count them.
template <typename ConcreteType>
class HostResults : public OpTrait::TraitBase<ConcreteType, HostResults> {};

/// The result of the op is its operand's bytes seen with another type (the
/// lowering makes it a view): see Echo_ViewResult.
template <typename ConcreteType>
class ViewResult : public OpTrait::TraitBase<ConcreteType, ViewResult> {};

/// True when `value` lives in host memory: a result of an op with the
/// HostResults trait.
bool isHostResident(Value value);

/// The host pool and the copy stream, which the transfer ops read and write
/// (their order among themselves is their order on the copy stream).
struct TransferResource : public SideEffects::Resource::Base<TransferResource> {
  StringRef getName() final { return "echo.transfer"; }
};
} // namespace mlir::echo

#include "echo/Dialect/Echo/IR/EchoInterfaces.h.inc"

namespace mlir::echo {
/// Returns the FLOP estimate of `op`: its CostOpInterface estimate, the sum
/// over nested ops for ops with regions, and 0 for other ops.
int64_t estimateFlops(Operation *op);

/// Returns the bytes `op` reads and writes: its CostOpInterface estimate,
/// the sum over nested ops for ops with regions, and 0 for other ops (a
/// constant is not moved when it is used).
int64_t estimateBytesAccessed(Operation *op);

/// Returns true when `op` is compute-heavy according to CostOpInterface.
bool isComputeHeavy(Operation *op);

/// Returns true when a result of `op` is a stochastic mask according to
/// DifferentiableOpInterface (dropout).
bool producesStochasticMask(Operation *op);

/// Moves every InPlaceUpdateOpInterface op of `block` (an optimizer's
/// update) right after the last op of the block that defines one of its
/// operands or reads an operand it updates (a use in a region counts at the
/// region's op): the earliest point where its inputs are final and the old
/// values are dead, so that it can be written in place and its gradient
/// freed. Updates placed after the same op keep their order. An update
/// whose results are read before that point stays where it is.
void placeInPlaceUpdates(Block &block);
} // namespace mlir::echo

#endif // ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_H
