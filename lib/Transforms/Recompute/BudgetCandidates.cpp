//===- BudgetCandidates.cpp - The budget strategy's candidate family ------===//
//
// Part of the Echo project.
//
// The candidates of `strategy=budget` (Budget.cpp chooses among them): none,
// packed masks, the cost-aware units (recomputable values ranked by seconds
// per byte freed) taken cheapest first and peak-driven, echo at several heavy
// budgets, mirror, the model's checkpoint regions (the importer's hints),
// sublinear at several segment counts, and on steps small
// enough a search on the estimate itself (a measured descent; frontier
// candidates pruned); then the same with the loss chunked and with offload
// where the options ask for them. None depends on the budget.
//
//===----------------------------------------------------------------------===//

#include "BudgetCandidates.h"

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"

#include "mlir/IR/Threading.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::recompute::budget;

namespace {

/// Sets `c`'s estimate from `trial`, its plan applied to a detached clone of
/// the step, and erases the clone.
void estimateOn(func::FuncOp trial, Candidate &c) {
  MemoryStats stats = computeRecomputeEstimate(trial);
  trial.erase();
  c.recomputeFlops = stats.recomputeFlops;
  c.recomputeSeconds = stats.recomputeSeconds;
  c.estimatedBytes = stats.peakLiveBytes;
  c.estimated = true;
}

/// Forward values that may be dropped from the stash, each with the ops that
/// recompute it from values stashed anyway: the op producing it plus, back
/// through its operands, the producers whose results the backward pass does
/// not read (recomputing from those would stash them instead). Ranked by
/// seconds per byte freed under the step's time model, cheapest first
/// (SuperNeurons' cost-aware order, priced in time: an elementwise chain
/// costs the bytes it moves; equal ratios keep op order), those recomputed
/// from stashed values before those recomputed from another unit's.
struct Unit {
  /// The op whose results are dropped from the stash.
  Operation *root;
  /// It and the producers it is recomputed through.
  SmallVector<Operation *> ops;
  double secondsPerByte;
  /// The seconds of its ops: of two units at the same seconds per byte, the
  /// smaller goes first (finer steps toward a budget).
  double seconds;
  size_t index;
};

SmallVector<Unit> rankUnits(const TrainingStep &step,
                            const RooflineModel &model) {
  // A unit needing more ops than this is left out: its recomputation is a
  // segment of the forward pass, which the sublinear candidate covers.
  constexpr size_t maxUnitOps = 64;
  SmallVector<Operation *> candidates = step.getRecomputeCandidates();
  DenseSet<Operation *> recomputable;
  for (Operation *op : candidates)
    if (!producesStochasticMask(op))
      recomputable.insert(op);
  SmallVector<Unit> units;
  for (Operation *op : candidates) {
    if (!recomputable.contains(op) || !step.isReadBack(op))
      continue;
    int64_t freed = 0;
    for (Value v : op->getResults())
      if (!TrainingStep::isMask(v) && step.hasBackwardUse(v))
        freed += getTensorBytes(v.getType());
    if (freed == 0)
      continue;
    SetVector<Operation *> ops;
    ops.insert(op);
    bool tooLarge = false;
    for (size_t i = 0; i < ops.size() && !tooLarge; ++i)
      for (Value operand : ops[i]->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || !recomputable.contains(def) || step.isReadBack(def) ||
            TrainingStep::isFree(operand))
          continue;
        ops.insert(def);
        if (ops.size() > maxUnitOps) {
          tooLarge = true;
          break;
        }
      }
    if (tooLarge)
      continue;
    double seconds = 0;
    for (Operation *unitOp : ops)
      seconds += model.estimateSeconds(unitOp);
    units.push_back({op, SmallVector<Operation *>(ops.begin(), ops.end()),
                     seconds / static_cast<double>(freed), seconds,
                     units.size()});
  }
  llvm::sort(units, [](const Unit &a, const Unit &b) {
    return std::make_tuple(a.secondsPerByte, a.seconds, a.index) <
           std::make_tuple(b.secondsPerByte, b.seconds, b.index);
  });
  // Values recomputed from values that stay stashed first: a unit that
  // reads a value another unit taken before it recomputes would keep both
  // alive together (a chain), so it goes after the independent ones.
  SmallVector<Unit> out, chained;
  DenseSet<Operation *> taken;
  for (Unit &unit : units) {
    bool readsTaken = llvm::any_of(unit.ops, [&](Operation *op) {
      return llvm::any_of(op->getOperands(), [&](Value v) {
        return taken.contains(v.getDefiningOp());
      });
    });
    if (readsTaken) {
      chained.push_back(std::move(unit));
      continue;
    }
    taken.insert(unit.ops.begin(), unit.ops.end());
    out.push_back(std::move(unit));
  }
  out.append(std::make_move_iterator(chained.begin()),
             std::make_move_iterator(chained.end()));
  return out;
}

