//===- CostModels.h - Templates for Echo's external cost models -*- C++ -*-===//
//
// Part of the Echo project.
//
// The families every foreign dialect's cost models are made of, one
// template each (see echo/Interfaces/ExternalModels.h).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_INTERFACES_COSTMODELS_H
#define ECHO_LIB_INTERFACES_COSTMODELS_H

#include "echo/Dialect/Echo/IR/EchoInterfaces.h"

#include "mlir/IR/MLIRContext.h"

namespace mlir::echo::external {

/// True where the models price `op`: in an adopted step (`echo.adopted`) or
/// outside any function. In Echo's own steps the arith and math ops that
/// Echo itself builds (masks, a chunked loss's sum) stay unpriced, as they
/// were before these models existed, so that those steps are planned and
/// reported bit for bit as before.
bool isPriced(Operation *op);

/// The bytes `op` reads and writes where it is priced: each operand and
/// result tensor once.
int64_t getPricedBytes(Operation *op);

/// `FlopsPerElement` FLOPs per element of the op's largest tensor: an
/// elementwise op, a reduction (per input element), a transcendental.
template <typename OpTy, int64_t FlopsPerElement>
struct PerElementCostModel
    : CostOpInterface::ExternalModel<PerElementCostModel<OpTy, FlopsPerElement>,
                                     OpTy> {
  int64_t estimateFlops(Operation *op) const {
    return isPriced(op)
               ? echo::detail::estimatePerElementFlops(op, FlopsPerElement)
               : 0;
  }
  bool isComputeHeavy(Operation *) const { return false; }
  int64_t estimateBytesAccessed(Operation *op) const {
    return getPricedBytes(op);
  }
};

/// An op that moves data (transpose, slice, concat, pad): no FLOPs, every
/// operand and result tensor accessed once.
template <typename OpTy>
struct DataMovementCostModel
    : CostOpInterface::ExternalModel<DataMovementCostModel<OpTy>, OpTy> {
  int64_t estimateFlops(Operation *) const { return 0; }
  bool isComputeHeavy(Operation *) const { return false; }
  int64_t estimateBytesAccessed(Operation *op) const {
    return getPricedBytes(op);
  }
};

/// An op that only views its operand or makes an uninitialized tensor
/// (reshape, cast, tensor.empty): no FLOPs, no bytes of its own.
template <typename OpTy>
struct ViewCostModel
    : CostOpInterface::ExternalModel<ViewCostModel<OpTy>, OpTy> {
  int64_t estimateFlops(Operation *) const { return 0; }
  bool isComputeHeavy(Operation *) const { return false; }
  int64_t estimateBytesAccessed(Operation *) const { return 0; }
};

/// Attaches `Model<Op>` to each of `Ops`.
template <template <typename> class Model, typename... Ops>
void attachAll(MLIRContext *ctx) {
  (Ops::template attachInterface<Model<Ops>>(*ctx), ...);
}

/// Attaches `PerElementCostModel<Op, FlopsPerElement>` to each of `Ops`.
template <int64_t FlopsPerElement, typename... Ops>
void attachPerElement(MLIRContext *ctx) {
  (Ops::template attachInterface<PerElementCostModel<Ops, FlopsPerElement>>(
       *ctx),
   ...);
}

/// The number of elements of a statically shaped `type`, or 0.
int64_t getStaticElementCount(Type type);

} // namespace mlir::echo::external

#endif // ECHO_LIB_INTERFACES_COSTMODELS_H
