//===- VerifyModel.cpp - Check the model convention -------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOVERIFYMODEL
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

bool mlir::echo::isParamArgument(func::FuncOp func, unsigned index) {
  return static_cast<bool>(
      func.getArgAttr(index, EchoDialect::getParamAttrName()));
}

bool mlir::echo::isModelCandidate(func::FuncOp func) {
  return !func.isDeclaration() &&
         !func->hasAttr(EchoDialect::getTrainStepAttrName());
}

LogicalResult mlir::echo::verifyModelConvention(func::FuncOp func) {
  bool ok = true;
  FunctionType type = func.getFunctionType();
  auto loss = type.getNumResults() == 1
                  ? dyn_cast<RankedTensorType>(type.getResult(0))
                  : RankedTensorType();
  if (!loss || loss.getRank() != 0 || !loss.getElementType().isF32()) {
    func.emitError() << "model @" << func.getSymName()
                     << " must return exactly one scalar loss of type "
                        "tensor<f32>, but returns "
                     << type.getResults();
    ok = false;
  }

  if (llvm::none_of(llvm::seq(func.getNumArguments()),
                    [&](unsigned i) { return isParamArgument(func, i); })) {
    func.emitError() << "model @" << func.getSymName()
                     << " has no argument marked '"
                     << EchoDialect::getParamAttrName()
                     << "': there is nothing to train";
    ok = false;
  }

  if (!func.getBody().hasOneBlock()) {
    func.emitError() << "model @" << func.getSymName()
                     << " must have a single block (no control flow)";
    return failure();
  }
  for (Operation &op : func.getBody().front()) {
    if (isa<DifferentiableOpInterface, arith::ConstantOp, func::ReturnOp>(op))
      continue;
    op.emitError() << "'" << op.getName() << "' in model @" << func.getSymName()
                   << " is not a differentiable Echo forward op";
    ok = false;
  }
  if (!ok)
    return failure();

  // Bytes stay countable: each argument is a bounded tensor (ops check
  // their own), and all the model's tensors together take at most 2^60
  // bytes, so that every sum over its training step (a few times the
  // model, with gradients and recomputed copies) fits in int64.
  int64_t total = 0;
  constexpr int64_t maxModelBytes = int64_t(1) << 60;
  auto count = [&](int64_t bytes) -> LogicalResult {
    total += bytes; // each at most 2^50, and total at most 2^60 before
    if (total <= maxModelBytes)
      return success();
    return func.emitError()
           << "the tensors of model @" << func.getSymName()
           << " take more than 2^60 bytes (1 EiB) in all: its memory cannot "
              "be counted";
  };
  for (auto [i, arg] : llvm::enumerate(func.getArguments()))
    if (failed(verifyTensorBound(
            [&] { return func.emitError(); }, arg.getType(),
            "argument #" + Twine(i) + " of model @" + func.getSymName())) ||
        failed(count(*getCheckedTensorBytes(arg.getType()))))
      return failure();
  for (Operation &op : func.getBody().front())
    for (Type type : op.getResultTypes())
      // (Constants are not Echo ops: their bound is checked here.)
      if (failed(verifyTensorBound([&] { return op.emitError(); }, type,
                                   "a result")) ||
          failed(count(*getCheckedTensorBytes(type))))
        return failure();
  return success();
}

namespace {
struct EchoVerifyModelPass
    : public echo::impl::EchoVerifyModelBase<EchoVerifyModelPass> {
  using Base::Base;

  void runOnOperation() override {
    bool ok = true;
    llvm::StringSet<> wanted, found;
    for (const std::string &name : functions)
      wanted.insert(name);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!isModelCandidate(func))
        continue;
      if (!wanted.empty() && !wanted.contains(func.getSymName()))
        continue;
      found.insert(func.getSymName());
      ++numModels;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (isParamArgument(func, i))
          ++numParams;
      ok &= succeeded(verifyModelConvention(func));
    }
    for (const std::string &name : functions) {
      if (found.contains(name))
        continue;
      getOperation().emitError() << "no function @" << name << " to check";
      ok = false;
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
