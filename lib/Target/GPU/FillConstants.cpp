//===- FillConstants.cpp - Splat tensor constants in device memory --------===//
//
// Part of the Echo project.
//
// echo-fill-constants (see Passes.td): a GPU kernel cannot read the host
// `memref.global` that bufferization makes of a tensor constant, so splat
// constants become `linalg.fill`s of planned, device-resident buffers and
// other dense constants copies, by a generic, from a constant global that
// kernels read from device memory.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
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
    SymbolTable symbols(getOperation());
    for (arith::ConstantOp op : constants) {
      auto type = cast<RankedTensorType>(op.getType());
      rewriter.setInsertionPoint(op);
      Value empty = tensor::EmptyOp::create(
          rewriter, op.getLoc(), type.getShape(), type.getElementType());
      if (auto value = dyn_cast<SplatElementsAttr>(op.getValue())) {
        Value scalar = arith::ConstantOp::create(
            rewriter, op.getLoc(), value.getSplatValue<TypedAttr>());
        rewriter.replaceOpWithNewOp<linalg::FillOp>(op, scalar, empty);
        continue;
      }
      auto value = dyn_cast<DenseElementsAttr>(op.getValue());
      if (!value) {
        op.emitOpError("echo-fill-constants: only dense tensor constants can "
                       "be materialized in device memory");
        return signalPassFailure();
      }
      // The data goes in a constant global, which kernel outlining copies
      // into the kernels that read it (device global memory); a generic
      // copies it into a planned buffer element by element.
      auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
      memref::GlobalOp global;
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(getOperation().getBody());
        global = memref::GlobalOp::create(
            rewriter, op.getLoc(), "__echo_constant",
            rewriter.getStringAttr("private"), memrefType, value,
            /*constant=*/true, /*alignment=*/IntegerAttr());
        symbols.insert(global); // renamed if the name is taken
      }
      int64_t rank = type.getRank();
      SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::parallel);
      StringRef name = global.getSymName();
      rewriter.replaceOpWithNewOp<linalg::GenericOp>(
          op, TypeRange{type}, ValueRange{}, ValueRange{empty}, maps, iterators,
          [&](OpBuilder &b, Location loc, ValueRange) {
            Value data = memref::GetGlobalOp::create(b, loc, memrefType, name);
            SmallVector<Value> indices;
            for (int64_t d = 0; d < rank; ++d)
              indices.push_back(linalg::IndexOp::create(b, loc, d));
            Value element = memref::LoadOp::create(b, loc, data, indices);
            linalg::YieldOp::create(b, loc, element);
          });
    }
  }
};

} // namespace
