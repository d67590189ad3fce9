//===- EchoGradOps.cpp - Echo gradient, recompute and mask ops --*- C++ -*-===//
//
// Part of the Echo project.
//
// Verifiers and custom FLOP counts of the ops of EchoGradOps.td: the gradient
// ops, echo.pack_mask/echo.unpack_mask, and echo.recompute with its custom
// assembly. A gradient op checks the shape relations of its forward op from
// the other side, with the helpers of EchoOpUtils.h, so that both report a
// mismatch in the same words. The generated op classes are defined in
// EchoOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "EchoOpUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

LogicalResult ReluGradOp::verify() {
  Type xElement = getElementTypeOrSelf(getX().getType());
  if (!xElement.isInteger(1) && xElement != getElementTypeOrSelf(getDy()))
    return emitOpError() << "'x' must be an i1 mask or have the element type "
                         << "of 'dy'";
  return success();
}

/// The derivative of each form of gelu (see GeluOp::estimateFlops): the
/// exact one is Φ(x) (9) and x·φ(x) (8), their sum and the product with dy;
/// the tanh one is the cubic (5), tanh's parts from one exp (13, see the
/// lowering) and 8 other operations.
int64_t GeluGradOp::estimateFlops() {
  return estimatePerElementFlops(*this, getTanhApproximation() ? 26 : 19);
}

LogicalResult ClampGradOp::verify() {
  Type xElement = getElementTypeOrSelf(getX().getType());
  if (!xElement.isInteger(1) && xElement != getElementTypeOrSelf(getDy()))
    return emitOpError() << "'x' must be an i1 mask or have the element type "
                         << "of 'dy'";
  return verifyClampBounds(*this, getMin(), getMax());
}

LogicalResult ReduceMaxGradOp::verify() {
  return verifyReduction(*this, getX(), getY(), getDimensions(), "'y'");
}

LogicalResult SliceGradOp::verify() {
  ArrayRef<int64_t> full = shapeOf(getResult()), part = shapeOf(getDy());
  ArrayRef<int64_t> offsets = getOffsets();
  if (part.size() != full.size() || offsets.size() != full.size())
    return emitOpError() << "'dy', 'offsets' and the result must have the "
                         << "same rank";
  for (size_t d = 0; d < full.size(); ++d)
    if (offsets[d] < 0 || part[d] < 1 || part[d] > full[d] ||
        offsets[d] > full[d] - part[d])
      return emitOpError() << "'dy' placed at offset " << offsets[d]
                           << " of dimension " << d
                           << " does not fit the result (size " << full[d]
                           << ")";
  return success();
}

LogicalResult SoftmaxGradOp::verify() {
  return verifyAxis(*this, getAxis(), shapeOf(getY()).size());
}

LogicalResult DropoutGradOp::verify() { return verifyRatio(*this, getRatio()); }

LogicalResult EmbeddingGradOp::verify() {
  SmallVector<int64_t> expected(shapeOf(getIds()));
  expected.push_back(shapeOf(getResult())[1]);
  return verifyResultShape(*this, getDy(), expected, "'dy'");
}

LogicalResult CrossEntropyGradOp::verify() {
  Type et = getElementTypeOrSelf(getDloss().getType());
  if (et != getElementTypeOrSelf(getLogits().getType()) && !et.isF32())
    return emitOpError() << "'dloss' must be f32 or of the logits' element "
                         << "type, not " << et;
  if (failed(verifyCrossEntropy(*this, getLogits(), getLabels(),
                                getLabelSmoothing())))
    return failure();
  if (Value count = getCount()) {
    if (getTotalRows())
      return emitOpError() << "'count' and 'total_rows' both give the "
                              "divisor: give one";
    if (getElementTypeOrSelf(count.getType()) != et)
      return emitOpError() << "'count' must have the element type of 'dloss' ("
                           << et << "), not "
                           << getElementTypeOrSelf(count.getType());
  }
  int64_t rows = shapeOf(getLogits())[0];
  if (std::optional<uint64_t> total = getTotalRows();
      total && static_cast<int64_t>(*total) < rows)
    return emitOpError() << "'total_rows' (" << *total
                         << ") is below the rows of 'logits' (" << rows << ")";
  return success();
}

LogicalResult Conv2DGradInputOp::verify() {
  FailureOr<SmallVector<int64_t>> shape =
      inferConvShape(*this, shapeOf(getResult()), shapeOf(getW()), getStrides(),
                     getPadding(), getGroups(), "result", "w");
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getDy(), *shape, "'dy'");
}

