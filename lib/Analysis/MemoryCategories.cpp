//===- MemoryCategories.cpp - What each byte of a step holds --------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryCategories.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AttrTypeSubElements.h"

using namespace mlir;
using namespace mlir::echo;

/// The first element of a tag's metadata: tells Echo's tags from any other
/// fused location's.
static constexpr StringLiteral kTagMarker = "echo.memory_category";

StringRef mlir::echo::getMemoryCategoryName(MemoryCategory category) {
  switch (category) {
  case MemoryCategory::Parameters:
    return "parameters";
  case MemoryCategory::OptimizerState:
    return "optimizer_state";
  case MemoryCategory::Data:
    return "data";
  case MemoryCategory::Activations:
    return "activations";
  case MemoryCategory::Recompute:
    return "recompute";
  case MemoryCategory::Temporaries:
    return "temporaries";
  case MemoryCategory::Gradients:
    return "gradients";
  case MemoryCategory::HostOffload:
    return "host_offload";
  }
  llvm_unreachable("unknown memory category");
}

std::optional<MemoryCategory> mlir::echo::parseMemoryCategory(StringRef name) {
  for (unsigned i = 0; i < kNumMemoryCategories; ++i)
    if (getMemoryCategoryName(MemoryCategory(i)) == name)
      return MemoryCategory(i);
  return std::nullopt;
}

MemoryCategory mlir::echo::getArgumentCategory(func::FuncOp func,
                                               unsigned index) {
  if (func.getArgAttr(index, EchoDialect::getParamAttrName()) ||
      func.getArgAttr(index, EchoDialect::getFrozenAttrName()))
    return MemoryCategory::Parameters;
  if (func.getArgAttr(index, EchoDialect::getOptimizerStateAttrName()) ||
      func.getArgAttr(index, EchoDialect::getHyperAttrName()))
    return MemoryCategory::OptimizerState;
  return MemoryCategory::Data;
}

MemoryCategory mlir::echo::getValueCategory(const TrainingStep &step,
                                            Value value) {
  func::FuncOp func = step.getFunction();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() == step.getBlock())
      return getArgumentCategory(func, arg.getArgNumber());
    // A region's own arguments: values of the op that holds the region.
    return MemoryCategory::Recompute;
  }
  auto result = cast<OpResult>(value);
  Operation *op = result.getOwner();
  if (auto categorized = dyn_cast<MemoryCategoryOpInterface>(op))
    return categorized.getResultCategory(result.getResultNumber());
  if (auto update = dyn_cast<InPlaceUpdateOpInterface>(op))
    return getValueCategory(step, update.getUpdatedOperand(result).get());
  Operation *top = step.getTopLevel(op);
  if (top && (top != op || isa<RecomputeOp>(op)) && isa<RecomputeOp>(top))
    return MemoryCategory::Recompute;
  if (isa<arith::ConstantOp>(op))
    return MemoryCategory::Temporaries;
  if (top && step.isForward(top))
    return step.hasBackwardUse(value) ? MemoryCategory::Activations
                                      : MemoryCategory::Temporaries;
  return MemoryCategory::Gradients;
}

/// True when `value` or a view of it (a result of a ViewResult op reading
/// it, transitively) is a stashed activation: the buffer of `value` holds
/// the view's bytes.
static bool isStashed(const TrainingStep &step, Value value) {
  if (getValueCategory(step, value) == MemoryCategory::Activations)
    return true;
  for (Operation *user : value.getUsers())
    if (user->hasTrait<echo::ViewResult>() && step.getTopLevel(user) == user &&
        llvm::any_of(user->getResults(),
                     [&](Value view) { return isStashed(step, view); }))
      return true;
  return false;
}

MemoryCategory mlir::echo::getOpCategory(const TrainingStep &step,
                                         Operation *op) {
  std::optional<MemoryCategory> first;
  for (Value result : op->getResults()) {
    MemoryCategory category = getValueCategory(step, result);
    if (category == MemoryCategory::Activations ||
        (category == MemoryCategory::Temporaries && isStashed(step, result)))
      return MemoryCategory::Activations;
    if (!first)
      first = category;
  }
  return first.value_or(MemoryCategory::Temporaries);
}

/// `loc` tagged with `category` and `what` (an op name, or "argument").
static Location tag(Location loc, MemoryCategory category, StringRef what) {
  MLIRContext *context = loc.getContext();
  Builder b(context);
  ArrayAttr metadata =
      b.getArrayAttr({b.getStringAttr(kTagMarker),
                      b.getStringAttr(getMemoryCategoryName(category)),
                      b.getStringAttr(what)});
  return FusedLoc::get(context, {loc}, metadata);
}

/// The category and op name of `loc` itself when it is a tag.
static std::optional<std::pair<MemoryCategory, StringRef>>
readTag(FusedLoc loc) {
  auto metadata = dyn_cast_or_null<ArrayAttr>(loc.getMetadata());
  if (!metadata || metadata.size() != 3)
    return std::nullopt;
  auto marker = dyn_cast<StringAttr>(metadata[0]);
  auto name = dyn_cast<StringAttr>(metadata[1]);
  auto what = dyn_cast<StringAttr>(metadata[2]);
  if (!marker || marker.getValue() != kTagMarker || !name || !what)
    return std::nullopt;
  std::optional<MemoryCategory> category = parseMemoryCategory(name);
  if (!category)
    return std::nullopt;
  return std::make_pair(*category, what.getValue());
}

void mlir::echo::tagMemoryCategories(func::FuncOp func) {
  if (func.isExternal())
    return;
  stripMemoryCategoryTags(func);
  TrainingStep step(func);
  for (BlockArgument arg : func.getArguments())
    arg.setLoc(tag(arg.getLoc(), getArgumentCategory(func, arg.getArgNumber()),
                   "argument"));
  func.getBody().walk([&](Operation *op) {
    if (op->getNumResults() == 0)
      return;
    op->setLoc(tag(op->getLoc(), getOpCategory(step, op),
                   op->getName().getStringRef()));
  });
}

std::optional<std::pair<MemoryCategory, StringRef>>
mlir::echo::getTaggedCategory(Location loc) {
  std::optional<std::pair<MemoryCategory, StringRef>> found;
  loc->walk([&](Location inner) {
    if (auto fused = dyn_cast<FusedLoc>(inner))
      if ((found = readTag(fused)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found;
}

void mlir::echo::stripMemoryCategoryTags(Operation *op) {
  AttrTypeReplacer replacer;
  replacer.addReplacement([](FusedLoc loc) -> std::optional<Location> {
    if (!readTag(loc))
      return std::nullopt;
    return loc.getLocations().front();
  });
  replacer.recursivelyReplaceElementsIn(op, /*replaceAttrs=*/false,
                                        /*replaceLocs=*/true,
                                        /*replaceTypes=*/false);
}
