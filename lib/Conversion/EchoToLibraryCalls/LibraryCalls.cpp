//===- LibraryCalls.cpp - Compute-heavy Echo ops to runtime calls ---------===//
//
// Part of the Echo project.
//
// echo-library-calls (see Passes.td): every LibraryCallOpInterface op becomes
// a call to a `_mlir_ciface_echo_*` entry point of the C ABI declared in
// echo/Runtime/EchoRuntimeABI.h, at the tensor level. Nothing here is
// specific to a target: the CUDA runtime implements the calls on
// cuBLAS/cuDNN, and a CPU runtime can implement the same ones.
//
//===----------------------------------------------------------------------===//

#include "../Accumulation.h"
#include "AttentionCalls.h"

#include "echo/Conversion/Passes.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOLIBRARYCALLS
#define GEN_PASS_DEF_ECHOTRANSFERCALLS
#include "echo/Conversion/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// The type a runtime entry point takes for a buffer of rank `rank`.
MemRefType abiType(int64_t rank, Type elementType) {
  return stridedType(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                     elementType);
}

} // namespace

FailureOr<func::FuncOp>
mlir::echo::declareLibraryCall(ModuleOp module, Operation *op, StringRef pass,
                               StringRef name, TypeRange argTypes) {
  MLIRContext *ctx = module.getContext();
  auto type = FunctionType::get(ctx, argTypes, {});
  if (auto existing = module.lookupSymbol<func::FuncOp>(name)) {
    if (existing.getFunctionType() == type)
      return existing;
    InFlightDiagnostic diag = op->emitOpError()
                              << pass << ": '" << name
                              << "' is already defined with type "
                              << existing.getFunctionType() << ", not " << type;
    diag.attachNote(existing.getLoc()) << "defined here";
    return failure();
  }
  if (module.lookupSymbol(name))
    return op->emitOpError() << pass << ": the symbol '" << name
                             << "' is taken by something other than a "
                                "function";
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto decl = func::FuncOp::create(b, module.getLoc(), name, type);
  decl.setPrivate();
  decl->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  return decl;
}

