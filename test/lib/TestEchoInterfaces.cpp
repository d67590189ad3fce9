//===- TestEchoInterfaces.cpp - Test passes for Echo interfaces -*- C++ -*-===//
//
// Part of the Echo project.
//
// echo-test-cost: a remark per Echo op with its FLOP estimate and whether it
//   is compute-heavy.
// echo-test-gradient-reads: a remark per differentiable op with the forward
//   operands and results its gradient reads, and its stochastic mask results.
// echo-test-vjp: after each differentiable op, builds its vector-Jacobian
//   product from fresh placeholder adjoints (`tensor.empty`), so FileCheck
//   can tell an adjoint from a forward value, and checks that the built ops
//   read no forward value that getGradientReadOperands/Results does not
//   declare.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::echo;

namespace {
struct TestCostPass
    : public PassWrapper<TestCostPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestCostPass)
  StringRef getArgument() const final { return "echo-test-cost"; }
  StringRef getDescription() const final {
    return "Remark the cost estimate of every Echo op";
  }
  void runOnOperation() override {
    getOperation().walk([](CostOpInterface op) {
      op->emitRemark() << "flops = " << op.estimateFlops()
                       << (op.isComputeHeavy() ? ", compute-heavy" : "");
    });
  }
};

struct TestGradientReadsPass
    : public PassWrapper<TestGradientReadsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGradientReadsPass)
  StringRef getArgument() const final { return "echo-test-gradient-reads"; }
  StringRef getDescription() const final {
    return "Remark which forward values each gradient reads";
  }
  void runOnOperation() override {
    getOperation().walk([](DifferentiableOpInterface op) {
      InFlightDiagnostic diag = op->emitRemark() << "gradient reads operands [";
      llvm::interleaveComma(op.getGradientReadOperands(), diag);
      diag << "] results [";
      llvm::interleaveComma(op.getGradientReadResults(), diag);
      diag << "]";
      if (op.isGradientReadBinarizable())
        diag << " as 1-bit masks";
      SmallVector<unsigned> masks;
      for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
        if (op.isStochasticMaskResult(i))
          masks.push_back(i);
      if (!masks.empty()) {
        diag << "; stochastic masks [";
        llvm::interleaveComma(masks, diag);
        diag << "]";
      }
    });
  }
};

/// Records the ops an OpBuilder creates.
struct CreatedOps : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    ops.insert(op);
  }
  /// True when `v` is computed by a created op (or inside one).
  bool defines(Value v) const {
    Operation *def = v.getDefiningOp();
    if (!def)
      def = v.getParentRegion()->getParentOp();
    for (; def; def = def->getParentOp())
      if (ops.contains(def))
        return true;
    return false;
  }
  /// In creation order, so that diagnostics are deterministic.
  llvm::SetVector<Operation *> ops;
};

struct TestVJPPass
    : public PassWrapper<TestVJPPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestVJPPass)
  TestVJPPass() = default;
  TestVJPPass(const TestVJPPass &other) : PassWrapper(other) {}
  StringRef getArgument() const final { return "echo-test-vjp"; }
  StringRef getDescription() const final {
    return "Build the vector-Jacobian product of every differentiable op "
           "from placeholder adjoints, and check that it reads only the "
           "forward values the op declares";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<tensor::TensorDialect>();
  }
  Option<bool> declareNoReads{
      *this, "declare-no-reads",
      llvm::cl::desc("Check against an empty declaration (tests that the "
                     "check catches undeclared reads)"),
      llvm::cl::init(false)};

  void runOnOperation() override {
    SmallVector<DifferentiableOpInterface> ops;
    getOperation().walk(
        [&](DifferentiableOpInterface op) { ops.push_back(op); });
    for (DifferentiableOpInterface op : ops)
      if (failed(buildAndCheck(op)))
        return signalPassFailure();
  }

  LogicalResult buildAndCheck(DifferentiableOpInterface op) {
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(op);
    // Fresh placeholders for the adjoints of the float results, so that a
    // read of a result is not mistaken for a read of its adjoint.
    SmallVector<Value> resultGrads;
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || !isa<FloatType>(type.getElementType())) {
        resultGrads.push_back(Value());
        continue;
      }
      auto seed = tensor::EmptyOp::create(
          builder, op->getLoc(), type.getShape(), type.getElementType());
      seed->setAttr("test.adjoint_seed", builder.getI64IntegerAttr(i));
      resultGrads.push_back(seed);
    }
    CreatedOps created;
    builder.setListener(&created);
    SmallVector<Value> operandGrads;
    if (failed(op.buildGradient(builder, resultGrads, operandGrads)))
      return failure();
    if (operandGrads.size() != op->getNumOperands())
      return op->emitError()
             << "buildGradient returned " << operandGrads.size()
             << " adjoints for " << op->getNumOperands() << " operands";
    for (auto [i, grad] : llvm::enumerate(operandGrads)) {
      bool expected = op.isDifferentiableOperand(i);
      if (static_cast<bool>(grad) != expected)
        return op->emitError() << "operand #" << i
                               << (expected ? " got no adjoint"
                                            : " is not differentiable but "
                                              "got an adjoint");
      if (grad && grad.getType() != op->getOperand(i).getType())
        return op->emitError()
               << "adjoint of operand #" << i << " has type " << grad.getType();
      // Keep the adjoints observable in the output.
      if (grad)
        grad.getDefiningOp()->setAttr("test.adjoint_of",
                                      builder.getI64IntegerAttr(i));
    }
    return checkReads(op, created, resultGrads);
  }

  /// Every value the built ops read is theirs, an adjoint placeholder, or a
  /// forward operand or result that getGradientRead* declares.
  LogicalResult checkReads(DifferentiableOpInterface op,
                           const CreatedOps &created,
                           ArrayRef<Value> resultGrads) {
    DenseSet<Value> declared;
    if (!declareNoReads) {
      for (unsigned i : op.getGradientReadOperands())
        declared.insert(op->getOperand(i));
      for (unsigned i : op.getGradientReadResults())
        declared.insert(op->getResult(i));
    }
    DenseSet<Value> seeds(resultGrads.begin(), resultGrads.end());
    for (Operation *builtOp : created.ops) {
      WalkResult walk = builtOp->walk([&](Operation *nested) {
        for (Value v : nested->getOperands()) {
          if (created.defines(v) || seeds.contains(v) || declared.contains(v))
            continue;
          InFlightDiagnostic diag = op->emitError() << "the gradient reads ";
          if (auto result = dyn_cast<OpResult>(v);
              result && result.getOwner() == op)
            diag << "result #" << result.getResultNumber();
          else if (auto it = llvm::find(op->getOperands(), v);
                   it != op->getOperands().end())
            diag << "operand #" << (it - op->getOperands().begin());
          else
            diag << "a value that is neither an operand nor a result";
          diag << " that getGradientRead* does not declare (in '"
               << nested->getName() << "')";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
    }
    return success();
  }
};
} // namespace

namespace mlir::echo::test {
void registerTestPasses() {
  PassRegistration<TestCostPass>();
  PassRegistration<TestGradientReadsPass>();
  PassRegistration<TestVJPPass>();
}
} // namespace mlir::echo::test