/// The attribute that numbers the units on a tagged clone (tagUnits).
StringRef getUnitTag() { return "echo.budget_unit"; }

/// The order of units by cost: seconds per byte freed, then seconds (of two
/// at the same ratio the smaller first: finer steps), then index.
std::tuple<double, double, unsigned> getUnitCost(ArrayRef<Unit> units,
                                                 unsigned u) {
  return {units[u].secondsPerByte, units[u].seconds, u};
}

/// What the estimate says of a plan recomputing units, made on `tagged`
/// (tagUnits): its bytes and recompute FLOPs and, when `inPlan` (the units
/// in the plan) is given, the units outside it whose values are stashed
/// across its peak.
struct UnitEstimate {
  int64_t bytes = 0;
  int64_t flops = 0;
  SmallVector<unsigned> across;
  double seconds = 0;
};

UnitEstimate estimateUnits(func::FuncOp tagged, const RecomputePlan &plan,
                           ArrayRef<bool> inPlan = {}) {
  func::FuncOp trial = applyToClone(tagged, plan);
  llvm::scope_exit eraseTrial([&] { trial.erase(); });
  OpOrder order(trial.getBody().front());
  MemoryStats stats = computeRecomputeEstimate(trial);
  UnitEstimate e{
      stats.peakLiveBytes, stats.recomputeFlops, {}, stats.recomputeSeconds};
  if (inPlan.empty())
    return e;
  int64_t peak =
      std::distance(stats.timeline.begin(), llvm::max_element(stats.timeline));
  for (int64_t i = 0; i < peak && i < order.size(); ++i) {
    Operation *op = order.getOp(i);
    auto id = op->getAttrOfType<IntegerAttr>(getUnitTag());
    if (!id || inPlan[id.getInt()])
      continue;
    if (llvm::any_of(op->getUsers(), [&](Operation *user) {
          return order.getPosition(user) >= peak;
        }))
      e.across.push_back(id.getInt());
  }
  return e;
}

/// The ops that recompute a set of units.
SmallVector<Operation *> getUnitOps(ArrayRef<Unit> units,
                                    ArrayRef<unsigned> set) {
  SmallVector<Operation *> ops;
  for (unsigned u : set)
    ops.append(units[u].ops);
  return ops;
}

