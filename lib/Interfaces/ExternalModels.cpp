//===- ExternalModels.cpp - All of Echo's external models -----------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Interfaces/ExternalModels.h"
#include "CostModels.h"

#include "echo/Dialect/Echo/IR/EchoDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

int64_t mlir::echo::external::getStaticElementCount(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasStaticShape() ? shaped.getNumElements() : 0;
}

bool mlir::echo::external::isPriced(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  return !func || func->hasAttr(EchoDialect::getAdoptedAttrName());
}

int64_t mlir::echo::external::getPricedBytes(Operation *op) {
  return isPriced(op) ? echo::detail::estimateOperandAndResultBytes(op) : 0;
}

void mlir::echo::registerExternalModels(DialectRegistry &registry) {
  registerTosaExternalModels(registry);
  registerLinalgExternalModels(registry);
  registerTensorExternalModels(registry);
  registerArithMathExternalModels(registry);
}
