//===- Outline.cpp - Functions outlined for the CPU's code generation -----===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "Outline.h"

using namespace mlir;

func::FuncOp mlir::echo::createOutlinedFunction(OpBuilder &b, Location loc,
                                                StringRef name,
                                                ValueRange inputs,
                                                TypeRange resultTypes,
                                                IRMapping &mapping) {
  MLIRContext *ctx = b.getContext();
  auto fn = func::FuncOp::create(
      b, loc, name, FunctionType::get(ctx, inputs.getTypes(), resultTypes));
  fn.setPrivate();
  fn->setAttr("passthrough",
              ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
  Block *entry = fn.addEntryBlock();
  for (auto [value, arg] : llvm::zip(inputs, entry->getArguments()))
    mapping.map(value, arg);
  return fn;
}