/// Peak-driven candidates: starting from nothing recomputed, each step
/// estimates the step, finds its peak, and adds the cheapest units (FLOPs
/// per byte) whose values are stashed across that peak: one per step for
/// the first 8, then half again as many each step; every step's plan is a
/// candidate. Where the cheapest values overall are not the ones at the
/// peak, this frees the bytes that count. Plans are made on `tagged`
/// (tagUnits), whose rewritten clones say which unit each op roots.
void addPeakDriven(func::FuncOp tagged, ArrayRef<Unit> units,
                   function_ref<RecomputePlan(ArrayRef<Operation *>)> planOf,
                   SmallVectorImpl<Candidate> &out) {
  constexpr int maxSteps = 16, singleSteps = 8;
  SmallVector<bool> inR(units.size(), false);
  UnitSet taken;
  Candidates alternatives;
  size_t count = 1;
  for (int stepIndex = 0; stepIndex < maxSteps; ++stepIndex) {
    UnitEstimate e =
        estimateUnits(tagged, planOf(getUnitOps(units, taken)), inR);
    if (stepIndex > 0) { // the candidate the last step made
      out.back().recomputeFlops = e.flops;
      out.back().recomputeSeconds = e.seconds;
      out.back().estimatedBytes = e.bytes;
      out.back().estimated = true;
    }
    if (e.across.empty())
      break;
    // The cheapest units stashed across the peak: one at first, then
    // half again as many at each step (a few hundred after 16 steps).
    // Of units at the same seconds per byte the smaller go first (finer
    // steps). Where the larger first would take other units, that plan is a
    // candidate too, made after the search (which goes on with the smaller).
    auto firstUnits = [&](bool smallerFirst) {
      SmallVector<unsigned> first(e.across);
      llvm::sort(first, [&](unsigned a, unsigned b) {
        if (smallerFirst)
          return getUnitCost(units, a) < getUnitCost(units, b);
        return std::make_tuple(units[a].secondsPerByte, -units[a].seconds, a) <
               std::make_tuple(units[b].secondsPerByte, -units[b].seconds, b);
      });
      first.truncate(std::min<size_t>(first.size(), count));
      llvm::sort(first);
      return first;
    };
    SmallVector<unsigned> smaller = firstUnits(true),
                          larger = firstUnits(false);
    std::string name = "peak-driven " + std::to_string(stepIndex + 1);
    if (larger != smaller) {
      UnitSet alternative(taken);
      alternative.append(larger);
      alternatives.push_back({name + ", larger first",
                              planOf(getUnitOps(units, alternative)), 0, 0,
                              false, alternative});
    }
    if (stepIndex >= singleSteps)
      count += (count + 1) / 2;
    for (unsigned u : smaller)
      inR[u] = true;
    taken.append(smaller);
    out.push_back({name, planOf(getUnitOps(units, taken)), 0, 0, false, taken});
  }
  out.append(std::make_move_iterator(alternatives.begin()),
             std::make_move_iterator(alternatives.end()));
}

/// A search on the estimate itself, for steps small enough that it can try
/// single units one by one: at most `maxTrials` plans are estimated, by
/// `addMeasuredDescent` and `pruneCandidates` together. Trials are granted
/// before they run, in an order that does not depend on threads, so the
/// candidates (and the choice) are the same on every run.
struct SearchBudget {
  int64_t maxTrials;
  int64_t trials = 0;
  /// Grants `n` more trials if they fit.
  bool take(int64_t n) {
    if (trials + n > maxTrials)
      return false;
    trials += n;
    return true;
  }
};

