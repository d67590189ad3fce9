//===- Mirror.cpp - The mirror strategy (Chen et al. 2016, §4.2) ----------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Transforms/Recompute.h"

using namespace mlir;
using namespace mlir::echo;

/// Every forward op that is neither compute-heavy nor produces a stochastic
/// mask (MXNet's mirror kept dropout), in connected groups.
RecomputePlan mlir::echo::planMirror(const TrainingStep &step) {
  SmallVector<Operation *> r;
  for (Operation *op : step.getRecomputeCandidates())
    if (!isComputeHeavy(op) && !producesStochasticMask(op))
      r.push_back(op);
  RecomputePlan plan;
  plan.groups = getConnectedGroups(step, getPositions(step, r));
  return plan;
}
