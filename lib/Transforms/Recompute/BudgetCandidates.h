//===- BudgetCandidates.h - The budget strategy's candidates ----*- C++ -*-===//
//
// Part of the Echo project.
//
// The family of candidate plans the budget strategy (Budget.cpp) chooses
// from, made by BudgetCandidates.cpp. Private to lib/Transforms/Recompute.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_TRANSFORMS_RECOMPUTE_BUDGETCANDIDATES_H
#define ECHO_LIB_TRANSFORMS_RECOMPUTE_BUDGETCANDIDATES_H

#include "echo/Transforms/Recompute.h"

#include <string>

namespace mlir::echo::recompute::budget {

/// Units (rankUnits in BudgetCandidates.cpp) by their index.
using UnitSet = SmallVector<unsigned, 0>;

struct Candidate;
/// Candidates are large (a plan each): none inline.
using Candidates = SmallVector<Candidate, 0>;

/// A candidate plan with what the estimate says of it.
struct Candidate {
  std::string name;
  RecomputePlan plan;
  int64_t recomputeFlops = 0;
  int64_t estimatedBytes = 0;
  /// The estimate is set (when the candidate was made, or later).
  bool estimated = false;
  /// The units (rankUnits) it recomputes, where it is made of units.
  UnitSet units = {};
  /// Estimated seconds of its recompute regions (TimeModel.h): the order's
  /// first key.
  double recomputeSeconds = 0;
};

/// The candidates of a step: recompute-only ones with the loss whole, then
/// (EchoPlanOptions::lossChunks) those with it chunked from `wholeLoss` on,
/// then (EchoPlanOptions::offload) those that offload from `recomputeOnly`
/// on; none first, each with its estimate. None of it depends on the budget.
struct Family {
  Candidates candidates;
  size_t wholeLoss = 0;
  size_t recomputeOnly = 0;
};

/// The candidate family of `func` (which it does not modify).
Family makeFamily(func::FuncOp func, const EchoPlanOptions &options);

} // namespace mlir::echo::recompute::budget

#endif // ECHO_LIB_TRANSFORMS_RECOMPUTE_BUDGETCANDIDATES_H