/// Measured descent: from nothing recomputed, each round estimates the
/// plan with each of the (at most 16) cheapest units stashed across the
/// current peak added, and takes the one that lowers the peak at the fewest
/// recompute seconds per byte (where no single unit lowers it, the cheapest
/// by seconds per byte, as the peak-driven search would); every round's plan
/// is a candidate. Unlike the peak-driven search it sees what a unit really
/// frees after the rewrite, units recomputed from recomputed units
/// included (the chains echo-ilp's optimum recomputes).
void addMeasuredDescent(
    MLIRContext *context, func::FuncOp tagged, ArrayRef<Unit> units,
    function_ref<RecomputePlan(ArrayRef<Operation *>)> planOf,
    SearchBudget &search, SmallVectorImpl<Candidate> &out) {
  SmallVector<bool> inR(units.size(), false);
  UnitSet taken;
  UnitEstimate current =
      estimateUnits(tagged, planOf(getUnitOps(units, taken)), inR);
  // The units tried in a round: the cheapest by seconds per byte.
  constexpr size_t maxTriedPerRound = 16;
  for (int round = 1; !current.across.empty(); ++round) {
    SmallVector<unsigned> across(current.across);
    llvm::sort(across, [&](unsigned a, unsigned b) {
      return getUnitCost(units, a) < getUnitCost(units, b);
    });
    across.truncate(std::min(across.size(), maxTriedPerRound));
    if (!search.take(across.size()))
      return;
    SmallVector<UnitEstimate> tried(across.size());
    parallelFor(context, 0, across.size(), [&](size_t i) {
      UnitSet set(taken);
      set.push_back(across[i]);
      SmallVector<bool> inSet(inR);
      inSet[across[i]] = true;
      tried[i] = estimateUnits(tagged, planOf(getUnitOps(units, set)), inSet);
    });
    std::optional<size_t> best;
    double bestCost = 0;
    for (auto [i, e] : llvm::enumerate(tried)) {
      if (e.bytes >= current.bytes)
        continue;
      double cost = (e.seconds - current.seconds) /
                    static_cast<double>(current.bytes - e.bytes);
      if (!best || std::make_pair(cost, e.bytes) <
                       std::make_pair(bestCost, tried[*best].bytes)) {
        best = i;
        bestCost = cost;
      }
    }
    if (!best)
      best = 0;
    unsigned u = across[*best];
    inR[u] = true;
    taken.push_back(u);
    current = std::move(tried[*best]);
    out.push_back({"measured descent " + std::to_string(round),
                   planOf(getUnitOps(units, taken)), current.flops,
                   current.bytes, true, taken, current.seconds});
  }
}

/// Each candidate made of units, pruned: its units are dropped one at a
/// time, costliest first, wherever the estimate stays no larger without
/// it; a candidate that lost units is added beside the original (the same
/// bytes for fewer FLOPs). Within the search's trials: candidates are
/// taken by recompute seconds while their trials fit.
void pruneCandidates(MLIRContext *context, func::FuncOp tagged,
                     ArrayRef<Unit> units,
                     function_ref<RecomputePlan(ArrayRef<Operation *>)> planOf,
                     SearchBudget &search, SmallVectorImpl<Candidate> &all) {
  // Only the candidates on the frontier (no other is both cheaper and no
  // larger): pruning a dominated one gives a plan the frontier's beats or
  // matches more often than not, for as many trials.
  SmallVector<const Candidate *> byCost;
  for (const Candidate &c : all)
    byCost.push_back(&c);
  llvm::sort(byCost, [](const Candidate *a, const Candidate *b) {
    return std::make_tuple(roundToPicoseconds(a->recomputeSeconds),
                           a->recomputeFlops, a->estimatedBytes) <
           std::make_tuple(roundToPicoseconds(b->recomputeSeconds),
                           b->recomputeFlops, b->estimatedBytes);
  });
  SmallVector<const Candidate *> made;
  int64_t smallest = INT64_MAX;
  for (const Candidate *c : byCost) {
    if (c->estimatedBytes >= smallest)
      continue;
    smallest = c->estimatedBytes;
    // Pruning n units takes at most n trials.
    if (c->units.size() > 1 && search.take(c->units.size()))
      made.push_back(c);
  }
  SmallVector<std::optional<Candidate>, 0> pruned(made.size());
  parallelFor(context, 0, made.size(), [&](size_t i) {
    const Candidate &c = *made[i];
    UnitSet set(c.units);
    llvm::sort(set, [&](unsigned a, unsigned b) {
      return std::make_pair(-units[a].seconds, a) <
             std::make_pair(-units[b].seconds, b);
    });
    std::optional<UnitEstimate> kept;
    for (size_t k = 0; k < set.size() && set.size() > 1;) {
      UnitSet without(set);
      without.erase(without.begin() + k);
      UnitEstimate e =
          estimateUnits(tagged, planOf(getUnitOps(units, without)));
      if (e.bytes <= c.estimatedBytes) {
        set = std::move(without);
        kept = std::move(e);
        continue;
      }
      ++k;
    }
    if (kept)
      pruned[i] = Candidate{c.name + ", pruned",
                            planOf(getUnitOps(units, set)),
                            kept->flops,
                            kept->bytes,
                            true,
                            set,
                            kept->seconds};
  });
  for (std::optional<Candidate> &c : pruned)
    if (c)
      all.push_back(std::move(*c));
}

