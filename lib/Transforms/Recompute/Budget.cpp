//===- Budget.cpp - The budget strategy: fit a byte bound -----------------===//
//
// Part of the Echo project.
//
// `strategy=budget`: the plan with the least recompute time whose step fits
// a byte budget. The candidates (BudgetCandidates.cpp) come from one family
// that does not depend on the budget, ranked once by recompute seconds under
// the step's time model (TimeModel.h; then FLOPs and estimated bytes); the
// first in that order that fits wins. A smaller budget can only move the
// choice further down the same order, to a plan that fits the smaller
// budget, so the footprint is monotone in the budget (see Recompute.h).
// Measured (EchoPlanOptions::stepBytes), the candidates are lowered a batch
// at a time; those the estimate predicts over the budget go last.
//
//===----------------------------------------------------------------------===//

#include "BudgetCandidates.h"

#include "llvm/Support/Threading.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::recompute::budget;

FailureOr<RecomputePlan>
mlir::echo::planBudget(func::FuncOp func, const EchoPlanOptions &options) {
  Family family = makeFamily(func, options);
  const Candidates &all = family.candidates;
  size_t wholeLoss = family.wholeLoss, recomputeOnly = family.recomputeOnly;
  // One order for every budget: none (a share of the budget is of its
  // bytes), then least recompute seconds (the time model's), FLOPs, the
  // fewest estimated bytes, the order made; the candidates with the loss
  // chunked after those with it whole, and those that offload after all others,
  // in the same order among themselves.
  auto order = llvm::to_vector(llvm::seq<size_t>(1, all.size()));
  llvm::sort(order, [&](size_t a, size_t b) {
    return std::make_tuple(a >= recomputeOnly, a >= wholeLoss,
                           roundToPicoseconds(all[a].recomputeSeconds),
                           all[a].recomputeFlops, all[a].estimatedBytes, a) <
           std::make_tuple(b >= recomputeOnly, b >= wholeLoss,
                           roundToPicoseconds(all[b].recomputeSeconds),
                           all[b].recomputeFlops, all[b].estimatedBytes, b);
  });
  // On the estimate, a candidate that costs no less and is estimated no
  // smaller than the one before it can never be chosen: it is dropped.
  // Measured, it stays (a plan may hold less than its estimate says:
  // sublinear's paper-size NMT is estimated above echo's but planned 7%
  // below it).
  SmallVector<const Candidate *> ranked = {&all.front()};
  for (size_t i : order)
    if (options.stepBytes ||
        all[i].estimatedBytes < ranked.back()->estimatedBytes)
      ranked.push_back(&all[i]);

  int64_t noneBytes = 0, reserve = options.budgetReserve;
  auto fail = [&](int64_t budget, int64_t smallest, const Candidate &best,
                  StringRef what) -> LogicalResult {
    InFlightDiagnostic diag = func.emitError();
    diag << "echo-recompute: no plan of @" << func.getSymName()
         << " fits the budget of " << budget << " bytes";
    if (options.budget.isFraction)
      diag << " (" << options.budget.str() << " of strategy none's "
           << noneBytes << ")";
    if (reserve)
      diag << " with " << reserve << " bytes of library workspace";
    diag << "; the smallest " << what << " found is " << smallest << " bytes ("
         << best.name << ", " << best.recomputeFlops << " recompute FLOPs)";
    return failure();
  };

  EchoPlanOptions::BudgetTable *table = options.budgetTable;
  if (table)
    for (const Candidate *c : ranked) {
      BudgetCandidateInfo &info = table->candidates.emplace_back();
      info.name = c->name;
      info.recomputeFlops = c->recomputeFlops;
      info.estimatedBytes = c->estimatedBytes;
    }
  auto choose = [&](size_t index) -> RecomputePlan {
    if (table)
      table->candidates[index].chosen = true;
    return ranked[index]->plan;
  };

  if (!options.stepBytes) {
    noneBytes = ranked.front()->estimatedBytes + reserve;
    int64_t budget = options.budget.resolve(noneBytes);
    if (table) {
      table->budgetBytes = budget;
      table->noneBytes = noneBytes;
    }
    for (auto [i, c] : llvm::enumerate(ranked))
      if (c->estimatedBytes + reserve <= budget)
        return choose(i);
    // ranked's estimates fall: the last is the smallest.
    return fail(budget, ranked.back()->estimatedBytes + reserve, *ranked.back(),
                "estimated step");
  }

  // Measured a batch at a time (a batch is lowered in parallel), in the
  // ranked order; the first that fits wins. Each lowering bufferizes the
  // whole step, so the candidates predicted not to fit are lowered last:
  // a plan's step bytes have stayed above 0.87 of its estimate times none's
  // planned-to-estimated ratio on every model measured (bench/budget.py's
  // tables; the ratio itself ranges from 0.63 to 1.01), so below the
  // default floor of 0.8 such a candidate would fit only if the planner
  // beat its estimate by more than it ever has. They are lowered, in the
  // ranked order, only when no other candidate fits: the floor saves time,
  // never a fit.
  size_t batch = std::max<unsigned>(
      2, llvm::hardware_concurrency().compute_thread_count());
  std::optional<int64_t> budget;
  double noneRatio = 1.0;
  SmallVector<std::optional<int64_t>> planned(ranked.size());
  auto measure = [&](ArrayRef<size_t> indices) -> LogicalResult {
    SmallVector<const RecomputePlan *> plans;
    for (size_t i : indices)
      plans.push_back(&ranked[i]->plan);
    FailureOr<SmallVector<int64_t>> bytes = measurePlans(func, plans, options);
    if (failed(bytes))
      return failure();
    for (auto [i, b] : llvm::zip(indices, *bytes)) {
      planned[i] = b + reserve;
      if (table)
        table->candidates[i].stepBytes = b + reserve;
    }
    if (!budget) { // none is ranked first, so it is in the first batch
      noneBytes = *planned[0];
      budget = options.budget.resolve(noneBytes);
      noneRatio = static_cast<double>(*planned[0] - reserve) /
                  std::max<int64_t>(1, ranked[0]->estimatedBytes);
      if (table) {
        table->budgetBytes = *budget;
        table->noneBytes = noneBytes;
      }
    }
    return success();
  };
  // Known once none is measured; none itself is never predicted over.
  auto predictedOver = [&](size_t i) {
    return i > 0 && budget && options.budgetEstimateFloor > 0 &&
           static_cast<double>(ranked[i]->estimatedBytes) * noneRatio *
                       options.budgetEstimateFloor +
                   static_cast<double>(reserve) >
               static_cast<double>(*budget);
  };
  // The first measured candidate in the ranked order that fits (of those
  // predicted to fit, or of all).
  auto firstFit = [&](bool anyPrediction) -> std::optional<size_t> {
    for (size_t i = 0; i < ranked.size(); ++i)
      if (planned[i] && *planned[i] <= *budget &&
          (anyPrediction || !predictedOver(i)))
        return i;
    return std::nullopt;
  };
  // Lowers, a batch at a time in the ranked order, the candidates not yet
  // measured that `take` accepts, until `done` (a table measures all).
  auto measureWhile = [&](function_ref<bool(size_t)> take,
                          function_ref<bool()> done) -> LogicalResult {
    size_t next = 0;
    while (!done() || table) {
      SmallVector<size_t> slice;
      for (; next < ranked.size() && slice.size() < batch; ++next)
        if (!planned[next] && take(next))
          slice.push_back(next);
      if (slice.empty())
        return success();
      if (failed(measure(slice)))
        return failure();
    }
    return success();
  };
  std::optional<size_t> chosen;
  if (failed(
          measureWhile([&](size_t i) { return table || !predictedOver(i); },
                       [&] { return budget && firstFit(false).has_value(); })))
    return failure();
  chosen = firstFit(false);
  if (!chosen) {
    if (failed(measureWhile([](size_t) { return true; },
                            [&] { return firstFit(true).has_value(); })))
      return failure();
    chosen = firstFit(true);
  }
  if (table)
    for (size_t i = 0; i < ranked.size(); ++i)
      table->candidates[i].predictedOver = predictedOver(i);
  if (chosen)
    return choose(*chosen);
  int64_t smallest = INT64_MAX;
  const Candidate *smallestCandidate = nullptr;
  for (auto [c, b] : llvm::zip(ranked, planned))
    if (b && *b < smallest) {
      smallest = *b;
      smallestCandidate = c;
    }
  return fail(*budget, smallest, *smallestCandidate, "planned step");
}