namespace {

FailureOr<func::FuncOp> declare(ModuleOp module, Operation *op, StringRef pass,
                                StringRef name, TypeRange argTypes) {
  return declareLibraryCall(module, op, pass, name, argTypes);
}

/// The runtimes' GEMMs and convolutions take f32 buffers: an op on f16 or
/// bf16 tensors reads its operands converted to f32 (echo.cast, lowered
/// with the other Echo ops) and its result is rounded back to its type
/// after the call. The f32 copies live only around the call.
void widenToF32(OpBuilder &b, Operation *op) {
  Type f32 = b.getF32Type();
  auto widened = [&](Type type) {
    return cast<RankedTensorType>(type).clone(f32);
  };
  for (OpOperand &operand : op->getOpOperands()) {
    Type et = getElementTypeOrSelf(operand.get().getType());
    if (isa<FloatType>(et) && !et.isF32())
      operand.set(CastOp::create(
          b, op->getLoc(), widened(operand.get().getType()), operand.get()));
  }
  OpBuilder after(op->getContext());
  after.setInsertionPointAfter(op);
  for (Value result : op->getResults()) {
    Type type = result.getType();
    Type et = getElementTypeOrSelf(type);
    if (!isa<FloatType>(et) || et.isF32())
      continue;
    result.setType(widened(type));
    auto narrow = CastOp::create(after, op->getLoc(), type, result);
    result.replaceAllUsesExcept(narrow.getResult(), narrow);
  }
}

struct EchoLibraryCallsPass
    : public echo::impl::EchoLibraryCallsBase<EchoLibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(lowerAttentionToCalls(module, getArgument())))
      return signalPassFailure();
    // Each op with the add it accumulates into, decided on the IR as
    // given: a rewrite inserts ops, after which every isBeforeInBlock would
    // renumber the block (quadratic in a 50k-op step). A rewrite replaces
    // only its own op's add, so the other decisions stay valid.
    SmallVector<std::pair<LibraryCallOpInterface, OpOperand *>> ops;
    module.walk([&](LibraryCallOpInterface op) {
      if (op.isLibraryCallWorthwhile())
        ops.emplace_back(op, accumulatorOperand(op));
    });
    for (auto [op, accumulator] : ops)
      if (failed(rewrite(op, accumulator)))
        return signalPassFailure();
  }

  /// The operand of the `echo.add` that is the only user of `op`'s f32
  /// result holding the other addend, a tensor of the same type defined
  /// before `op` in its block; null otherwise. (f32 only: a 16-bit call that
  /// accumulates rounds the sum once where the call and the add round
  /// twice, so the step's bits would depend on which products accumulate,
  /// and that on the order the strategy left.)
  static OpOperand *accumulatorOperand(LibraryCallOpInterface op) {
    Operation *operation = op.getOperation();
    if (op.getLibraryCallAccumulateScalar() < 0 ||
        operation->getNumResults() != 1 || !operation->getResult(0).hasOneUse())
      return nullptr;
    Value product = operation->getResult(0);
    if (!getElementTypeOrSelf(product.getType()).isF32())
      return nullptr;
    auto add = dyn_cast<AddOp>(*product.getUsers().begin());
    if (!add || add.getLhs() == add.getRhs() ||
        add.getType() != product.getType())
      return nullptr;
    OpOperand &acc = add->getOpOperand(add.getLhs() == product ? 1 : 0);
    if (!canAccumulateInPlace(acc))
      return nullptr;
    Operation *def = acc.get().getDefiningOp();
    return def->getBlock() == operation->getBlock() &&
                   def->isBeforeInBlock(operation)
               ? &acc
               : nullptr;
  }

  LogicalResult rewrite(LibraryCallOpInterface op, OpOperand *accumulator) {
    Operation *operation = op.getOperation();
    Location loc = op.getLoc();
    OpBuilder b(operation);
    // The 16-bit form the runtime has for an op whose tensors are all of
    // one 16-bit type ("" where there is none: the call takes f32).
    StringRef form;
    if (op.has16BitLibraryCall()) {
      Type et = getElementTypeOrSelf(operation->getResult(0).getType());
      auto ofType = [&](Type type) { return getElementTypeOrSelf(type) == et; };
      if (llvm::all_of(operation->getOperandTypes(), ofType) &&
          llvm::all_of(operation->getResultTypes(), ofType)) {
        if (et.isBF16() && bf16Calls)
          form = "_bf16";
        else if (et.isF16() && f16Calls)
          form = "_f16";
      }
    }
    // `echo.add(acc, op)` with acc defined before op and read by the add
    // only (canAccumulateInPlace): the call adds its product to acc's
    // buffer where op was, so the product never has a buffer of its own; the
    // sum of a gradient's contributions (a weight used at every time step)
    // grows in one buffer, each product added as soon as it is computed.
    if (form.empty())
      widenToF32(b, operation);
    std::string name = (op.getLibraryCallName() + form).str();
    SmallVector<Value> args;
    auto toABI = [&](Value buffer) {
      auto type = cast<MemRefType>(buffer.getType());
      return memref::CastOp::create(
                 b, loc, abiType(type.getRank(), type.getElementType()), buffer)
          .getResult();
    };
    auto toBuffer = [&](Value tensor) {
      auto type = cast<RankedTensorType>(tensor.getType());
      return bufferization::ToBufferOp::create(
                 b, loc, stridedType(type.getShape(), type.getElementType()),
                 tensor, /*read_only=*/true)
          .getResult();
    };
    for (Value input : op.getLibraryCallInputs())
      args.push_back(toABI(toBuffer(input)));

    auto resultType = cast<RankedTensorType>(operation->getResult(0).getType());
    SmallVector<int64_t> scalars = op.getLibraryCallScalars();
    Value out;
    if (accumulator) {
      out = bufferization::ToBufferOp::create(
          b, loc,
          MemRefType::get(resultType.getShape(), resultType.getElementType()),
          accumulator->get(), /*read_only=*/false);
      scalars[op.getLibraryCallAccumulateScalar()] = 1;
    } else {
      out = memref::AllocOp::create(
          b, loc,
          MemRefType::get(resultType.getShape(), resultType.getElementType()));
    }
    if (Value init = op.getLibraryCallInit()) {
      auto initType = cast<RankedTensorType>(init.getType());
      int64_t leading = resultType.getRank() - initType.getRank();
      linalg::BroadcastOp::create(
          b, loc, toBuffer(init), out,
          llvm::to_vector(llvm::seq<int64_t>(0, leading)));
    }
    args.push_back(toABI(out));
    for (int64_t scalar : scalars)
      args.push_back(arith::ConstantIntOp::create(b, loc, scalar, 64));

    FailureOr<func::FuncOp> callee =
        declare(getOperation(), operation, getArgument(), name,
                ValueRange(args).getTypes());
    if (failed(callee))
      return failure();
    auto call = func::CallOp::create(b, loc, *callee, args);
    // What layouts the runtime takes, for echo-library-call-layouts to
    // check once bufferization has decided what each buffer is a view of.
    call->setAttr(EchoDialect::getPackedDimsAttrName(),
                  b.getDenseI64ArrayAttr(op.getLibraryCallPackedDims()));
    Value result = bufferization::ToTensorOp::create(
        b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
    if (accumulator) {
      Operation *add = accumulator->getOwner();
      add->getResult(0).replaceAllUsesWith(result);
      add->erase();
    } else {
      operation->getResult(0).replaceAllUsesWith(result);
    }
    operation->erase();
    return success();
  }
};

