//===- Autodiff.cpp - Reverse-mode differentiation of models ----*- C++ -*-===//
//
// Part of the Echo project.
//
// Builds `@f_train` for every model `@f`: a clone of the forward pass followed
// by its reverse, assembled from the ops' DifferentiableOpInterface. Per-op
// knowledge (which adjoints exist, which forward values they read) lives on
// the ops; this pass only orders, accumulates and returns the adjoints.
//
// With a stateful optimizer (momentum, adam, adamw) the step also takes the
// optimizer's state and hyperparameters and updates each parameter as soon
// as its gradient is final and nothing reads the old value any more
// (placeInPlaceUpdates), so that the gradients of all parameters are never
// live at once.
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
  TrainStepBuilder(Optimizer optimizer, double lr, bool lossScale)
      : optimizer(optimizer), lr(lr), lossScale(lossScale) {}

  /// Clones `model` into `train`'s body and appends the backward pass.
  /// Returns the number of ops the backward pass added.
  FailureOr<int64_t> build(func::FuncOp train);

private:
  /// Adds `grad` to the adjoint of `value`.
  void accumulate(OpBuilder &b, Location loc, Value value, Value grad);

  /// A stateful optimizer: appends the state and hyperparameter arguments
  /// to `train` and builds one update op per parameter (`params`, with
  /// `grads`) at `b`; returns the new parameters, then the new states, and
  /// sets `echo.updated_arguments`.
  SmallVector<Value> buildUpdates(OpBuilder &b, Location loc,
                                  func::FuncOp train,
                                  ArrayRef<BlockArgument> params,
                                  ArrayRef<Value> grads);

  Optimizer optimizer;
  double lr;
  /// The loss's adjoint is a trailing argument (`echo.hyper =
  /// "loss_scale"`) instead of 1.
  bool lossScale;
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

  // Values that depend on a parameter through operands that receive
  // gradients: only they need adjoints (a stop-gradient's result needs none).
  llvm::DenseSet<Value> active;
  for (BlockArgument arg : train.getArguments())
    if (isParamArgument(train, arg.getArgNumber()))
      active.insert(arg);
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator()) {
    forward.push_back(&op);
    auto diff = dyn_cast<DifferentiableOpInterface>(op);
    if (llvm::any_of(op.getOpOperands(), [&](OpOperand &use) {
          return active.contains(use.get()) &&
                 (!diff || diff.isDifferentiableOperand(use.getOperandNumber()));
        }))
      active.insert(op.result_begin(), op.result_end());
  }

  OpBuilder b(ret);
  Value seed;
  if (lossScale) {
    // Dynamic loss scaling: every gradient comes out multiplied by the
    // scale the caller passes (and divides by again).
    MLIRContext *ctx = train.getContext();
    unsigned index = train.getNumArguments();
    (void)train.insertArgument(
        index, loss.getType(),
        DictionaryAttr::get(ctx,
                            NamedAttribute(EchoDialect::getHyperAttrName(),
                                           StringAttr::get(ctx, "loss_scale"))),
        loc);
    seed = body.getArgument(index);
  }
  if (active.contains(loss))
    adjoints[loss] = seed ? seed : splatConstant(b, loc, loss.getType(), 1.0);

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
  SmallVector<BlockArgument> params;
  SmallVector<Value> grads;
  for (BlockArgument arg : train.getArguments()) {
    if (!isParamArgument(train, arg.getArgNumber()))
      continue;
    Value grad = adjoints.lookup(arg);
    if (!grad)
      grad = splatConstant(b, loc, arg.getType(), 0.0);
    params.push_back(arg);
    grads.push_back(grad);
  }
  if (isStatefulOptimizer(optimizer)) {
    llvm::append_range(results, buildUpdates(b, loc, train, params, grads));
  } else {
    for (auto [arg, grad] : llvm::zip_equal(params, grads)) {
      Value result = grad;
      if (optimizer == Optimizer::Sgd) {
        Value step = MulOp::create(
            b, loc, splatConstant(b, loc, arg.getType(), lr), grad);
        result = SubOp::create(b, loc, arg, step);
      }
      results.push_back(result);
    }
  }
  func::ReturnOp::create(b, loc, results);
  ret.erase();
  train.setFunctionType(FunctionType::get(train.getContext(),
                                          train.getArgumentTypes(),
                                          ValueRange(results).getTypes()));
  // Each update right after its gradient's last accumulation and the old
  // parameter's last reader.
  placeInPlaceUpdates(body);

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

