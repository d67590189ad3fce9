//===- Accumulation.cpp - Sums written into their accumulator -------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "Accumulation.h"

using namespace mlir;

bool echo::canAccumulateInPlace(OpOperand &use) {
  Value acc = use.get();
  Operation *def = acc.getDefiningOp();
  return def && def->getBlock() == use.getOwner()->getBlock() &&
         acc.hasOneUse();
}

MemRefType echo::stridedType(ArrayRef<int64_t> shape, Type elementType) {
  MLIRContext *ctx = elementType.getContext();
  auto layout = StridedLayoutAttr::get(
      ctx, ShapedType::kDynamic,
      SmallVector<int64_t>(shape.size(), ShapedType::kDynamic));
  return MemRefType::get(shape, elementType, layout);
}