/// A detached clone of `func` whose unit roots carry their unit's number,
/// which the rewritten clones of it keep.
func::FuncOp tagUnits(func::FuncOp func, const TrainingStep &step,
                      ArrayRef<Unit> units) {
  auto tagged = cast<func::FuncOp>(func->clone());
  Builder b(func.getContext());
  OpOrder order(tagged.getBody().front());
  for (auto [i, unit] : llvm::enumerate(units))
    order.getOp(step.getPosition(unit.root))
        ->setAttr(getUnitTag(), b.getI64IntegerAttr(i));
  return tagged;
}

/// The candidate family of `func`, each with its estimate.
Candidates makeCandidates(func::FuncOp func, const EchoPlanOptions &options) {
  TrainingStep step(func);
  // The cost-aware candidates start from the step with ReLU reads stashed
  // as 1-bit masks (free of recompute; echo-ilp showed that units chosen
  // without it spend their first FLOPs on bytes it frees for nothing).
  // Without ReLUs there is nothing to binarize: no clone.
  func::FuncOp binarized;
  std::optional<TrainingStep> binarizedStep;
  if (llvm::any_of(step.getRecomputeCandidates(), [](Operation *op) {
        auto diff = dyn_cast<DifferentiableOpInterface>(op);
        return diff && diff.isGradientReadBinarizable();
      })) {
    binarized = cast<func::FuncOp>(func->clone());
    if (binarizeGradientReads(binarized) > 0)
      binarizedStep.emplace(binarized);
  }
  llvm::scope_exit eraseBinarized([&] {
    if (binarized)
      binarized.erase();
  });
  bool binarizable = binarizedStep.has_value();
  const TrainingStep &unitStep = binarizable ? *binarizedStep : step;
  SmallVector<Unit> units = rankUnits(unitStep, getTimeModel(func));
  auto planOf = [&](ArrayRef<Operation *> taken) {
    SmallVector<Operation *> r(taken);
    llvm::sort(r, [&](Operation *a, Operation *b) {
      return unitStep.getPosition(a) < unitStep.getPosition(b);
    });
    r.erase(llvm::unique(r), r.end());
    RecomputePlan plan;
    plan.binarizeGradientReads = binarizable;
    plan.packMasks = true;
    plan.groups = getConnectedGroups(unitStep, getPositions(unitStep, r));
    return plan;
  };

  // The two sequential searches, echo's (its candidates, then heavy re-runs
  // at rising budgets: cheap ops first, compute-heavy ones as the budget on
  // their FLOPs grows) and the peak-driven one, run side by side; each
  // works on its own clones.
  SmallVector<double> heavyBudgets = {0.0, options.heavyBudget, 0.1, 1.0};
  llvm::sort(heavyBudgets);
  heavyBudgets.erase(llvm::unique(heavyBudgets), heavyBudgets.end());
  Candidates echo, peakDriven;
  func::FuncOp tagged = tagUnits(unitStep.getFunction(), unitStep, units);
  llvm::scope_exit eraseTagged([&] { tagged.erase(); });
  parallelFor(func.getContext(), 0, 2, [&](size_t task) {
    if (task == 1) {
      addPeakDriven(tagged, units, planOf, peakDriven);
      return;
    }
    for (auto [heavy, plan] :
         llvm::zip(heavyBudgets, planEchoAtHeavyBudgets(func, heavyBudgets)))
      if (plan)
        echo.push_back(
            {llvm::formatv("echo heavy-budget={0}", llvm::format("%g", heavy))
                 .str(),
             std::move(*plan), 0, 0});
  });

  Candidates out;
  out.push_back({"none", RecomputePlan(), 0, 0});
  RecomputePlan masks;
  masks.packMasks = true;
  out.push_back({"packed masks", masks, 0, 0});
  // ReLU inputs stashed as their 1-bit masks too: still nothing recomputed
  // (echo-ilp found steps below packed masks at no recompute this way).
  if (binarizable) {
    RecomputePlan masksBinarized = masks;
    masksBinarized.binarizeGradientReads = true;
    out.push_back({"packed masks, ReLU reads binarized", masksBinarized, 0, 0});
  }
  for (Candidate &c : echo)
    out.push_back(std::move(c));
  out.push_back({"mirror", planMirror(step), 0, 0});
  // The regions the model checkpoints (the importer's hints): as PyTorch
  // recomputes them, and without their compute-heavy ops.
  for (bool heavy : {true, false})
    if (std::optional<RecomputePlan> plan = planCheckpointRegions(step, heavy))
      out.push_back(
          {heavy ? "checkpoint regions" : "checkpoint regions, light ops",
           std::move(*plan), 0, 0});
  out.push_back({"sublinear", planSublinear(step), 0, 0});
  // Chen et al.'s segments at other sizes: from many small segments (more
  // checkpoints stashed, less recomputed) to few large ones.
  for (int k : {-4, -2, 2}) {
    double scale = std::pow(2.0, k / 2.0);
    out.push_back(
        {llvm::formatv("sublinear segments x{0}", llvm::format("%g", scale))
             .str(),
         planSublinearAt(step, scale), 0, 0});
  }
  // Larger prefixes of the cheapest values overall, 32, 128, ... (the
  // peak-driven search takes the first ones one at a time).
  for (size_t length = 32; length / 4 < units.size(); length *= 4) {
    length = std::min(length, units.size());
    UnitSet prefix;
    llvm::append_range(prefix, llvm::seq<unsigned>(0, length));
    out.push_back({"cheapest " + std::to_string(length) + " of " +
                       std::to_string(units.size()) + " values",
                   planOf(getUnitOps(units, prefix)), 0, 0, false, prefix});
  }
  for (Candidate &c : peakDriven)
    out.push_back(std::move(c));

  // Each estimate rewrites its own detached clone: they run in parallel.
  parallelForEach(func.getContext(), out, [&](Candidate &c) {
    if (!c.estimated)
      estimateOn(applyToClone(func, c.plan), c);
  });

  // On steps small enough, the search on the estimate itself: a measured
  // descent, then every candidate made of units pruned. Its trials are
  // bounded by the ops they estimate in all, so on a paper-size step (where
  // the family above already costs most of a second) it does nothing.
  constexpr int64_t maxSearchOps = 2'000'000;
  int64_t stepOps =
      static_cast<int64_t>(tagged.getBody().front().getOperations().size());
  SearchBudget search{maxSearchOps / std::max<int64_t>(stepOps, 1)};
  if (search.maxTrials >= static_cast<int64_t>(2 * units.size())) {
    addMeasuredDescent(func.getContext(), tagged, units, planOf, search, out);
    pruneCandidates(func.getContext(), tagged, units, planOf, search, out);
  }
  return out;
}

