//===- Echo.cpp - The echo strategy: candidate plans and their search -----===//
//
// Part of the Echo project.
//
// echo's plans are Algorithm 1's selection (EchoSelection.cpp), with and
// without the chain cuts, placed as one region per connected group or one
// per first backward reader, on the step as it is and with 1-bit ReLU
// masks. Each is applied to a detached clone of the step and measured with
// the footprint model (MemoryAnalysis), or on the step bytes of its buffer
// plan when the caller gives a way to lower it (EchoPlanOptions::stepBytes);
// the lowest wins and is then tried once more with the compute-heavy re-runs
// that fit the FLOP budget. echo never exceeds the step's own bytes.
//
//===----------------------------------------------------------------------===//

#include "EchoSelection.h"

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Transforms/Recompute.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::recompute;

/// How far above the best estimate a candidate may be and still be lowered
/// to compare its plan (planEcho).
static constexpr double kCompareWithin = 2.0;

namespace {

/// How an echo plan is made from Algorithm 1's selection: cut by cutChains
/// and cutEarlyRebuilds or not, one region per connected group or one per
/// first backward reader, and whether a region yields the values it clones
/// anyway that are read within kReuseWithin ops of it (instead of their
/// own region computing them again: RecomputePlan::reuseWithin).
struct PlanKind {
  bool cut = false;
  bool split = false;
  bool reuse = false;
};

/// How near (in ops of the step) a value's reader must be for a region
/// that clones it anyway to yield it, under PlanKind::reuse: a span short
/// enough that the value rarely sits across the step's peak, long enough
/// for a recurrent cell's or an attention's gradient ops (4 to 6 ops after
/// their region).
constexpr int64_t kReuseWithin = 8;

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
  plan.reuseWithin = kind.reuse ? kReuseWithin : 0;
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
/// backward reader, each with and without reuse (PlanKind::reuse).
SmallVector<Candidate> candidatePlans(const TrainingStep &step,
                                      bool binarized) {
  SmallVector<Operation *> selection = selectAlgorithm1(step);
  SmallVector<Operation *> cut =
      cutEarlyRebuilds(step, cutChains(step, selection));
  SmallVector<Candidate> plans;
  for (bool isCut : {false, true}) {
    auto groups =
        getConnectedGroups(step, getPositions(step, isCut ? cut : selection));
    for (bool split : {false, true})
      for (bool reuse : {false, true}) {
        PlanKind kind{isCut, split, reuse};
        plans.push_back({placePlan(step, binarized, groups, kind), kind});
      }
    if (cut.size() == selection.size())
      break; // nothing was cut
  }
  return plans;
}

/// A step the candidate plans are computed on: `func` itself, or a detached
/// clone of it with its ReLU reads binarized.
struct Variant {
  func::FuncOp func;
  bool binarized;
};

/// Algorithm 1's candidate plans of a step (with and without binarized
/// ReLU reads, cut chains, split regions), each with its estimated peak,
/// and the compute-heavy re-runs added to the best of them for a budget.
class EchoCandidates {
public:
  /// Every candidate with its estimated peak, in the order they are made.
  struct Estimated {
    RecomputePlan plan;
    int64_t peak;
    /// Estimated seconds of its recompute regions (TimeModel.h).
    double seconds;
    /// Estimated FLOPs of its recompute regions.
    int64_t flops;
    /// How it was made (budget-table's rows).
    std::string name;
  };

  explicit EchoCandidates(func::FuncOp func)
      : func(func), model(getTimeModel(func)), base(computeMemoryStats(func)),
        binarized(cast<func::FuncOp>(func->clone())) {
    SmallVector<Variant> variants = {{func, false}};
    if (binarizeGradientReads(binarized) > 0)
      variants.push_back({binarized, true});
    bestVariant = variants.front();
    for (const Variant &variant : variants) {
      TrainingStep step(variant.func);
      for (Candidate &c : candidatePlans(step, variant.binarized)) {
        MemoryStats stats =
            c.kind.reuse ? excludeReuseAcrossPeak(c.plan) : estimate(c.plan);
        estimated.push_back({std::move(c.plan), stats.peakLiveBytes,
                             stats.recomputeSeconds, stats.recomputeFlops,
                             describe(c.kind, variant.binarized)});
        if (isBetter(estimated.back(), best)) {
          best = estimated.size() - 1;
          bestVariant = variant;
          bestKind = c.kind;
        }
      }
    }
  }
  ~EchoCandidates() { binarized.erase(); }
  EchoCandidates(const EchoCandidates &) = delete;
  EchoCandidates &operator=(const EchoCandidates &) = delete;

