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

#include "echo/Conversion/Passes.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOLIBRARYCALLS
#include "echo/Conversion/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// `shape` with an unknown offset and unknown strides (what the runtime
/// reads from the descriptor).
MemRefType stridedType(ArrayRef<int64_t> shape, Type elementType) {
  MLIRContext *ctx = elementType.getContext();
  auto layout = StridedLayoutAttr::get(
      ctx, ShapedType::kDynamic,
      SmallVector<int64_t>(shape.size(), ShapedType::kDynamic));
  return MemRefType::get(shape, elementType, layout);
}

/// The type a runtime entry point takes for a buffer of rank `rank`.
MemRefType abiType(int64_t rank, Type elementType) {
  return stridedType(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                     elementType);
}

struct EchoLibraryCallsPass
    : public echo::impl::EchoLibraryCallsBase<EchoLibraryCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LibraryCallOpInterface> ops;
    module.walk([&](LibraryCallOpInterface op) { ops.push_back(op); });
    for (LibraryCallOpInterface op : ops)
      if (failed(rewrite(op)))
        return signalPassFailure();
  }

  LogicalResult rewrite(LibraryCallOpInterface op) {
    Operation *operation = op.getOperation();
    Location loc = op.getLoc();
    for (Type type : llvm::concat<Type>(operation->getOperandTypes(),
                                        operation->getResultTypes()))
      if (!getElementTypeOrSelf(type).isF32())
        return op.emitOpError() << "echo-library-calls: the runtime's '"
                                << op.getLibraryCallName()
                                << "' takes f32 buffers, not " << type;

    OpBuilder b(operation);
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
    Value out = memref::AllocOp::create(
        b, loc,
        MemRefType::get(resultType.getShape(), resultType.getElementType()));
    if (Value init = op.getLibraryCallInit()) {
      auto initType = cast<RankedTensorType>(init.getType());
      int64_t leading = resultType.getRank() - initType.getRank();
      linalg::BroadcastOp::create(
          b, loc, toBuffer(init), out,
          llvm::to_vector(llvm::seq<int64_t>(0, leading)));
    }
    args.push_back(toABI(out));
    for (int64_t scalar : op.getLibraryCallScalars())
      args.push_back(arith::ConstantIntOp::create(b, loc, scalar, 64));

    FailureOr<func::FuncOp> callee = declare(op, ValueRange(args).getTypes());
    if (failed(callee))
      return failure();
    func::CallOp::create(b, loc, *callee, args);
    Value result = bufferization::ToTensorOp::create(
        b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
    operation->getResult(0).replaceAllUsesWith(result);
    operation->erase();
    return success();
  }

  /// The private `llvm.emit_c_interface` declaration of the op's callee.
  FailureOr<func::FuncOp> declare(LibraryCallOpInterface op,
                                  TypeRange argTypes) {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    auto type = FunctionType::get(ctx, argTypes, {});
    StringRef name = op.getLibraryCallName();
    if (auto existing = module.lookupSymbol<func::FuncOp>(name)) {
      if (existing.getFunctionType() == type)
        return existing;
      InFlightDiagnostic diag =
          op.emitOpError() << "echo-library-calls: '" << name
                           << "' is already defined with type "
                           << existing.getFunctionType() << ", not " << type;
      diag.attachNote(existing.getLoc()) << "defined here";
      return failure();
    }
    if (module.lookupSymbol(name))
      return op.emitOpError() << "echo-library-calls: the symbol '" << name
                              << "' is taken by something other than a "
                                 "function";
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto decl = func::FuncOp::create(b, module.getLoc(), name, type);
    decl.setPrivate();
    decl->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
    return decl;
  }
};

} // namespace
