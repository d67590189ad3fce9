//===- TensorCostModels.cpp - CostOpInterface on tensor ops ---------------===//
//
// Part of the Echo project.
//
// Tensor ops compute nothing: no FLOPs. Reshapes, casts and `tensor.empty`
// (a destination that one-shot bufferization allocates for its writer)
// access no bytes of their own; the others move their tensors once.
//
//===----------------------------------------------------------------------===//

#include "CostModels.h"
#include "echo/Interfaces/ExternalModels.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::external;

void mlir::echo::registerTensorExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    using namespace tensor;
    attachAll<ViewCostModel, EmptyOp, CastOp, BitcastOp, ExpandShapeOp,
              CollapseShapeOp, ReshapeOp>(ctx);
    attachAll<DataMovementCostModel, ExtractSliceOp, InsertSliceOp, ConcatOp,
              PadOp, SplatOp, FromElementsOp, GatherOp, ScatterOp>(ctx);
  });
}