  const MemoryStats &getBase() const { return base; }
  ArrayRef<Estimated> getEstimated() const { return estimated; }
  /// The lowest estimate at or below the step's own (the first of equals),
  /// without compute-heavy re-runs.
  std::optional<size_t> getBest() const { return best; }

  /// The best candidate once compute-heavy ops are re-run within
  /// `heavyBudget` of the step's FLOPs: the best one's selection with the
  /// heavy re-runs (added as a candidate) if it is estimated lower.
  std::optional<size_t> getBestWithHeavy(double heavyBudget) {
    if (!best || heavyBudget <= 0)
      return best;
    // A region may clone an op another region clones too, so the budget
    // is checked on the rewritten clone; over it, the better half is
    // tried.
    TrainingStep step(bestVariant.func);
    double budget = heavyBudget * (base.forwardSeconds + base.backwardSeconds);
    SmallVector<Operation *> heavy = selectHeavy(step, budget, model);
    for (; !heavy.empty(); heavy.truncate(heavy.size() / 2)) {
      RecomputePlan plan =
          makePlan(step, bestVariant.binarized, bestKind,
                   DenseSet<Operation *>(heavy.begin(), heavy.end()));
      func::FuncOp trial = applyToClone(func, plan);
      bool fits = getHeavyRecomputeSeconds(trial, model) <= budget;
      MemoryStats stats = fits ? computeMemoryStats(trial) : MemoryStats();
      trial.erase();
      if (!fits)
        continue;
      estimated.push_back({std::move(plan), stats.peakLiveBytes,
                           stats.recomputeSeconds, stats.recomputeFlops,
                           estimated[*best].name + ", compute-heavy re-runs"});
      return isBetter(estimated.back(), best) ? estimated.size() - 1 : *best;
    }
    return best;
  }

private:
  static std::string describe(PlanKind kind, bool binarized) {
    std::string name = "algorithm 1";
    if (kind.cut)
      name += ", chains cut";
    if (kind.split)
      name += ", split by first reader";
    if (kind.reuse)
      name += ", reuse";
    if (binarized)
      name += ", ReLU reads binarized";
    return name;
  }

  /// The estimate of `func` rewritten with `plan`.
  MemoryStats estimate(const RecomputePlan &plan) const {
    func::FuncOp trial = applyToClone(func, plan);
    MemoryStats stats = computeMemoryStats(trial);
    trial.erase();
    return stats;
  }

  /// Excludes from the reuse of `plan` (RecomputePlan::reuseWithin) the
  /// values it would keep live across the estimated peak, round by round
  /// (the peak may move), so that yielding a value instead of re-running it
  /// saves time without raising the peak; returns the plan's estimate.
  MemoryStats excludeReuseAcrossPeak(RecomputePlan &plan) const {
    constexpr int maxRounds = 4;
    for (int round = 0; round < maxRounds; ++round) {
      RecomputePlan tagged = plan;
      tagged.tagReuse = true;
      func::FuncOp trial = applyToClone(func, tagged);
      MemoryStats stats = computeMemoryStats(trial);
      Block &body = trial.getBody().front();
      int64_t peak = std::distance(stats.timeline.begin(),
                                   llvm::max_element(stats.timeline));
      DenseMap<Operation *, int64_t> index;
      for (auto [i, op] : llvm::enumerate(body))
        index[&op] = i;
      SmallVector<int64_t> crossing;
      for (auto [i, op] : llvm::enumerate(body)) {
        if (static_cast<int64_t>(i) > peak)
          break;
        auto tags = op.getAttrOfType<DenseI64ArrayAttr>("echo.reused");
        if (!tags)
          continue;
        for (int64_t k = 0, e = tags.size(); k + 1 < e; k += 2)
          for (Operation *user : op.getResult(tags[k]).getUsers())
            if (index.lookup(body.findAncestorOpInBlock(*user)) >= peak) {
              crossing.push_back(tags[k + 1]);
              break;
            }
      }
      trial.erase();
      if (crossing.empty())
        return stats;
      plan.reuseExcluded.append(crossing);
    }
    return estimate(plan);
  }

