//===- EchoInterfaces.cpp - Echo op interfaces ------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

#include "echo/Dialect/Echo/IR/EchoInterfaces.cpp.inc"

int64_t mlir::echo::detail::estimatePerElementFlops(Operation *op,
                                                    int64_t flopsPerElement) {
  int64_t largest = 0;
  auto visit = [&](Type type) {
    if (auto shaped = dyn_cast<ShapedType>(type);
        shaped && shaped.hasStaticShape())
      largest = std::max(largest, shaped.getNumElements());
  };
  for (Type type : op->getOperandTypes())
    visit(type);
  for (Type type : op->getResultTypes())
    visit(type);
  return flopsPerElement * largest;
}

int64_t mlir::echo::estimateFlops(Operation *op) {
  if (auto cost = dyn_cast<echo::CostOpInterface>(op))
    return cost.estimateFlops();
  int64_t total = 0;
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps())
      total += estimateFlops(&nested);
  return total;
}

int64_t mlir::echo::detail::estimateOperandAndResultBytes(Operation *op) {
  int64_t bytes = 0;
  // Verified ops bound their tensors (BoundedTensors), so the sum fits.
  for (Type type :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    bytes += getCheckedTensorBytes(type).value_or(0);
  return bytes;
}

int64_t mlir::echo::estimateBytesAccessed(Operation *op) {
  if (auto cost = dyn_cast<echo::CostOpInterface>(op))
    return cost.estimateBytesAccessed();
  int64_t total = 0;
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps())
      total += estimateBytesAccessed(&nested);
  return total;
}

bool mlir::echo::isComputeHeavy(Operation *op) {
  auto cost = dyn_cast<echo::CostOpInterface>(op);
  return cost && cost.isComputeHeavy();
}

bool mlir::echo::producesStochasticMask(Operation *op) {
  auto diff = dyn_cast<echo::DifferentiableOpInterface>(op);
  if (!diff)
    return false;
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
    if (diff.isStochasticMaskResult(i))
      return true;
  return false;
}

void mlir::echo::placeInPlaceUpdates(Block &block) {
  SmallVector<InPlaceUpdateOpInterface> updates;
  for (Operation &op : block)
    if (auto update = dyn_cast<InPlaceUpdateOpInterface>(op))
      updates.push_back(update);
  // In reverse, so that updates that go after the same op end up in their
  // original order.
  for (InPlaceUpdateOpInterface update : llvm::reverse(updates)) {
    Operation *op = update.getOperation();
    Operation *after = nullptr;
    auto later = [&](Operation *candidate) {
      if (candidate && candidate != op &&
          (!after || after->isBeforeInBlock(candidate)))
        after = candidate;
    };
    DenseSet<Value> updated;
    for (OpResult result : op->getResults())
      updated.insert(update.getUpdatedOperand(result).get());
    for (Value operand : op->getOperands()) {
      if (Operation *def = operand.getDefiningOp())
        later(block.findAncestorOpInBlock(*def));
      if (!updated.contains(operand))
        continue;
      for (Operation *user : operand.getUsers())
        later(block.findAncestorOpInBlock(*user));
    }
    // A block argument read by nothing else: the update opens the block.
    Operation *firstResultUser = nullptr;
    for (Operation *user : op->getUsers()) {
      Operation *top = block.findAncestorOpInBlock(*user);
      if (top && (!firstResultUser || top->isBeforeInBlock(firstResultUser)))
        firstResultUser = top;
    }
    if (after && firstResultUser && !after->isBeforeInBlock(firstResultUser))
      continue;
    if (after)
      op->moveAfter(after);
    else
      op->moveBefore(&block, block.begin());
  }
}

Value mlir::echo::buildPositiveMask(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  TypedAttr zero;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    zero =
        DenseElementsAttr::get(tensor, b.getZeroAttr(tensor.getElementType()));
  else
    zero = b.getFloatAttr(type, 0.0);
  Value zeroValue = arith::ConstantOp::create(b, loc, zero);
  // Unordered: NaN counts as positive, so relu(NaN) is NaN and its gradient
  // passes through, as in PyTorch (`x <= 0 ? 0 : x`).
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT, value,
                               zeroValue);
}

/// Returns a constant `value` of the float scalar or tensor type `type`.
static Value floatConstantLike(OpBuilder &b, Location loc, Type type,
                               double value) {
  TypedAttr attr;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    attr = DenseElementsAttr::get(
        tensor, b.getFloatAttr(tensor.getElementType(), value));
  else
    attr = b.getFloatAttr(type, value);
  return arith::ConstantOp::create(b, loc, attr);
}

Value mlir::echo::buildInsideMask(OpBuilder &b, Location loc, Value value,
                                  double lo, double hi) {
  // One op per statement: the IR must not depend on the order in which a
  // compiler evaluates call arguments.
  Value low = floatConstantLike(b, loc, value.getType(), lo);
  Value above =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, value, low);
  Value high = floatConstantLike(b, loc, value.getType(), hi);
  Value below =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, value, high);
  return arith::AndIOp::create(b, loc, above, below);
}

//===----------------------------------------------------------------------===//
// BoundedTensors
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::echo::getCheckedTensorBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape() ||
      !isa<RankedTensorType, MemRefType>(type))
    return 0;
  int64_t bytes = (shaped.getElementTypeBitWidth() + 7) / 8;
  // llvm::MulOverflow, not llvm::checkedMul: the estimates ask for every
  // value's bytes many times, and checkedMul goes through APInt.
  for (int64_t d : shaped.getShape())
    if (llvm::MulOverflow(bytes, d, bytes))
      return std::nullopt;
  return bytes;
}

LogicalResult
mlir::echo::verifyTensorBound(function_ref<InFlightDiagnostic()> emitError,
                              Type type, const Twine &what) {
  std::optional<int64_t> bytes = getCheckedTensorBytes(type);
  if (bytes && *bytes <= kMaxTensorBytes)
    return success();
  InFlightDiagnostic diag = emitError();
  diag << what << " of type " << type;
  if (bytes)
    diag << " takes " << *bytes << " bytes,";
  else
    diag << " has a byte count that does not fit in int64,";
  return diag << " more than the largest tensor Echo accepts (2^50 bytes, "
                 "1 PiB)";
}

bool mlir::echo::isHostResident(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<HostResults>();
}

LogicalResult mlir::echo::verifyBoundedTensors(Operation *op) {
  auto emit = [&] { return op->emitOpError(); };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(verifyTensorBound(emit, type, "operand #" + Twine(i))))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(verifyTensorBound(emit, type, "result #" + Twine(i))))
      return failure();
  return success();
}
