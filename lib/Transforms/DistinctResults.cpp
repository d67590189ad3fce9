//===- DistinctResults.cpp - Return each tensor value once ----------------===//
//
// Part of the Echo project.
//
// echo-distinct-results (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHODISTINCTRESULTS
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {
struct EchoDistinctResultsPass
    : public echo::impl::EchoDistinctResultsBase<EchoDistinctResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      DenseSet<Value> returned;
      for (OpOperand &operand : ret->getOpOperands()) {
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!type || returned.insert(operand.get()).second)
          continue;
        operand.set(bufferization::AllocTensorOp::create(
            b, ret.getLoc(), type, ValueRange{}, /*copy=*/operand.get()));
      }
    });
  }
};
} // namespace