  /// At or below the step's own estimate, and lower than `than`'s, or as
  /// low at fewer recompute seconds.
  bool isBetter(const Estimated &e, std::optional<size_t> than) const {
    if (e.peak > base.peakLiveBytes)
      return false;
    if (!than)
      return true;
    const Estimated &other = estimated[*than];
    return std::make_pair(e.peak, roundToPicoseconds(e.seconds)) <
           std::make_pair(other.peak, roundToPicoseconds(other.seconds));
  }

  func::FuncOp func;
  RooflineModel model;
  MemoryStats base;
  func::FuncOp binarized;
  std::vector<Estimated> estimated;
  std::optional<size_t> best;
  Variant bestVariant;
  PlanKind bestKind;
};

} // namespace

/// The candidates' indices by estimate, then recompute seconds.
static SmallVector<size_t>
rankCandidates(ArrayRef<EchoCandidates::Estimated> estimated) {
  auto ranked = llvm::to_vector(llvm::seq<size_t>(0, estimated.size()));
  llvm::sort(ranked, [&](size_t a, size_t b) {
    return std::make_tuple(estimated[a].peak,
                           roundToPicoseconds(estimated[a].seconds), a) <
           std::make_tuple(estimated[b].peak,
                           roundToPicoseconds(estimated[b].seconds), b);
  });
  return ranked;
}

SmallVector<std::optional<RecomputePlan>>
mlir::echo::planEchoAtHeavyBudgets(func::FuncOp func,
                                   ArrayRef<double> heavyBudgets) {
  EchoCandidates candidates(func);
  SmallVector<std::optional<RecomputePlan>> plans;
  for (double heavyBudget : heavyBudgets) {
    std::optional<size_t> best = candidates.getBestWithHeavy(heavyBudget);
    plans.push_back(best ? std::optional(candidates.getEstimated()[*best].plan)
                         : std::nullopt);
  }
  return plans;
}

