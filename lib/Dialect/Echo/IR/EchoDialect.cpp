//===- EchoDialect.cpp - Echo dialect ---------------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::echo;

#include "echo/Dialect/Echo/IR/EchoOpsDialect.cpp.inc"

void EchoDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "echo/Dialect/Echo/IR/EchoOps.cpp.inc"
      >();
}

/// The arena of `echo-plan-buffers`: a statically shaped 1-D buffer of bytes.
static bool isArenaType(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getRank() == 1 && memref.hasStaticShape() &&
         memref.getElementType().isInteger(8) &&
         memref.getLayout().isIdentity();
}

/// `echo.train_step` is a unit attribute on a `func.func`.
LogicalResult EchoDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getTrainStepAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getTrainStepAttrName() << "' must be a unit attribute";
    if (!isa<func::FuncOp>(op))
      return op->emitError() << "'" << getTrainStepAttrName()
                             << "' may only be attached to a func.func";
    return success();
  }
  if (attr.getName() == getRecomputeStrategyAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << getRecomputeStrategyAttrName()
                             << "' must be a string attribute";
    if (!op->hasAttr(getTrainStepAttrName()))
      return op->emitError() << "'" << getRecomputeStrategyAttrName()
                             << "' may only be attached to a training step ("
                             << getTrainStepAttrName() << ")";
    return success();
  }
  if (attr.getName() == getTimeModelAttrName()) {
    // (A lowered step keeps it on its llvm.func.)
    if (!isa<DictionaryAttr>(attr.getValue()))
      return op->emitError() << "'" << getTimeModelAttrName()
                             << "' must be a dictionary attribute";
    return success();
  }
  for (StringRef name : {getMemoryStatsAttrName(), getOffloadScheduleAttrName(),
                         getChunkedLossAttrName()}) {
    if (attr.getName() != name)
      continue;
    if (!isa<DictionaryAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a dictionary attribute";
    if (!op->hasAttr(getTrainStepAttrName()))
      return op->emitError()
             << "'" << name << "' may only be attached to a training step ("
             << getTrainStepAttrName() << ")";
    return success();
  }
  if (attr.getName() == getUpdatedArgumentsAttrName()) {
    auto updated = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    auto func = dyn_cast<func::FuncOp>(op);
    if (!updated || !func)
      return op->emitError() << "'" << getUpdatedArgumentsAttrName()
                             << "' must be an array<i64> on a func.func";
    for (int64_t arg : updated.asArrayRef())
      if (arg < -1 || arg >= static_cast<int64_t>(func.getNumArguments()))
        return op->emitError()
               << "'" << getUpdatedArgumentsAttrName() << "' names argument "
               << arg << ", but the function has " << func.getNumArguments()
               << " (-1: no argument)";
    return success();
  }
  if (attr.getName() == getBufferPlanAttrName()) {
    if (!isa<DictionaryAttr>(attr.getValue()))
      return op->emitError() << "'" << getBufferPlanAttrName()
                             << "' must be a dictionary attribute";
    if (!isa<func::FuncOp>(op))
      return op->emitError() << "'" << getBufferPlanAttrName()
                             << "' may only be attached to a func.func";
    return success();
  }
  if (attr.getName() == getArenaAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getArenaAttrName() << "' must be a unit attribute";
    if (!isa<memref::AllocOp>(op) || !isArenaType(op->getResult(0).getType()))
      return op->emitError() << "'" << getArenaAttrName()
                             << "' may only mark a memref.alloc of a "
                                "statically shaped memref<Nxi8>";
    return success();
  }
  if (attr.getName() == getBackwardBeginAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getBackwardBeginAttrName()
                             << "' must be a unit attribute";
    auto func = dyn_cast_or_null<func::FuncOp>(op->getParentOp());
    if (!func || !func->hasAttr(getTrainStepAttrName()))
      return op->emitError() << "'" << getBackwardBeginAttrName()
                             << "' may only mark an op of a training step's "
                                "body";
    return success();
  }
  if (attr.getName() == getCheckpointRegionAttrName()) {
    auto region = dyn_cast<IntegerAttr>(attr.getValue());
    if (!region || !region.getType().isInteger(64) || region.getInt() < 0)
      return op->emitError() << "'" << getCheckpointRegionAttrName()
                             << "' must be a non-negative i64 attribute";
    if (!isa<EchoDialect>(op->getDialect()))
      return op->emitError() << "'" << getCheckpointRegionAttrName()
                             << "' may only mark an op of the echo dialect";
    return success();
  }
  if (attr.getName() == getAdoptedAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getAdoptedAttrName() << "' must be a unit attribute";
    if (!isa<func::FuncOp>(op) || !op->hasAttr(getTrainStepAttrName()))
      return op->emitError() << "'" << getAdoptedAttrName()
                             << "' may only mark a training step ("
                             << getTrainStepAttrName() << ")";
    return success();
  }
  if (attr.getName() == getParallelPartAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getParallelPartAttrName()
                             << "' must be a unit attribute";
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << getParallelPartAttrName()
                             << "' may only mark a function";
    return success();
  }
  if (attr.getName() == getPackedDimsAttrName()) {
    auto packed = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!packed)
      return op->emitError()
             << "'" << getPackedDimsAttrName() << "' must be an array of i64";
    if (!isa<func::CallOp>(op))
      return op->emitError() << "'" << getPackedDimsAttrName()
                             << "' may only mark a library call (func.call)";
    SmallVector<MemRefType> buffers;
    for (Type type : op->getOperandTypes())
      if (auto memref = dyn_cast<MemRefType>(type))
        buffers.push_back(memref);
    if (packed.size() != static_cast<int64_t>(buffers.size()))
      return op->emitError() << "'" << getPackedDimsAttrName() << "' has "
                             << packed.size() << " entries, but the call has "
                             << buffers.size() << " ranked memref operands";
    for (auto [index, dims, buffer] :
         llvm::enumerate(packed.asArrayRef(), buffers))
      if (dims < 1 || dims > buffer.getRank())
        return op->emitError()
               << "'" << getPackedDimsAttrName() << "' entry " << index
               << " is " << dims << ", not in [1, " << buffer.getRank()
               << "] (the rank of its buffer)";
    return success();
  }
  return op->emitError() << "unknown echo attribute '"
                         << attr.getName().getValue() << "' on an operation";
}

