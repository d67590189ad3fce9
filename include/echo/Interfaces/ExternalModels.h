//===- ExternalModels.h - Echo's interfaces on foreign ops ------*- C++ -*-===//
//
// Part of the Echo project.
//
// Echo's cost model (CostOpInterface) attached to the ops of other dialects
// as external models, the way upstream attaches BufferizableOpInterface and
// TilingInterface: each registration adds a dialect extension, so a model
// attaches when its dialect is loaded. With them, echo-recompute plans a
// step that its producer (torch-mlir, IREE, a JAX stack) already
// differentiated in TOSA or linalg-on-tensors (echo-adopt-training-step),
// pricing every op as it prices Echo's own: GEMMs and convolutions are
// compute-heavy and never recomputed by mirror or budget. An op left
// without a model is never cloned, and echo-adopt-training-step names it.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_INTERFACES_EXTERNALMODELS_H
#define ECHO_INTERFACES_EXTERNALMODELS_H

namespace mlir {
class DialectRegistry;

namespace echo {

/// Cost models for TOSA: elementwise, transcendental, reduction, pooling,
/// data-movement and view families; matmul, the convolutions and the FFTs
/// are compute-heavy.
void registerTosaExternalModels(DialectRegistry &registry);

/// Cost models for every linalg structured op (one template over
/// LinalgOp): FLOPs are the static loop ranges' product times the body's
/// scalar ops; contractions and convolutions are compute-heavy.
void registerLinalgExternalModels(DialectRegistry &registry);

/// Cost models for tensor ops: no FLOPs; reshapes, casts and `tensor.empty`
/// access no bytes of their own.
void registerTensorExternalModels(DialectRegistry &registry);

/// Cost models for every arith and math op (elementwise on tensors).
void registerArithMathExternalModels(DialectRegistry &registry);

/// All of the above: what tools, plugins and embedding compilers call
/// (mlir::echo::registerAllDialects does).
void registerExternalModels(DialectRegistry &registry);

} // namespace echo
} // namespace mlir

#endif // ECHO_INTERFACES_EXTERNALMODELS_H