/// The candidates that offload: on none, on echo's plan at the default
/// heavy budget and on the three recompute candidates of fewest estimated
/// bytes (the estimate's order is not the plan's),
/// the values `heavy` offloads and (with `all`) every stashed one, each
/// scheduled under the options' bandwidth model (copies it cannot hide are
/// left out). Appended to `all`, estimated.
void addOffloadCandidates(func::FuncOp func, const EchoPlanOptions &options,
                          Candidates &all) {
  SmallVector<OffloadPolicy> policies = {OffloadPolicy::Heavy};
  if (options.offload == OffloadPolicy::All)
    policies.push_back(OffloadPolicy::All);
  const Candidate *echo = nullptr;
  std::string echoName = llvm::formatv("echo heavy-budget={0}",
                                       llvm::format("%g", options.heavyBudget))
                             .str();
  SmallVector<const Candidate *> bySize;
  for (const Candidate &c : all) {
    bySize.push_back(&c);
    if (c.name == echoName)
      echo = &c;
  }
  llvm::sort(bySize, [](const Candidate *a, const Candidate *b) {
    return std::make_pair(a->estimatedBytes, a->recomputeFlops) <
           std::make_pair(b->estimatedBytes, b->recomputeFlops);
  });
  SmallVector<const Candidate *> bases = {&all.front()};
  if (echo)
    bases.push_back(echo);
  for (const Candidate *c : ArrayRef(bySize).take_front(3))
    if (!llvm::is_contained(bases, c))
      bases.push_back(c);
  Candidates made;
  SmallVector<OffloadPolicy> madePolicies;
  for (const Candidate *base : bases)
    for (OffloadPolicy policy : policies) {
      made.push_back(
          {base->name + " + offload " + stringifyOffloadPolicy(policy).str(),
           base->plan, 0, 0});
      madePolicies.push_back(policy);
    }
  // Which values to offload is read off the rewritten step (the plan names
  // them by their positions there).
  parallelFor(func.getContext(), 0, made.size(), [&](size_t i) {
    Candidate &c = made[i];
    func::FuncOp trial = applyToClone(func, c.plan);
    c.plan.offloads = selectOffloads(trial, madePolicies[i]);
    c.plan.offloadModel = options.offloadModel;
    offloadValues(trial, c.plan.offloads, c.plan.offloadModel);
    estimateOn(trial, c);
  });
  for (Candidate &c : made)
    if (!c.plan.offloads.empty())
      all.push_back(std::move(c));
}

