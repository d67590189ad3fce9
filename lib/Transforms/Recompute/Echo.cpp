//===- Echo.cpp - The echo strategy: candidate plans and their search -----===//
//
// Part of the Echo project.
//
// echo's plans are Algorithm 1's selection (EchoSelection.cpp), with and
// without the chain cuts, placed as one region per connected group or one
// per first backward reader, on the step as it is and with 1-bit ReLU
// masks. Each is applied to a detached clone of the step and measured with
// the footprint model (MemoryAnalysis); the lowest estimated peak wins and
// is then tried once more with the compute-heavy re-runs that fit the FLOP
// budget. echo never exceeds the step's own peak.
//
//===----------------------------------------------------------------------===//

#include "EchoSelection.h"

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Transforms/Recompute.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::recompute;

namespace {

/// How an echo plan is made from Algorithm 1's selection: cut by cutChains
/// and cutEarlyRebuilds or not, one region per connected group or one per
/// first backward reader.
struct PlanKind {
  bool cut = false;
  bool split = false;
};

/// Splits each group by where its values are first read in the backward
/// pass: one region per reading point, each cloning what it needs, so that
/// recomputed values are born right before their readers instead of all at
/// the first one (a residual chain joins many blocks into one group). Ops
/// only needed to compute other values go in a last group of their own,
/// which places no region: they are cloned where they are needed.
SmallVector<SmallVector<int64_t>>
splitByFirstUse(const TrainingStep &step,
                ArrayRef<SmallVector<int64_t>> groups) {
  // (Masks stay stashed, so they place nothing.)
  SmallVector<SmallVector<int64_t>> out;
  SmallVector<int64_t> unread;
  for (const auto &group : groups) {
    DenseMap<Operation *, unsigned> clusterOf;
    for (int64_t position : group) {
      Operation *op = step.getOp(position);
      Operation *at = nullptr;
      for (Value v : op->getResults())
        if (Operation *first = TrainingStep::isMask(v)
                                   ? nullptr
                                   : step.getFirstBackwardReader(v))
          if (!at || first->isBeforeInBlock(at))
            at = first;
      if (!at) {
        unread.push_back(position);
        continue;
      }
      auto [it, inserted] = clusterOf.try_emplace(at, out.size());
      if (inserted)
        out.emplace_back();
      out[it->second].push_back(position);
    }
  }
  if (!unread.empty())
    out.push_back(std::move(unread));
  return out;
}

/// The plan of `kind` for the connected groups of `selection` (positions in
/// `step`, the step of `variant`).
RecomputePlan placePlan(const TrainingStep &step, bool binarized,
                        SmallVector<SmallVector<int64_t>> groups,
                        PlanKind kind) {
  RecomputePlan plan;
  plan.binarizeGradientReads = binarized;
  plan.packMasks = true;
  plan.groups = kind.split ? splitByFirstUse(step, groups) : std::move(groups);
  return plan;
}

/// The plan of `kind` for Algorithm 1's selection with `heavy` allowed.
RecomputePlan makePlan(const TrainingStep &step, bool binarized, PlanKind kind,
                       const DenseSet<Operation *> &heavy) {
  SmallVector<Operation *> selection = selectAlgorithm1(step, heavy);
  if (kind.cut)
    selection = cutEarlyRebuilds(step, cutChains(step, selection));
  return placePlan(step, binarized,
                   getConnectedGroups(step, getPositions(step, selection)),
                   kind);
}

/// A candidate plan and how it was made.
struct Candidate {
  RecomputePlan plan;
  PlanKind kind;
};

/// echo's candidate plans for `step`: Algorithm 1's selection and, when it
/// cuts anything, its cut version, each grouped and split by first
/// backward reader.
SmallVector<Candidate> candidatePlans(const TrainingStep &step,
                                      bool binarized) {
  SmallVector<Operation *> selection = selectAlgorithm1(step);
  SmallVector<Operation *> cut =
      cutEarlyRebuilds(step, cutChains(step, selection));
  SmallVector<Candidate> plans;
  for (bool isCut : {false, true}) {
    auto groups =
        getConnectedGroups(step, getPositions(step, isCut ? cut : selection));
    for (bool split : {false, true}) {
      PlanKind kind{isCut, split};
      plans.push_back({placePlan(step, binarized, groups, kind), kind});
    }
    if (cut.size() == selection.size())
      break; // nothing was cut
  }
  return plans;
}

/// `func` rewritten with `plan`, as a detached clone.
func::FuncOp applyToClone(func::FuncOp func, const RecomputePlan &plan) {
  auto clone = cast<func::FuncOp>(func->clone());
  applyRecomputePlan(clone, plan);
  return clone;
}

/// The estimated peak of `func` rewritten with `plan`.
int64_t peakIfApplied(func::FuncOp func, const RecomputePlan &plan) {
  func::FuncOp trial = applyToClone(func, plan);
  int64_t peak = computePeakLiveBytes(trial);
  trial.erase();
  return peak;
}

/// A step the candidate plans are computed on: `func` itself, or a detached
/// clone of it with its ReLU reads binarized.
struct Variant {
  func::FuncOp func;
  bool binarized;
};

} // namespace

