//===- ArithMathCostModels.cpp - CostOpInterface on arith and math --------===//
//
// Part of the Echo project.
//
// Every arith op is elementwise (on a tensor, one FLOP per element of the
// largest operand or result); every math op too, at four (transcendentals
// are several instructions).
//
//===----------------------------------------------------------------------===//

#include "CostModels.h"
#include "echo/Interfaces/ExternalModels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::external;

void mlir::echo::registerArithMathExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachPerElement<1,
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
                     >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachPerElement<4,
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
                     >(ctx);
  });
}
