//===- Autocast.cpp - Automatic mixed precision ---------------------------===//
//
// Part of the Echo project.
//
// echo-autocast (see Passes.td): each Echo op of a model runs in the
// precision of its AutocastOpInterface policy; echo.cast ops are inserted
// where a value crosses from one precision to another.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOAUTOCAST
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// The float element type of `value`, or null when it is not a float
/// tensor.
FloatType floatElementType(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? dyn_cast<FloatType>(type.getElementType()) : FloatType();
}

/// The widest of the float element types of `values` that are not
/// constants (a constant takes the type of the op that reads it, as a
/// Python scalar does under PyTorch's type promotion); f32 when two 16-bit
/// types differ (neither holds the other). Null when there is none.
Type widestFloatType(ValueRange values) {
  FloatType widest;
  for (Value v : values) {
    if (matchPattern(v, m_Constant()))
      continue;
    FloatType t = floatElementType(v);
    if (!t || t == widest)
      continue;
    if (!widest || t.getWidth() > widest.getWidth())
      widest = t;
    else if (t.getWidth() == widest.getWidth())
      widest = Float32Type::get(t.getContext());
  }
  return widest;
}

struct EchoAutocastPass
    : public echo::impl::EchoAutocastBase<EchoAutocastPass> {
  using EchoAutocastBase::EchoAutocastBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() ||
          func->hasAttr(EchoDialect::getTrainStepAttrName()))
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitOpError() << getArgument() << ": a model's body is one block";
        return signalPassFailure();
      }
      autocast(func);
    }
  }

  void autocast(func::FuncOp func) {
    Type low = getPrecisionType(&getContext(), dtype);
    Type f32 = Float32Type::get(&getContext());
    // One cast per value and type, placed before its first use: a later
    // reader shares it (a parameter read at every step of an unrolled RNN is
    // converted once).
    DenseMap<std::pair<Value, Type>, Value> casts;
    auto castTo = [&](Operation *user, Value value, Type elementType) {
      Value &slot = casts[{value, elementType}];
      if (!slot) {
        OpBuilder b(user);
        auto type = cast<RankedTensorType>(value.getType());
        slot =
            CastOp::create(b, user->getLoc(), type.clone(elementType), value);
        ++numCasts;
      }
      return slot;
    };

    Block &body = func.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
          Value v = ret.getOperand(i);
          FloatType et = floatElementType(v);
          Type want = getElementTypeOrSelf(type);
          if (et && et != want)
            ret.setOperand(i, castTo(ret, v, want));
        }
        continue;
      }
      auto policyOp = dyn_cast<AutocastOpInterface>(op);
      if (!policyOp)
        continue;
      Type target;
      switch (policyOp.getAutocastPolicy()) {
      case AutocastPolicy::Keep:
        continue;
      case AutocastPolicy::Lower:
        target = low;
        break;
      case AutocastPolicy::Full:
        target = f32;
        break;
      case AutocastPolicy::Follow:
        target = widestFloatType(op.getOperands());
        break;
      case AutocastPolicy::FollowInput:
        target = op.getNumOperands() ? floatElementType(op.getOperand(0))
                                     : FloatType();
        break;
      }
      if (!target)
        continue;
      if (target == low)
        ++numLowered;
      for (OpOperand &operand : op.getOpOperands()) {
        FloatType et = floatElementType(operand.get());
        if (et && et != target)
          operand.set(castTo(&op, operand.get(), target));
      }
      for (Value result : op.getResults())
        if (floatElementType(result))
          result.setType(
              cast<RankedTensorType>(result.getType()).clone(target));
    }
  }
};

} // namespace