/// The candidates with the loss chunked into `options.lossChunks` chunks
/// (chunkLoss): the chunked step alone, with packed masks, echo at the
/// heavy budgets the family uses, mirror and sublinear, each planned on the
/// chunked step. Appended to `all`, estimated.
void addChunkedCandidates(func::FuncOp func, const EchoPlanOptions &options,
                          Candidates &all) {
  auto chunked = cast<func::FuncOp>(func->clone());
  llvm::scope_exit eraseChunked([&] { chunked.erase(); });
  if (failed(chunkLoss(chunked, options.lossChunks)))
    return;
  std::string prefix =
      llvm::formatv("chunked loss x{0}", options.lossChunks).str();
  Candidates made;
  made.push_back({prefix, RecomputePlan(), 0, 0});
  RecomputePlan masks;
  masks.packMasks = true;
  made.push_back({prefix + ", packed masks", masks, 0, 0});
  SmallVector<double> heavyBudgets = {0.0, options.heavyBudget, 0.1, 1.0};
  llvm::sort(heavyBudgets);
  heavyBudgets.erase(llvm::unique(heavyBudgets), heavyBudgets.end());
  for (auto [heavy, plan] :
       llvm::zip(heavyBudgets, planEchoAtHeavyBudgets(chunked, heavyBudgets)))
    if (plan)
      made.push_back({llvm::formatv("{0}, echo heavy-budget={1}", prefix,
                                    llvm::format("%g", heavy))
                          .str(),
                      std::move(*plan), 0, 0});
  TrainingStep step(chunked);
  made.push_back({prefix + ", mirror", planMirror(step), 0, 0});
  made.push_back({prefix + ", sublinear", planSublinear(step), 0, 0});
  for (Candidate &c : made)
    c.plan.lossChunks = options.lossChunks;
  parallelForEach(func.getContext(), made, [&](Candidate &c) {
    estimateOn(applyToClone(func, c.plan), c);
  });
  for (Candidate &c : made)
    all.push_back(std::move(c));
}

} // namespace

Family
mlir::echo::recompute::budget::makeFamily(func::FuncOp func,
                                          const EchoPlanOptions &options) {
  Family family;
  family.candidates = makeCandidates(func, options);
  family.wholeLoss = family.candidates.size();
  if (options.lossChunks > 0)
    addChunkedCandidates(func, options, family.candidates);
  family.recomputeOnly = family.candidates.size();
  if (options.offload != OffloadPolicy::None)
    addOffloadCandidates(func, options, family.candidates);
  return family;
}
