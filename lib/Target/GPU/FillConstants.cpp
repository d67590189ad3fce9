//===- FillConstants.cpp - Splat tensor constants in device memory --------===//
//
// Part of the Echo project.
//
// echo-fill-constants (see Passes.td): a GPU kernel cannot read the host
// `memref.global` that bufferization makes of a tensor constant, so splat
// constants become `linalg.fill`s of planned, device-resident buffers.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOFILLCONSTANTS
#include "echo/Target/GPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

struct EchoFillConstantsPass
    : public echo::impl::EchoFillConstantsBase<EchoFillConstantsPass> {
  void runOnOperation() override {
    SmallVector<arith::ConstantOp> constants;
    getOperation().walk([&](arith::ConstantOp op) {
      if (isa<RankedTensorType>(op.getType()) &&
          op->getParentOfType<FunctionOpInterface>())
        constants.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (arith::ConstantOp op : constants) {
      auto value = dyn_cast<SplatElementsAttr>(op.getValue());
      if (!value) {
        op.emitOpError("echo-fill-constants: only splat tensor constants "
                       "can be materialized in device memory");
        return signalPassFailure();
      }
      auto type = cast<RankedTensorType>(op.getType());
      rewriter.setInsertionPoint(op);
      Value scalar = arith::ConstantOp::create(
          rewriter, op.getLoc(), value.getSplatValue<TypedAttr>());
      Value empty = tensor::EmptyOp::create(
          rewriter, op.getLoc(), type.getShape(), type.getElementType());
      rewriter.replaceOpWithNewOp<linalg::FillOp>(op, scalar, empty);
    }
  }
};

} // namespace
