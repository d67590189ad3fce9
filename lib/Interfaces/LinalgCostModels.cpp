//===- LinalgCostModels.cpp - CostOpInterface on linalg ops ---------------===//
//
// Part of the Echo project.
//
// One template over LinalgOp, attached to every structured op as upstream's
// TilingInterface models are (GET_OP_LIST): the FLOPs are the product of
// the static loop ranges times the scalar ops of the body; contractions and
// convolutions (named, or generics of that shape) are compute-heavy.
//
//===----------------------------------------------------------------------===//

#include "CostModels.h"
#include "echo/Interfaces/ExternalModels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::echo;

namespace {

template <typename OpTy>
struct LinalgCostModel
    : CostOpInterface::ExternalModel<LinalgCostModel<OpTy>, OpTy> {
  int64_t estimateFlops(Operation *op) const {
    if (!external::isPriced(op))
      return 0;
    auto linalgOp = cast<linalg::LinalgOp>(op);
    int64_t points = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return 0;
      points *= range;
    }
    // The body's scalar ops, its terminator excepted (a copy or a fill
    // costs no FLOPs).
    int64_t scalarOps = 0;
    for (Operation &inner : *linalgOp.getBlock())
      if (!inner.hasTrait<OpTrait::IsTerminator>())
        ++scalarOps;
    return points * scalarOps;
  }
  bool isComputeHeavy(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    return linalg::isaContractionOpInterface(linalgOp) ||
           linalg::isaConvolutionOpInterface(linalgOp);
  }
  int64_t estimateBytesAccessed(Operation *op) const {
    return external::getPricedBytes(op);
  }
};

template <typename OpTy> void attachOne(MLIRContext *ctx) {
  OpTy::template attachInterface<LinalgCostModel<OpTy>>(*ctx);
}

template <typename... OpTys> void attachAllLinalg(MLIRContext *ctx) {
  (attachOne<OpTys>(ctx), ...);
}

} // namespace

void mlir::echo::registerLinalgExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attachOne<linalg::GenericOp>(ctx);
    attachAllLinalg<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(ctx);
  });
}
