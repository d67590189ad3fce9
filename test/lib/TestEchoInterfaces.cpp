//===- TestEchoInterfaces.cpp - Test passes for Echo interfaces -*- C++ -*-===//
//
// Part of the Echo project.
//
// echo-test-cost: a remark per Echo op with its FLOP estimate and whether it
//   is compute-heavy.
// echo-test-gradient-reads: a remark per differentiable op with the forward
//   operands and results its gradient reads.
// echo-test-vjp: after each differentiable op, builds its vector-Jacobian
//   product with the op's own float results standing in for the adjoints, so
//   FileCheck can see which forward values the built gradient ops read.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

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
    });
  }
};

struct TestVJPPass
    : public PassWrapper<TestVJPPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestVJPPass)
  StringRef getArgument() const final { return "echo-test-vjp"; }
  StringRef getDescription() const final {
    return "Build the vector-Jacobian product of every differentiable op";
  }
  void runOnOperation() override {
    SmallVector<DifferentiableOpInterface> ops;
    getOperation().walk(
        [&](DifferentiableOpInterface op) { ops.push_back(op); });
    for (DifferentiableOpInterface op : ops) {
      OpBuilder builder(op->getContext());
      builder.setInsertionPointAfter(op);
      SmallVector<Value> resultGrads;
      for (Value result : op->getResults())
        resultGrads.push_back(
            isa<FloatType>(getElementTypeOrSelf(result.getType())) ? result
                                                                   : Value());
      SmallVector<Value> operandGrads;
      if (failed(op.buildGradient(builder, resultGrads, operandGrads)))
        return signalPassFailure();
      if (operandGrads.size() != op->getNumOperands()) {
        op->emitError() << "buildGradient returned " << operandGrads.size()
                        << " adjoints for " << op->getNumOperands()
                        << " operands";
        return signalPassFailure();
      }
      for (auto [i, grad] : llvm::enumerate(operandGrads)) {
        bool expected = op.isDifferentiableOperand(i);
        if (static_cast<bool>(grad) != expected) {
          op->emitError() << "operand #" << i
                          << (expected ? " got no adjoint"
                                       : " is not differentiable but got "
                                         "an adjoint");
          return signalPassFailure();
        }
        if (grad && grad.getType() != op->getOperand(i).getType()) {
          op->emitError() << "adjoint of operand #" << i << " has type "
                          << grad.getType();
          return signalPassFailure();
        }
        // Keep the adjoints observable in the output.
        if (grad)
          grad.getDefiningOp()->setAttr("test.adjoint_of",
                                        builder.getI64IntegerAttr(i));
      }
    }
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
