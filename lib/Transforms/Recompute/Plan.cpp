//===- Plan.cpp - What the recompute strategies share ---------------------===//
//
// Part of the Echo project.
//
// The dispatch from a strategy to its planner, and the graph helpers the
// planners share (see Recompute.h for the vocabulary).
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/Recompute.h"

#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;
using namespace mlir::echo;

FailureOr<RecomputePlan>
mlir::echo::planRecompute(func::FuncOp func, RecomputeStrategy strategy,
                          const EchoPlanOptions &echoOptions) {
  switch (strategy) {
  case RecomputeStrategy::None:
    return RecomputePlan();
  case RecomputeStrategy::Mirror:
    return planMirror(TrainingStep(func));
  case RecomputeStrategy::Sublinear:
    return planSublinear(TrainingStep(func));
  case RecomputeStrategy::Echo:
    return planEcho(func, echoOptions);
  case RecomputeStrategy::Budget:
    return planBudget(func, echoOptions);
  }
  llvm_unreachable("unknown recompute strategy");
}

func::FuncOp mlir::echo::applyToClone(func::FuncOp func,
                                      const RecomputePlan &plan) {
  auto clone = cast<func::FuncOp>(func->clone());
  applyRecomputePlan(clone, plan);
  return clone;
}

FailureOr<SmallVector<int64_t>>
mlir::echo::measurePlans(func::FuncOp func,
                         ArrayRef<const RecomputePlan *> plans,
                         const EchoPlanOptions &options, bool withStep) {
  SmallVector<func::FuncOp> steps;
  if (withStep)
    steps.push_back(func);
  for (const RecomputePlan *plan : plans)
    steps.push_back(applyToClone(func, *plan));
  FailureOr<SmallVector<int64_t>> bytes = options.stepBytes(steps);
  for (func::FuncOp step : ArrayRef(steps).drop_front(withStep ? 1 : 0))
    step.erase();
  return bytes;
}

SmallVector<int64_t> mlir::echo::getPositions(const TrainingStep &step,
                                              ArrayRef<Operation *> ops) {
  SmallVector<int64_t> out;
  for (Operation *op : ops) {
    int64_t position = step.getPosition(op);
    assert(position >= 0 && step.getOp(position) == op &&
           "a planned op outside the step");
    out.push_back(position);
  }
  return out;
}

SmallVector<SmallVector<int64_t>>
mlir::echo::getConnectedGroups(const TrainingStep &step, ArrayRef<int64_t> r) {
  DenseSet<Operation *> inR;
  for (int64_t position : r)
    inR.insert(step.getOp(position));
  llvm::EquivalenceClasses<Operation *> classes;
  for (int64_t position : r) {
    Operation *op = step.getOp(position);
    classes.insert(op);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (inR.contains(def))
          classes.unionSets(op, def);
  }
  DenseMap<Operation *, unsigned> leaderIndex;
  SmallVector<SmallVector<int64_t>> groups;
  for (int64_t position : r) { // r is in op order, so groups are too
    Operation *leader = classes.getLeaderValue(step.getOp(position));
    auto [it, inserted] = leaderIndex.try_emplace(leader, groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].push_back(position);
  }
  return groups;
}

DenseSet<Operation *>
mlir::echo::getOpsNeedingReadValues(const TrainingStep &step,
                                    ArrayRef<Operation *> r) {
  DenseSet<Operation *> inR(r.begin(), r.end()), out;
  for (Operation *op : r)
    if (llvm::any_of(op->getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && inR.contains(def) &&
                 (step.isReadBack(def) || out.contains(def));
        }))
      out.insert(op);
  return out;
}