FailureOr<RecomputePlan> mlir::echo::planEcho(func::FuncOp func,
                                              const EchoPlanOptions &options) {
  EchoCandidates candidates(func);
  const MemoryStats &base = candidates.getBase();
  std::optional<size_t> best = candidates.getBestWithHeavy(options.heavyBudget);
  ArrayRef<EchoCandidates::Estimated> estimated = candidates.getEstimated();
  SmallVector<size_t> ranked = rankCandidates(estimated);
  // budget-table: every candidate, in the order of their estimates, with
  // its planned step bytes where it was lowered.
  DenseMap<size_t, int64_t> planned;
  auto writeTable = [&](std::optional<size_t> chosen,
                        std::optional<int64_t> stepBytes) {
    if (!options.budgetTable)
      return;
    options.budgetTable->noneBytes = stepBytes.value_or(base.peakLiveBytes);
    for (size_t i : ranked) {
      BudgetCandidateInfo row;
      row.name = estimated[i].name;
      row.recomputeFlops = estimated[i].flops;
      row.estimatedBytes = estimated[i].peak;
      if (auto it = planned.find(i); it != planned.end())
        row.stepBytes = it->second;
      row.chosen = chosen == i;
      options.budgetTable->candidates.push_back(std::move(row));
    }
  };
  if (!options.stepBytes && best) {
    writeTable(best, std::nullopt);
    return estimated[*best].plan;
  }

  // On the plan: the best estimated candidates and the step as it is,
  // measured together; the fewest bytes below the step's own win (ties go
  // to the fewer recompute seconds, then the lower estimate).
  std::optional<int64_t> baseBytes;
  if (options.stepBytes) {
    // The best estimated of all candidates, and of those that re-run every
    // value at its own readers (RecomputePlan::reuseWithin = 0): a reuse
    // may hold less in the estimate and more once planned, so the
    // candidates without one are always compared too.
    // A candidate estimated at more than kCompareWithin times the best
    // estimate of its kind (with or without a reuse) is not lowered: the
    // planned bytes of the candidates of one step stay within a factor of
    // 1.7 of their estimates (fusion takes none's paper NMT to 0.63 of its
    // estimate, a Transformer's candidates plan 1.08 of theirs), so it
    // could not win, and each lowering costs a bufferization of the step.
    SmallVector<size_t> order;
    size_t all = 0, withoutReuse = 0;
    std::optional<int64_t> bestPeak, bestPeakWithoutReuse;
    for (size_t i : ranked) {
      bool reuse = estimated[i].plan.reuseWithin > 0;
      int64_t peak = estimated[i].peak;
      if (!bestPeak)
        bestPeak = peak;
      if (!reuse && !bestPeakWithoutReuse)
        bestPeakWithoutReuse = peak;
      if (static_cast<double>(peak) >
          kCompareWithin *
              static_cast<double>(reuse ? *bestPeak : *bestPeakWithoutReuse))
        continue;
      bool take = static_cast<int64_t>(all) < options.plansCompared ||
                  (!reuse &&
                   static_cast<int64_t>(withoutReuse) < options.plansCompared);
      if (!take)
        continue;
      order.push_back(i);
      ++all;
      if (!reuse)
        ++withoutReuse;
    }
    SmallVector<const RecomputePlan *> plans;
    for (size_t i : order)
      plans.push_back(&estimated[i].plan);
    FailureOr<SmallVector<int64_t>> bytes =
        measurePlans(func, plans, options, /*withStep=*/true);
    if (failed(bytes))
      return failure();
    baseBytes = (*bytes)[0];
    std::optional<size_t> lowest;
    int64_t lowestBytes = *baseBytes + 1;
    // Of equal bytes, the fewest recompute seconds.
    for (auto [i, b] : llvm::zip(order, ArrayRef(*bytes).drop_front())) {
      planned[i] = b;
      if (b < lowestBytes ||
          (b == lowestBytes &&
           roundToPicoseconds(estimated[i].seconds) <
               roundToPicoseconds(estimated[*lowest].seconds))) {
        lowest = i;
        lowestBytes = b;
      }
    }
    writeTable(lowest, baseBytes);
    if (lowest)
      return estimated[*lowest].plan;
  } else {
    writeTable(std::nullopt, std::nullopt);
  }

  // No candidate stays at or below the step's own bytes: masks packed
  // (they never raise it), then Algorithm 1's groups one by one, each kept
  // only if the step with the groups kept so far does not exceed the
  // step's estimated peak (one estimate per group; a lowering per group
  // would cost a bufferization each), and the result only if it does not
  // exceed the step's own bytes.
  TrainingStep step(func);
  RecomputePlan plan;
  plan.packMasks = true;
  for (auto &group :
       getConnectedGroups(step, getPositions(step, selectAlgorithm1(step)))) {
    plan.groups.push_back(std::move(group));
    func::FuncOp trial = applyToClone(func, plan);
    if (computePeakLiveBytes(trial) > base.peakLiveBytes)
      plan.groups.pop_back();
    trial.erase();
  }
  if (!baseBytes)
    return plan;
  RecomputePlan masksOnly;
  masksOnly.packMasks = true;
  FailureOr<SmallVector<int64_t>> bytes =
      measurePlans(func, {&plan, &masksOnly}, options);
  if (failed(bytes))
    return failure();
  if ((*bytes)[0] <= *baseBytes)
    return plan;
  if ((*bytes)[1] <= *baseBytes)
    return masksOnly;
  return RecomputePlan();
}