RecomputePlan mlir::echo::planEcho(func::FuncOp func,
                                   const EchoPlanOptions &options) {
  MemoryStats base = computeMemoryStats(func);
  int64_t basePeak = base.peakLiveBytes;
  auto binarized = cast<func::FuncOp>(func->clone());
  SmallVector<Variant> variants = {{func, false}};
  if (binarizeGradientReads(binarized) > 0)
    variants.push_back({binarized, true});

  std::optional<RecomputePlan> best;
  Variant bestVariant = variants.front();
  PlanKind bestKind;
  int64_t bestPeak = basePeak + 1;
  // Keeps `plan` if the step it makes has the lowest peak so far.
  auto consider = [&](RecomputePlan plan, int64_t peak, const Variant &variant,
                      PlanKind kind) {
    if (peak >= bestPeak)
      return;
    best = std::move(plan);
    bestPeak = peak;
    bestVariant = variant;
    bestKind = kind;
  };
  for (const Variant &variant : variants) {
    TrainingStep step(variant.func);
    for (Candidate &c : candidatePlans(step, variant.binarized))
      consider(c.plan, peakIfApplied(func, c.plan), variant, c.kind);
  }
  if (best && options.heavyBudget > 0) {
    // A region may clone an op another region clones too, so the budget
    // is checked on the rewritten clone; over it, the better half is
    // tried.
    TrainingStep step(bestVariant.func);
    double budget = options.heavyBudget *
                    static_cast<double>(base.forwardFlops + base.backwardFlops);
    SmallVector<Operation *> heavy = selectHeavy(step, budget);
    for (; !heavy.empty(); heavy.truncate(heavy.size() / 2)) {
      RecomputePlan plan =
          makePlan(step, bestVariant.binarized, bestKind,
                   DenseSet<Operation *>(heavy.begin(), heavy.end()));
      func::FuncOp trial = applyToClone(func, plan);
      bool fits = getHeavyRecomputeFlops(trial) <= budget;
      int64_t peak = computePeakLiveBytes(trial);
      trial.erase();
      if (fits) {
        consider(std::move(plan), peak, bestVariant, bestKind);
        break;
      }
    }
  }
  binarized.erase();
  if (best)
    return *best;

  // No candidate stays at or below the step's own peak: masks packed (they
  // never raise it), then Algorithm 1's groups one by one, each kept only
  // if the step with the groups kept so far does not exceed that peak.
  TrainingStep step(func);
  RecomputePlan plan;
  plan.packMasks = true;
  for (auto &group :
       getConnectedGroups(step, getPositions(step, selectAlgorithm1(step)))) {
    plan.groups.push_back(std::move(group));
    if (peakIfApplied(func, plan) > basePeak)
      plan.groups.pop_back();
  }
  return plan;
}