/// The unranked memref type the transfer calls take for `tensor`'s buffer.
mlir::UnrankedMemRefType unrankedType(Value tensor) {
  return mlir::UnrankedMemRefType::get(getElementTypeOrSelf(tensor.getType()),
                                       /*memorySpace=*/0);
}

/// `echo_<what>_<element type>`.
std::string transferCallee(StringRef what, Value tensor) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << "echo_" << what << "_" << getElementTypeOrSelf(tensor.getType());
  return name;
}

struct EchoTransferCallsPass
    : public echo::impl::EchoTransferCallsBase<EchoTransferCallsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(rewrite(func)))
        return signalPassFailure();
  }

  LogicalResult rewrite(func::FuncOp func) {
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<OffloadOp, FetchOp, TransferWaitOp>(op))
        ops.push_back(op);
    });
    // Slots first: a fetch and a wait have the slot of the offload they
    // continue.
    DenseMap<Operation *, int64_t> slots;
    int64_t next = 0;
    for (Operation *op : ops)
      if (auto offload = dyn_cast<OffloadOp>(op)) {
        slots[op] = next;
        for (Operation *user : offload.getResult().getUsers())
          slots[user] = next;
        ++next;
      }
    // A wait names its transfer before the fetch it waits for is rewritten.
    for (Operation *op : ops)
      if (auto wait = dyn_cast<TransferWaitOp>(op)) {
        Operation *transfer = wait.getTransfer();
        if (!transfer || !slots.count(transfer))
          return wait.emitOpError()
                 << getArgument() << ": waits for no transfer in its function";
        slots[op] = slots.lookup(transfer);
      }
    for (Operation *op : ops)
      if (failed(rewrite(op, slots)))
        return failure();
    // Users first: waits and fetches, then the offloads (told apart before
    // anything is erased).
    SmallVector<Operation *> offloads;
    for (Operation *op : llvm::reverse(ops)) {
      if (isa<OffloadOp>(op))
        offloads.push_back(op);
      else
        op->erase();
    }
    for (Operation *op : offloads)
      op->erase();
    return success();
  }

  LogicalResult rewrite(Operation *op,
                        const DenseMap<Operation *, int64_t> &slots) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto bufferOf = [&](Value tensor) -> Value {
      auto type = cast<RankedTensorType>(tensor.getType());
      Value buffer = bufferization::ToBufferOp::create(
          b, loc, stridedType(type.getShape(), type.getElementType()), tensor,
          /*read_only=*/true);
      return memref::CastOp::create(b, loc, unrankedType(tensor), buffer);
    };
    auto call = [&](StringRef what, Value tensor, ValueRange args) {
      FailureOr<func::FuncOp> callee =
          declare(getOperation(), op, getArgument(),
                  transferCallee(what, tensor), args.getTypes());
      if (failed(callee))
        return failure();
      func::CallOp::create(b, loc, *callee, args);
      return success();
    };
    auto slotOf = [&](Operation *transfer) -> Value {
      return arith::ConstantIntOp::create(b, loc, slots.lookup(transfer), 64);
    };
    if (auto offload = dyn_cast<OffloadOp>(op)) {
      Value x = offload.getValue();
      return call("offload", x, {bufferOf(x), slotOf(op)});
    }
    if (auto fetch = dyn_cast<FetchOp>(op)) {
      auto type = cast<RankedTensorType>(fetch.getType());
      Value out = memref::AllocOp::create(
          b, loc, MemRefType::get(type.getShape(), type.getElementType()));
      Value outArg =
          memref::CastOp::create(b, loc, unrankedType(fetch.getResult()), out);
      if (failed(call("fetch", fetch.getResult(), {slotOf(op), outArg})))
        return failure();
      Value result = bufferization::ToTensorOp::create(
          b, loc, type, out, /*restrict=*/true, /*writable=*/true);
      fetch.getResult().replaceAllUsesWith(result);
      return success();
    }
    Value v = cast<TransferWaitOp>(op).getValue();
    return call("transfer_wait", v, {slotOf(op), bufferOf(v)});
  }
};

} // namespace