int64_t Conv2DGradInputOp::estimateFlops() {
  return convFlops(shapeOf(getResult()), shapeOf(getW()), shapeOf(getDy()));
}

LogicalResult Conv2DGradFilterOp::verify() {
  FailureOr<SmallVector<int64_t>> shape =
      inferConvShape(*this, shapeOf(getX()), shapeOf(getResult()), getStrides(),
                     getPadding(), getGroups(), "x", "result");
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getDy(), *shape, "'dy'");
}

int64_t Conv2DGradFilterOp::estimateFlops() {
  return convFlops(shapeOf(getX()), shapeOf(getResult()), shapeOf(getDy()));
}

LogicalResult MaxPool2DGradOp::verify() {
  FailureOr<SmallVector<int64_t>> shape =
      inferPoolShape(*this, shapeOf(getX()), getKernel(), getStrides(),
                     getPadding(), getCeilMode());
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getDy(), *shape, "'dy'");
}

int64_t MaxPool2DGradOp::estimateFlops() {
  return poolFlops(getDy(), getKernel());
}

LogicalResult AvgPool2DGradOp::verify() {
  FailureOr<SmallVector<int64_t>> shape =
      inferPoolShape(*this, shapeOf(getResult()), getKernel(), getStrides(),
                     getPadding(), getCeilMode());
  if (failed(shape))
    return failure();
  return verifyResultShape(*this, getDy(), *shape, "'dy'");
}

int64_t AvgPool2DGradOp::estimateFlops() {
  return poolFlops(getDy(), getKernel());
}

LogicalResult AdaptiveAvgPool2DGradOp::verify() {
  ArrayRef<int64_t> dx = shapeOf(getResult()), dy = shapeOf(getDy());
  return verifyResultShape(*this, getDy(), {dx[0], dx[1], dy[2], dy[3]},
                           "'dy'");
}

int64_t AdaptiveAvgPool2DGradOp::estimateFlops() {
  return adaptivePoolFlops(getResult(), getDy());
}

LogicalResult BatchNormGradOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon())))
    return failure();
  int64_t rank = shapeOf(getX()).size();
  if (rank != 2 && rank != 4)
    return emitOpError() << "'x' must have rank 2 or 4, got " << rank;
  return verifyAffineParams(*this, getGamma(), Value(), shapeOf(getX())[1],
                            "channels (dimension 1)");
}

LogicalResult LayerNormGradOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon())))
    return failure();
  if (shapeOf(getX()).empty())
    return emitOpError() << "'x' must have rank >= 1";
  return verifyAffineParams(*this, getGamma(), Value(), shapeOf(getX()).back(),
                            "features (last dimension)");
}

//===----------------------------------------------------------------------===//
// Masks
//===----------------------------------------------------------------------===//

static int64_t packedBytes(int64_t bits) { return (bits + 7) / 8; }

LogicalResult PackMaskOp::verify() {
  int64_t expected = packedBytes(numElements(getMask()));
  if (shapeOf(getResult())[0] != expected)
    return emitOpError() << "a mask of " << numElements(getMask())
                         << " elements packs into " << expected
                         << " bytes, but the result has "
                         << shapeOf(getResult())[0];
  return success();
}

LogicalResult UnpackMaskOp::verify() {
  int64_t expected = packedBytes(numElements(getResult()));
  if (shapeOf(getPacked())[0] != expected)
    return emitOpError() << "a mask of " << numElements(getResult())
                         << " elements needs " << expected
                         << " packed bytes, but 'packed' has "
                         << shapeOf(getPacked())[0];
  return success();
}

//===----------------------------------------------------------------------===//
// Host offload
//===----------------------------------------------------------------------===//

LogicalResult OffloadOp::verify() {
  for (Operation *user : getResult().getUsers())
    if (!isa<FetchOp>(user))
      return emitOpError() << "the host copy may only be read by "
                              "'echo.fetch', not by '"
                           << user->getName() << "'";
  return success();
}

MemoryCategory OffloadOp::getResultCategory(unsigned) {
  return MemoryCategory::HostOffload;
}

LogicalResult FetchOp::verify() {
  if (!getHost().getDefiningOp<OffloadOp>())
    return emitOpError() << "reads a host copy, which 'echo.offload' makes";
  return success();
}

/// A fetched value is the stashed activation its offload took away.
MemoryCategory FetchOp::getResultCategory(unsigned) {
  return MemoryCategory::Activations;
}

