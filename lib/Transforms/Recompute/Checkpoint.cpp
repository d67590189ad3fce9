//===- Checkpoint.cpp - The user's checkpoint regions as a plan -----------===//
//
// Part of the Echo project.
//
// The plans the budget strategy makes of the regions a model checkpoints
// (`echo.checkpoint_region`, which the PyTorch importer writes on the ops of
// each `torch.utils.checkpoint` call): what the user asked PyTorch to
// recompute, offered beside Echo's own candidates.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Transforms/Recompute.h"

#include <map>

using namespace mlir;
using namespace mlir::echo;

/// The checkpoint region `op` (a top-level op of the step) is in, or none.
static std::optional<int64_t> getRegion(Operation *op) {
  if (auto id = op->getAttrOfType<IntegerAttr>(
          EchoDialect::getCheckpointRegionAttrName()))
    return id.getInt();
  return std::nullopt;
}

std::optional<RecomputePlan>
mlir::echo::planCheckpointRegions(const TrainingStep &step, bool heavy) {
  std::map<int64_t, SmallVector<Operation *>> regions;
  for (Operation *op : step.getRecomputeCandidates()) {
    std::optional<int64_t> region = getRegion(op);
    // Dropout masks stay stashed (packed) as mirror keeps them.
    if (!region || producesStochasticMask(op) ||
        (!heavy && isComputeHeavy(op)))
      continue;
    regions[*region].push_back(op);
  }
  RecomputePlan plan;
  for (auto &[id, ops] : regions) {
    int64_t region = id; // a lambda cannot capture a structured binding
    // A value a forward op outside the region reads is the region's output,
    // stashed as PyTorch saves the next checkpoint's inputs: recomputing it
    // would make one region rebuild the regions before it.
    SmallVector<Operation *> recomputed;
    for (Operation *op : ops) {
      bool output = llvm::any_of(op->getUsers(), [&](Operation *user) {
        Operation *top = step.getTopLevel(user);
        return top && step.isForward(top) && getRegion(top) != region;
      });
      if (!output)
        recomputed.push_back(op);
    }
    llvm::append_range(plan.groups,
                       getConnectedGroups(step, getPositions(step, recomputed)));
  }
  if (plan.groups.empty())
    return std::nullopt;
  return plan;
}
