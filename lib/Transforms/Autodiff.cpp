//===- Autodiff.cpp - Reverse-mode differentiation of models ----*- C++ -*-===//
//
// Part of the Echo project.
//
// Builds `@f_train` for every model `@f`: a clone of the forward pass followed
// by its reverse, assembled from the ops' DifferentiableOpInterface. Per-op
// knowledge (which adjoints exist, which forward values they read) lives on
// the ops; this pass only orders, accumulates and returns the adjoints.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOAUTODIFF
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// Returns a splat constant of `type` (a float tensor) holding `value`.
Value splatConstant(OpBuilder &b, Location loc, Type type, double value) {
  auto shaped = cast<ShapedType>(type);
  auto attr = DenseElementsAttr::get(
      shaped, b.getFloatAttr(shaped.getElementType(), value));
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
}

/// Builds the training step of one model.
class TrainStepBuilder {
public:
  TrainStepBuilder(Optimizer optimizer, double lr)
      : optimizer(optimizer), lr(lr) {}

  /// Clones `model` into `train`'s body and appends the backward pass.
  /// Returns the number of ops the backward pass added.
  FailureOr<int64_t> build(func::FuncOp train);

private:
  /// Adds `grad` to the adjoint of `value`.
  void accumulate(OpBuilder &b, Location loc, Value value, Value grad);

  Optimizer optimizer;
  double lr;
  DenseMap<Value, Value> adjoints;
};
} // namespace

void TrainStepBuilder::accumulate(OpBuilder &b, Location loc, Value value,
                                  Value grad) {
  Value &slot = adjoints[value];
  slot = slot ? AddOp::create(b, loc, slot, grad).getResult() : grad;
}

FailureOr<int64_t> TrainStepBuilder::build(func::FuncOp train) {
  Block &body = train.front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Value loss = ret.getOperand(0);
  Location loc = ret.getLoc();

  // Values that depend on a parameter: only they need adjoints.
  llvm::DenseSet<Value> active;
  for (BlockArgument arg : train.getArguments())
    if (isParamArgument(train, arg.getArgNumber()))
      active.insert(arg);
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator()) {
    forward.push_back(&op);
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      active.insert(op.result_begin(), op.result_end());
  }

  OpBuilder b(ret);
  if (active.contains(loss))
    adjoints[loss] = splatConstant(b, loc, loss.getType(), 1.0);

  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value result : op->getResults()) {
      resultGrads.push_back(active.contains(result) ? adjoints.lookup(result)
                                                    : Value());
      any |= static_cast<bool>(resultGrads.back());
    }
    if (!any)
      continue;
    auto diff = dyn_cast<DifferentiableOpInterface>(op);
    if (!diff)
      return op->emitError("cannot differentiate '")
             << op->getName() << "': it does not implement "
             << "DifferentiableOpInterface";
    SmallVector<Value> operandGrads;
    if (failed(diff.buildGradient(b, resultGrads, operandGrads)))
      return failure();
    for (auto [operand, grad] :
         llvm::zip_equal(op->getOperands(), operandGrads))
      if (grad && active.contains(operand))
        accumulate(b, op->getLoc(), operand, grad);
  }

  // Results: the loss, then one value per parameter in argument order.
  SmallVector<Value> results{loss};
  for (BlockArgument arg : train.getArguments()) {
    if (!isParamArgument(train, arg.getArgNumber()))
      continue;
    Value grad = adjoints.lookup(arg);
    if (!grad)
      grad = splatConstant(b, loc, arg.getType(), 0.0);
    if (optimizer == Optimizer::Sgd) {
      Value step =
          MulOp::create(b, loc, splatConstant(b, loc, arg.getType(), lr), grad);
      grad = SubOp::create(b, loc, arg, step);
    }
    results.push_back(grad);
  }
  func::ReturnOp::create(b, loc, results);
  ret.erase();
  train.setFunctionType(FunctionType::get(train.getContext(),
                                          train.getArgumentTypes(),
                                          ValueRange(results).getTypes()));

  // Adjoints built for operands that do not depend on a parameter (e.g. the
  // data input of a linear layer) are dead; drop them.
  int64_t numForward = forward.size();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) {
    if (!isOpTriviallyDead(op))
      continue;
    if (llvm::is_contained(forward, op))
      --numForward;
    op->erase();
  }
  int64_t numOps = std::distance(body.begin(), body.end()) - 1;
  return numOps - numForward;
}

namespace {
struct EchoAutodiffPass
    : public echo::impl::EchoAutodiffBase<EchoAutodiffPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // A non-finite rate would make every updated parameter non-finite.
    if (!std::isfinite(lr)) {
      module.emitError()
          << "echo-autodiff: lr must be a finite number, got "
          << llvm::formatv("{0}", llvm::format("%g", lr.getValue())).str();
      return signalPassFailure();
    }

    SmallVector<func::FuncOp> models;
    for (auto func : module.getOps<func::FuncOp>())
      if (isModelCandidate(func))
        models.push_back(func);

    SymbolTable symbols(module);
    bool ok = true;
    for (func::FuncOp model : models) {
      if (failed(verifyModelConvention(model))) {
        ok = false;
        continue;
      }
      std::string name = (model.getSymName() + "_train").str();
      // A model differentiated earlier (e.g. by an explicit echo-autodiff
      // before echo-pipeline) keeps its training step.
      auto existing = symbols.lookup<func::FuncOp>(name);
      if (existing && existing->hasAttr(EchoDialect::getTrainStepAttrName()))
        continue;
      if (symbols.lookup(name)) {
        model.emitError() << "cannot add the training step of @"
                          << model.getSymName() << ": symbol @" << name
                          << " already exists";
        ok = false;
        continue;
      }
      auto train = cast<func::FuncOp>(model->clone());
      train.setSymName(name);
      train->setAttr(EchoDialect::getTrainStepAttrName(),
                     UnitAttr::get(&getContext()));
      symbols.insert(train, std::next(Block::iterator(model)));
      FailureOr<int64_t> numOps = TrainStepBuilder(optimizer, lr).build(train);
      if (failed(numOps)) {
        train.erase();
        ok = false;
        continue;
      }
      ++numSteps;
      numGradientOps += *numOps;
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