/// True for a statically shaped f32 tensor or memref of rank 0.
static bool isScalarF32(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return isa<RankedTensorType, MemRefType>(type) && shaped.getRank() == 0 &&
         shaped.getElementType().isF32();
}

/// `echo.param` and `echo.optimizer_state` are unit attributes on
/// statically shaped floating-point arguments of a `func.func`;
/// `echo.hyper` names a 0-d f32 argument.
LogicalResult EchoDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == getHyperAttrName()) {
    auto func = dyn_cast<func::FuncOp>(op);
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || name.getValue().empty())
      return op->emitError()
             << "'" << getHyperAttrName() << "' on argument " << argIndex
             << " must be a non-empty string attribute";
    if (!func || !isScalarF32(func.getArgumentTypes()[argIndex]))
      return op->emitError()
             << "'" << getHyperAttrName() << "' on argument " << argIndex
             << " may only mark a 0-d f32 tensor or memref "
                "argument of a func.func";
    return success();
  }
  if (attr.getName() == getArenaAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getArenaAttrName() << "' on argument "
                             << argIndex << " must be a unit attribute";
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func || !isArenaType(func.getArgumentTypes()[argIndex]))
      return op->emitError()
             << "'" << getArenaAttrName() << "' on argument " << argIndex
             << " may only mark a statically shaped "
                "memref<Nxi8> argument of a func.func";
    return success();
  }
  if (attr.getName() == getRngSeedAttrName()) {
    auto func = dyn_cast<func::FuncOp>(op);
    auto type = func ? dyn_cast<ShapedType>(func.getArgumentTypes()[argIndex])
                     : ShapedType();
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getRngSeedAttrName() << "' on argument "
                             << argIndex << " must be a unit attribute";
    if (!type || !type.hasRank() || type.getRank() != 0 ||
        !type.getElementType().isInteger(64))
      return op->emitError()
             << "'" << getRngSeedAttrName() << "' on argument " << argIndex
             << " may only mark a 0-d i64 tensor or memref argument of a "
                "func.func";
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (i != argIndex && func.getArgAttr(i, getRngSeedAttrName()))
        return op->emitError()
               << "arguments " << std::min(i, argIndex) << " and "
               << std::max(i, argIndex) << " are both marked '"
               << getRngSeedAttrName() << "': a step has one seed";
    return success();
  }
  bool isState = attr.getName() == getOptimizerStateAttrName();
  bool isFrozen = attr.getName() == getFrozenAttrName();
  if (attr.getName() != getParamAttrName() && !isState && !isFrozen)
    return op->emitError() << "unknown echo argument attribute '"
                           << attr.getName().getValue() << "' on argument "
                           << argIndex;
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' on argument " << argIndex
                           << " must be a unit attribute";
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' may only mark arguments of a func.func";
  // Read the type from the signature: declarations have no body. After
  // bufferization the parameter is a memref; the marker stays meaningful.
  Type argType = func.getArgumentTypes()[argIndex];
  auto type = dyn_cast<ShapedType>(argType);
  if (!isa<RankedTensorType, MemRefType>(argType) || !type.hasStaticShape() ||
      !isa<FloatType>(type.getElementType()))
    return op->emitError() << (isState    ? "optimizer state"
                               : isFrozen ? "frozen parameter"
                                          : "parameter")
                           << " argument " << argIndex
                           << " must be a statically shaped floating-point "
                              "tensor or memref";
  if ((isState || isFrozen) && func.getArgAttr(argIndex, getParamAttrName()))
    return op->emitError() << "argument " << argIndex << " is marked both '"
                           << getParamAttrName() << "' and '"
                           << attr.getName().getValue() << "'";
  return success();
}

/// No `echo.*` attribute applies to function results.
LogicalResult EchoDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  return op->emitError() << "echo attribute '" << attr.getName().getValue()
                         << "' is not allowed on result " << resultIndex;
}