Operation *TransferWaitOp::getTransfer() {
  if (auto fetch = getValue().getDefiningOp<FetchOp>())
    return fetch;
  Operation *last = nullptr;
  for (Operation *user : getValue().getUsers())
    if (isa<OffloadOp>(user) && user->getBlock() == (*this)->getBlock() &&
        user->isBeforeInBlock(*this) && (!last || last->isBeforeInBlock(user)))
      last = user;
  return last;
}

LogicalResult TransferWaitOp::verify() {
  if (!getTransfer())
    return emitOpError() << "waits for a transfer: its operand must be the "
                            "result of 'echo.fetch' or offloaded by an "
                            "'echo.offload' before it in the same block";
  return success();
}

//===----------------------------------------------------------------------===//
// RecomputeOp
//===----------------------------------------------------------------------===//

void RecomputeOp::build(OpBuilder &builder, OperationState &state,
                        TypeRange resultTypes, ValueRange inputs) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

YieldOp RecomputeOp::getYield() {
  return dyn_cast<YieldOp>(getBodyBlock().getTerminator());
}

LogicalResult RecomputeOp::verify() {
  if (getResults().empty())
    return emitOpError() << "must recompute at least one value";
  return success();
}

LogicalResult RecomputeOp::verifyRegions() {
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "body takes " << block.getNumArguments()
                         << " argument(s) but the op has " << getInputs().size()
                         << " input(s)";
  for (auto [i, arg, input] :
       llvm::enumerate(block.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << " but input #" << i
                           << " has type " << input.getType();
  YieldOp yield = getYield();
  if (!yield)
    return emitOpError() << "body must end with 'echo.yield'";
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " value(s) of types "
                         << yield.getValues().getTypes()
                         << " but the op has result types " << getResultTypes();
  return success();
}

int64_t RecomputeOp::estimateFlops() {
  int64_t total = 0;
  for (Operation &op : getBodyBlock())
    total += echo::estimateFlops(&op);
  return total;
}

int64_t RecomputeOp::estimateBytesAccessed() {
  int64_t total = 0;
  for (Operation &op : getBodyBlock())
    total += echo::estimateBytesAccessed(&op);
  return total;
}

/// Custom form:
///   echo.recompute (%a, %b) : (tensor<..>, tensor<..>) -> tensor<..> {
///   ^bb0(%x: tensor<..>, %y: tensor<..>):
///     ...
///     echo.yield %r : tensor<..>
///   }
ParseResult RecomputeOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> inputs;
  SmallVector<Type> inputTypes, resultTypes;
  SMLoc inputsLoc = parser.getCurrentLocation();
  if (parser.parseOperandList(inputs, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseColon() || parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen())) {
    if (parser.parseTypeList(inputTypes) || parser.parseRParen())
      return failure();
  }
  if (parser.parseArrow())
    return failure();
  if (succeeded(parser.parseOptionalLParen())) {
    if (failed(parser.parseOptionalRParen()) &&
        (parser.parseTypeList(resultTypes) || parser.parseRParen()))
      return failure();
  } else {
    Type type;
    if (parser.parseType(type))
      return failure();
    resultTypes.push_back(type);
  }
  if (parser.resolveOperands(inputs, inputTypes, inputsLoc, result.operands))
    return failure();
  result.addTypes(resultTypes);
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, /*arguments=*/{},
                         /*enableNameShadowing=*/false))
    return failure();
  if (body->empty())
    return parser.emitError(inputsLoc, "expected a non-empty body");
  return success();
}

void RecomputeOp::print(OpAsmPrinter &p) {
  p << " (";
  p.printOperands(getInputs());
  p << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  p << " : (";
  llvm::interleaveComma(getInputs().getTypes(), p);
  p << ") -> ";
  if (getNumResults() == 1)
    p << getResult(0).getType();
  else {
    p << "(";
    llvm::interleaveComma(getResultTypes(), p);
    p << ")";
  }
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true,
                /*printBlockTerminators=*/true);
}

//===----------------------------------------------------------------------===//
// IndexOperandOpInterface
//===----------------------------------------------------------------------===//

int64_t EmbeddingGradOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 0 ? getType().getDimSize(0) : 0;
}

int64_t CrossEntropyGradOp::getIndexBound(unsigned operandIndex) {
  return operandIndex == 1 ? getLogits().getType().getDimSize(1) : 0;
}

std::optional<int64_t>
CrossEntropyGradOp::getIgnoredIndex(unsigned operandIndex) {
  return operandIndex == 1 ? getIgnoreIndex() : std::nullopt;
}