SmallVector<Value>
TrainStepBuilder::buildUpdates(OpBuilder &b, Location loc, func::FuncOp train,
                               ArrayRef<BlockArgument> params,
                               ArrayRef<Value> grads) {
  MLIRContext *ctx = train.getContext();
  Block &body = train.front();
  auto append = [&](Type type, NamedAttribute marker) {
    unsigned index = train.getNumArguments();
    (void)train.insertArgument(index, type, DictionaryAttr::get(ctx, marker),
                               loc);
    return body.getArgument(index);
  };
  // The state, per parameter in parameter order, then the hyperparameters.
  ArrayRef<StringLiteral> stateNames = getOptimizerStateNames(optimizer);
  SmallVector<SmallVector<Value>> states;
  for (BlockArgument param : params) {
    states.emplace_back();
    for (size_t k = 0; k < stateNames.size(); ++k)
      states.back().push_back(
          append(param.getType(),
                 NamedAttribute(EchoDialect::getOptimizerStateAttrName(),
                                UnitAttr::get(ctx))));
  }
  SmallVector<Value> hypers;
  auto scalar = RankedTensorType::get({}, Float32Type::get(ctx));
  for (StringRef name : getOptimizerHyperNames(optimizer))
    hypers.push_back(
        append(scalar, NamedAttribute(EchoDialect::getHyperAttrName(),
                                      StringAttr::get(ctx, name))));

  SmallVector<Value> newParams, newStates;
  for (auto [param, grad, state] : llvm::zip_equal(params, grads, states)) {
    Type type = param.getType();
    Operation *update;
    if (optimizer == Optimizer::Momentum)
      update =
          MomentumUpdateOp::create(b, loc, type, type, param, grad, state[0],
                                   hypers[0], hypers[1], hypers[2]);
    else
      update = AdamUpdateOp::create(
          b, loc, type, type, type, param, grad, state[0], state[1], hypers[0],
          hypers[1], hypers[2], hypers[3], hypers[4], hypers[5],
          b.getBoolAttr(optimizer == Optimizer::AdamW));
    newParams.push_back(update->getResult(0));
    llvm::append_range(newStates, update->getResults().drop_front());
  }

  // Which argument each result replaces: the loss none, then the
  // parameters, then the states in argument order.
  SmallVector<int64_t> updated{-1};
  for (BlockArgument param : params)
    updated.push_back(param.getArgNumber());
  for (ArrayRef<Value> state : states)
    for (Value s : state)
      updated.push_back(cast<BlockArgument>(s).getArgNumber());
  train->setAttr(EchoDialect::getUpdatedArgumentsAttrName(),
                 DenseI64ArrayAttr::get(ctx, updated));
  SmallVector<Value> results = newParams;
  llvm::append_range(results, newStates);
  return results;
}

namespace {
struct EchoAutodiffPass
    : public echo::impl::EchoAutodiffBase<EchoAutodiffPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (lossScale && optimizer != Optimizer::None) {
      module.emitError() << "echo-autodiff: loss-scale needs optimizer=none "
                            "(the caller unscales the gradients before it "
                            "updates the parameters)";
      return signalPassFailure();
    }
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
      FailureOr<int64_t> numOps =
          TrainStepBuilder(optimizer, lr, lossScale).build(train);
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
