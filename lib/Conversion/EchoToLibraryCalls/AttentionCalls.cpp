//===- AttentionCalls.cpp - Fused attention as runtime calls --------------===//
//
// Part of the Echo project.
//
// The part of echo-library-calls for echo.attention and echo.attention_grad,
// whose calls take more than the one output and the fixed inputs of
// LibraryCallOpInterface: two or three outputs, a bias and a step seed that
// may be absent (a zero 1x1x1x1 bias and a flag stand in), and f64
// attributes passed as their bits.
//
//===----------------------------------------------------------------------===//

#include "AttentionCalls.h"

#include "../Accumulation.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Runtime/EchoRuntimeABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::echo;

namespace {

class CallBuilder {
public:
  CallBuilder(Operation *op) : b(op), loc(op->getLoc()) {}

  /// `tensor` as the f32 buffer the runtime reads.
  void input(Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (isa<FloatType>(type.getElementType()) &&
        !type.getElementType().isF32()) {
      type = type.clone(b.getF32Type());
      tensor = CastOp::create(b, loc, type, tensor);
    }
    Value buffer = bufferization::ToBufferOp::create(
        b, loc, stridedType(type.getShape(), type.getElementType()), tensor,
        /*read_only=*/true);
    args.push_back(abi(buffer));
  }

  /// The bias, or a zero [1,1,1,1] where there is none.
  void bias(Value bias) {
    if (!bias) {
      auto type = RankedTensorType::get({1, 1, 1, 1}, b.getF32Type());
      bias = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(0.0f)));
    }
    input(bias);
  }

  /// The step seed, or a zero where there is none (then not read).
  void stepSeed(Value seed) {
    if (!seed) {
      auto type = RankedTensorType::get({}, b.getI64Type());
      seed = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(type, b.getI64IntegerAttr(0)));
    }
    input(seed);
  }

  /// A fresh f32 output buffer for `result`.
  void output(Value result) {
    auto type = cast<RankedTensorType>(result.getType());
    Value buffer = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), b.getF32Type()));
    outputs.push_back({result, buffer});
    args.push_back(abi(buffer));
  }

  void scalars(double scale, bool causal, double ratio, int64_t seed,
               bool hasStepSeed) {
    for (int64_t v :
         {llvm::bit_cast<int64_t>(scale), int64_t(causal),
          llvm::bit_cast<int64_t>(ratio), seed, int64_t(hasStepSeed)})
      args.push_back(arith::ConstantIntOp::create(b, loc, v, 64));
  }

  /// Calls `name` and replaces the results with the outputs (rounded back
  /// to their types).
  LogicalResult call(Operation *op, StringRef pass, StringRef name) {
    FailureOr<func::FuncOp> callee =
        declareLibraryCall(op->getParentOfType<ModuleOp>(), op, pass, name,
                           ValueRange(args).getTypes());
    if (failed(callee))
      return failure();
    func::CallOp::create(b, loc, *callee, args);
    for (auto [result, buffer] : outputs) {
      auto type = cast<RankedTensorType>(result.getType());
      Value value = bufferization::ToTensorOp::create(
          b, loc, type.clone(b.getF32Type()), buffer, /*restrict=*/true,
          /*writable=*/true);
      if (!type.getElementType().isF32())
        value = CastOp::create(b, loc, type, value);
      result.replaceAllUsesWith(value);
    }
    op->erase();
    return success();
  }

private:
  Value abi(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return memref::CastOp::create(
        b, loc,
        stridedType(SmallVector<int64_t>(type.getRank(), ShapedType::kDynamic),
                    type.getElementType()),
        buffer);
  }

  OpBuilder b;
  Location loc;
  SmallVector<Value> args;
  SmallVector<std::pair<Value, Value>> outputs;
};

template <typename OpT> void addScalars(CallBuilder &call, OpT op) {
  call.scalars(op.getScale().convertToDouble(), op.getCausal(),
               op.getDropoutRatio().convertToDouble(),
               static_cast<int64_t>(op.getSeed()), op.getStepSeed() != nullptr);
}

} // namespace

LogicalResult mlir::echo::lowerAttentionToCalls(ModuleOp module,
                                                StringRef pass) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<AttentionOp, AttentionGradOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    CallBuilder call(op);
    if (auto fwd = dyn_cast<AttentionOp>(op)) {
      call.input(fwd.getQ());
      call.input(fwd.getK());
      call.input(fwd.getV());
      call.bias(fwd.getBias());
      call.stepSeed(fwd.getStepSeed());
      call.output(fwd.getOut());
      call.output(fwd.getLse());
      addScalars(call, fwd);
      if (failed(call.call(op, pass, runtime::kAttentionForward)))
        return failure();
      continue;
    }
    auto grad = cast<AttentionGradOp>(op);
    for (Value v : {grad.getQ(), grad.getK(), grad.getV(), grad.getOut(),
                    grad.getLse(), grad.getDout()})
      call.input(v);
    call.bias(grad.getBias());
    call.stepSeed(grad.getStepSeed());
    call.output(grad.getDq());
    call.output(grad.getDk());
    call.output(grad.getDv());
    addScalars(call, grad);
    if (failed(call.call(op, pass, runtime::kAttentionBackward)))
      return failure();
  }
  return success();
}
