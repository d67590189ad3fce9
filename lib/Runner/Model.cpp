//===- Model.cpp - What a runner needs to know of a model -----------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/Model.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::echo;

func::FuncOp mlir::echo::findModel(ModuleOp module, StringRef name,
                                   StringRef file) {
  SmallVector<func::FuncOp> models;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!isModelCandidate(func))
      continue;
    bool hasParam = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      hasParam |= isParamArgument(func, i);
    if (hasParam)
      models.push_back(func);
  }
  if (!name.empty()) {
    for (func::FuncOp f : models)
      if (f.getSymName() == name)
        return f;
    llvm::errs() << "echo-run: no model named @" << name << " in " << file
                 << "\n";
    return nullptr;
  }
  if (models.size() == 1)
    return models.front();
  if (models.empty()) {
    llvm::errs() << "echo-run: " << file
                 << " has no model (a func.func returning the scalar loss "
                    "with at least one 'echo.param' argument)\n";
  } else {
    llvm::errs() << "echo-run: " << file
                 << " has several models; pick one with --function:";
    for (func::FuncOp f : models)
      llvm::errs() << " @" << f.getSymName();
    llvm::errs() << "\n";
  }
  return nullptr;
}

/// The uses of `arg`'s values: its own, and those of the ops that only move
/// them (reshape, slice, transpose, concat, broadcast of integers: ids and
/// labels flattened or split into chunks), transitively.
static SmallVector<OpOperand *> getValueUses(BlockArgument arg) {
  SmallVector<OpOperand *> uses;
  SmallVector<Value> work = {arg};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *owner = use.getOwner();
      if (isa<ReshapeOp, SliceOp, TransposeOp, ConcatOp, BroadcastOp>(owner)) {
        llvm::append_range(work, owner->getResults());
        continue;
      }
      uses.push_back(&use);
    }
  }
  return uses;
}

std::optional<IndexUse> mlir::echo::getIndexUse(BlockArgument arg) {
  std::optional<IndexUse> tightest;
  for (OpOperand *use : getValueUses(arg))
    if (auto indexed = dyn_cast<IndexOperandOpInterface>(use->getOwner()))
      if (int64_t b = indexed.getIndexBound(use->getOperandNumber()))
        if (!tightest || b < tightest->bound)
          tightest = IndexUse{b, use->getOwner()};
  return tightest;
}

std::optional<int64_t> mlir::echo::getIgnoredIndex(BlockArgument arg) {
  std::optional<int64_t> ignored;
  bool first = true;
  for (OpOperand *use : getValueUses(arg)) {
    auto indexed = dyn_cast<IndexOperandOpInterface>(use->getOwner());
    if (!indexed || !indexed.getIndexBound(use->getOperandNumber()))
      continue;
    std::optional<int64_t> v =
        indexed.getIgnoredIndex(use->getOperandNumber());
    if (!first && v != ignored)
      return std::nullopt;
    ignored = v;
    first = false;
  }
  return ignored;
}

int64_t mlir::echo::getIntegerRange(BlockArgument arg) {
  std::optional<IndexUse> use = getIndexUse(arg);
  return use ? use->bound : 2;
}

void mlir::echo::retypeToF64(func::FuncOp func) {
  Builder b(func.getContext());
  auto convert = [&](Type t) -> Type {
    if (auto tt = dyn_cast<RankedTensorType>(t))
      if (tt.getElementType().isF32())
        return RankedTensorType::get(tt.getShape(), b.getF64Type());
    return t;
  };
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(convert(arg.getType()));
    for (OpResult r : op->getResults())
      r.setType(convert(r.getType()));
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      if (auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue())) {
        auto type = cast<ShapedType>(convert(dense.getType()));
        if (type != dense.getType()) {
          SmallVector<double> values;
          for (APFloat v : dense.getValues<APFloat>())
            values.push_back(v.convertToDouble());
          cst.setValueAttr(DenseElementsAttr::get(type, ArrayRef(values)));
        }
      }
    }
  });
  SmallVector<Type> inputs, results;
  for (Type t : func.getArgumentTypes())
    inputs.push_back(convert(t));
  for (Type t : func.getResultTypes())
    results.push_back(convert(t));
  func.setFunctionType(b.getFunctionType(inputs, results));
}
