//===- TosaCostModels.cpp - CostOpInterface on TOSA ops -------------------===//
//
// Part of the Echo project.
//
// A family table, as upstream's TOSA sharding models are: elementwise ops
// at one FLOP per element, transcendentals at four, reductions per input
// element, pools per window element, data movement and views at none; the
// GEMM, the convolutions and the FFTs are compute-heavy. Ops left out (the
// block-scaled casts and matmul, resize, custom, control flow, variables,
// shape arithmetic) have no model: recomputation never clones them.
//
//===----------------------------------------------------------------------===//

#include "CostModels.h"
#include "echo/Interfaces/ExternalModels.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::external;

namespace {

/// `tosa.matmul`: [N,H,C] x [N,C,W] -> [N,H,W], 2·N·H·W·C FLOPs.
struct MatMulCostModel
    : CostOpInterface::ExternalModel<MatMulCostModel, tosa::MatMulOp> {
  int64_t estimateFlops(Operation *op) const {
    if (!isPriced(op))
      return 0;
    auto matmul = cast<tosa::MatMulOp>(op);
    auto a = cast<ShapedType>(matmul.getA().getType());
    if (!a.hasRank() || a.getRank() != 3 || a.isDynamicDim(2))
      return 0;
    return 2 * getStaticElementCount(matmul.getType()) * a.getDimSize(2);
  }
  bool isComputeHeavy(Operation *) const { return true; }
  int64_t estimateBytesAccessed(Operation *op) const {
    return getPricedBytes(op);
  }
};

/// A convolution (weight operand #1, output channels last): two FLOPs per
/// output element and weight element feeding it (the weight's elements over
/// the output channels: KH·KW·IC for conv2d, KH·KW for depthwise).
template <typename OpTy>
struct ConvCostModel
    : CostOpInterface::ExternalModel<ConvCostModel<OpTy>, OpTy> {
  int64_t estimateFlops(Operation *op) const {
    if (!isPriced(op))
      return 0;
    auto result = cast<ShapedType>(op->getResult(0).getType());
    int64_t weight = getStaticElementCount(op->getOperand(1).getType());
    if (!result.hasStaticShape() || result.getRank() == 0 || weight == 0)
      return 0;
    int64_t channels = result.getShape().back();
    return channels ? 2 * result.getNumElements() * (weight / channels) : 0;
  }
  bool isComputeHeavy(Operation *) const { return true; }
  int64_t estimateBytesAccessed(Operation *op) const {
    return getPricedBytes(op);
  }
};

/// The FFTs: 5·n·log2(n) FLOPs over the n elements of the largest tensor.
template <typename OpTy>
struct FFTCostModel : CostOpInterface::ExternalModel<FFTCostModel<OpTy>, OpTy> {
  int64_t estimateFlops(Operation *op) const {
    if (!isPriced(op))
      return 0;
    int64_t n = echo::detail::estimatePerElementFlops(op, 1);
    return n > 1 ? 5 * n * llvm::Log2_64_Ceil(n) : n;
  }
  bool isComputeHeavy(Operation *) const { return true; }
  int64_t estimateBytesAccessed(Operation *op) const {
    return getPricedBytes(op);
  }
};

/// A 2-D pool: one FLOP per output element and window element.
template <typename OpTy>
struct PoolCostModel
    : CostOpInterface::ExternalModel<PoolCostModel<OpTy>, OpTy> {
  int64_t estimateFlops(Operation *op) const {
    if (!isPriced(op))
      return 0;
    int64_t window = 1;
    for (int64_t k : cast<OpTy>(op).getKernel())
      window *= k;
    return getStaticElementCount(op->getResult(0).getType()) * window;
  }
  bool isComputeHeavy(Operation *) const { return false; }
  int64_t estimateBytesAccessed(Operation *op) const {
    return getPricedBytes(op);
  }
};

} // namespace

void mlir::echo::registerTosaExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    using namespace tosa;
    attachPerElement<1, AbsOp, AddOp, SubOp, MulOp, NegateOp, MaximumOp,
                     MinimumOp, ClampOp, CeilOp, FloorOp, SelectOp, EqualOp,
                     GreaterOp, GreaterEqualOp, LogicalAndOp, LogicalOrOp,
                     LogicalNotOp, LogicalXorOp, LogicalLeftShiftOp,
                     LogicalRightShiftOp, ArithmeticRightShiftOp, BitwiseAndOp,
                     BitwiseOrOp, BitwiseXorOp, BitwiseNotOp, ClzOp, IntDivOp,
                     CastOp, RescaleOp, TableOp>(ctx);
    attachPerElement<4, ExpOp, LogOp, TanhOp, SigmoidOp, ErfOp, PowOp, RsqrtOp,
                     ReciprocalOp, SinOp, CosOp>(ctx);
    attachPerElement<1, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProductOp,
                     ReduceAllOp, ReduceAnyOp, ArgMaxOp>(ctx);
    attachAll<DataMovementCostModel, TransposeOp, SliceOp, ConcatOp, PadOp,
              TileOp, ReverseOp, GatherOp, ScatterOp>(ctx);
    attachAll<ViewCostModel, ReshapeOp, IdentityOp>(ctx);
    attachAll<PoolCostModel, AvgPool2dOp, MaxPool2dOp>(ctx);
    attachAll<ConvCostModel, Conv2DOp, Conv3DOp, DepthwiseConv2DOp,
              TransposeConv2DOp>(ctx);
    attachAll<FFTCostModel, FFT2dOp, RFFT2dOp>(ctx);
    MatMulOp::attachInterface<MatMulCostModel>(*ctx);
  });
}
