//===- RecomputeILP.h - An optimal recompute reference ----------*- C++ -*-===//
//
// Part of the Echo project.
//
// The reference the budget strategy is measured against: the choice of which
// forward ops to recompute that costs the fewest recompute FLOPs while the step
// stays within a byte budget, found by an integer linear program
// (Checkmate-style) solved to optimality with COIN-OR CBC. It is a tool
// (`echo-ilp`), not part of any pipeline: a solve takes seconds to minutes on a
// few hundred ops.
//
// The program, on the step with ReLU reads binarized and masks packed (the
// rewrites every echo plan starts with; they cost no recompute):
//
// - e[i][k] (binary): forward op i is recomputed in the region placed
//   before the k-th region point. Region points are where echo places
//   regions: the first backward reader of each value the backward pass
//   reads. An op the backward pass reads is recomputed at or before its
//   first reader; each op at most once.
// - S[i][k] = sum over k' >= k of e[i][k'] (continuous, by equalities), so
//   r[i] = S[i][0] says whether i is recomputed and 1 - S[i][k+1] whether
//   its results are present after point k.
// - An op is recomputed no earlier than the ops of R it reads:
//   e[c][k] + S[i][k+1] <= 1.
// - A value the backward pass reads is freed from its last forward reader
//   until it is recomputed (if it is): at every point before its first
//   backward reader it costs its bytes times 1 - S[i][k+1] instead of its
//   bytes.
// - A value a recomputed op reads past the value's natural end (an operand
//   kept from the forward pass, or a recomputed temporary) costs its bytes
//   wherever it is present and a consumer is still to be recomputed:
//   x >= present + S[c][k] - 1.
// - Memory at every op and every region point is at most the budget: the
//   step's estimated live bytes there (MemoryAnalysis.h's model: arguments,
//   values from definition to last use) adjusted by the terms above. All
//   values a region recomputes count as live together at its point.
// - Objective: the FLOPs (CostOpInterface) of the recomputed ops, plus one
//   per op (so that ops of no FLOPs are not recomputed for nothing).
//
// The plan of a solution (R in connected groups, as every strategy makes)
// goes through the same rewrite as any other (applyRecomputePlan), so its
// real estimate and recompute FLOPs can be compared with the budget
// strategy's on equal terms; where the rewrite departs from the model
// (it re-runs a shared producer per region, or frees temporaries inside a
// region) the two differ, and echo-ilp reports both.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TRANSFORMS_RECOMPUTEILP_H
#define ECHO_TRANSFORMS_RECOMPUTEILP_H

#include "echo/Transforms/Recompute.h"

#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"

namespace mlir::echo {

/// How a program is solved.
struct RecomputeILPOptions {
  /// The solver stops after this many seconds (wall clock) with the best
  /// solution it has; the limit covers the whole solve, the first LP
  /// relaxation included (Clp's simplex stops at the same deadline).
  double timeLimitSeconds = 60;
};

/// One solve of the program.
struct RecomputeILPSolution {
  enum class Status {
    /// Proven optimal.
    Optimal,
    /// The time limit struck with a solution that is not proven optimal.
    Feasible,
    /// Proven infeasible: nothing fits the budget in the model.
    Infeasible,
    /// The time limit struck before any solution.
    Unknown,
  };
  Status status = Status::Unknown;
  /// The plan (Optimal and Feasible).
  RecomputePlan plan;
  /// The FLOPs of the recomputed ops, and how many.
  int64_t recomputeFlops = 0;
  int64_t recomputedOps = 0;
  /// The objective of the solution (FLOPs plus one per op, or the peak's
  /// bytes), with a plan.
  double objective = 0;
  /// The solver's proven lower bound on the objective; equal to it when
  /// optimal.
  double bestBound = 0;
  /// The model's peak bytes with this solution.
  int64_t modelPeakBytes = 0;
  /// Seconds to load the program into the solver, and to solve it.
  double loadSeconds = 0;
  double solveSeconds = 0;
  /// The solver stopped at the time limit.
  bool timeLimitReached = false;
  /// The time limit struck inside the first LP relaxation (no bound).
  bool stoppedInRelaxation = false;
  /// What CBC threw, when it failed (the status is then Unknown).
  std::string solverError;

  /// Whether there is a plan (Optimal or Feasible).
  bool hasPlan() const {
    return status == Status::Optimal || status == Status::Feasible;
  }
};

/// The status as echo-ilp writes it ("optimal", "feasible", ...).
StringRef stringifyStatus(RecomputeILPSolution::Status status);

/// The program of one training step, built once and solved at any budget.
class RecomputeILP {
public:
  /// The most nonzeros a program may have by default (about 600 MB in
  /// CBC's first LP relaxation): a chain of some 700 elementwise ops, far
  /// beyond what CBC proves in minutes.
  static constexpr int64_t defaultMaxNonzeros = 2'000'000;

  /// Builds the program of `func`, a training step echo-autodiff built and
  /// no strategy rewrote; fails with a diagnostic on anything else, and on a
  /// program of more than `maxNonzeros` nonzeros (refused before it is
  /// built whole).
  static FailureOr<RecomputeILP>
  build(func::FuncOp func, int64_t maxNonzeros = defaultMaxNonzeros);

  /// The model's bytes with nothing recomputed (the estimated peak of the
  /// step with masks packed and ReLU reads binarized).
  int64_t getBaseBytes() const { return baseBytes; }
  /// The ops that may be recomputed, the program's columns and rows.
  int64_t getNumCandidates() const { return candidates.size(); }
  int64_t getNumColumns() const { return columns.size(); }
  int64_t getNumRows() const { return rows.size() + memoryRows.size(); }
  /// The entries of its constraint matrix.
  int64_t getNumNonzeros() const { return numNonzeros; }

  /// The cheapest plan within `budgetBytes` in the model.
  RecomputeILPSolution solve(int64_t budgetBytes,
                             const RecomputeILPOptions &options) const;
  /// The plan of the smallest peak in the model (FLOPs not minimised).
  RecomputeILPSolution solveMinPeak(const RecomputeILPOptions &options) const;

private:
  struct Column {
    double lower, upper, objective;
    bool integer;
  };
  struct Row {
    SmallVector<std::pair<int, double>> terms;
    char sense; // 'L', 'G' or 'E'
    double rhs;
  };
  /// Live bytes at one op or region point: `bytes` plus the terms.
  struct MemoryRow {
    SmallVector<std::pair<int, double>> terms;
    int64_t bytes;
  };
  struct Candidate {
    /// Its position in `step`, and in the step the plan is applied to (with
    /// ReLU reads binarized, before masks are packed).
    int64_t position, planPosition;
    int64_t flops;
    /// Its e columns (one per region point it may use), from point 0.
    SmallVector<int> e;
  };

  RecomputeILPSolution run(std::optional<int64_t> budgetBytes,
                           const RecomputeILPOptions &options) const;

  SmallVector<Column> columns;
  SmallVector<Row> rows;
  SmallVector<MemoryRow> memoryRows;
  SmallVector<Candidate> candidates;
  int64_t baseBytes = 0;
  int64_t numNonzeros = 0;
  /// The step the program is of (ReLU reads binarized, masks packed).
  OwningOpRef<func::FuncOp> step;
};

/// What echo-ilp compares.
struct ILPComparisonOptions {
  /// Budgets (bytes, or shares of strategy none's estimated bytes).
  SmallVector<RecomputeBudget> budgets;
  /// Also solve for the model's smallest peak, then for the fewest FLOPs
  /// within it.
  bool minPeak = false;
  RecomputeILPOptions solver;
  /// Programs of more nonzeros are refused (RecomputeILP::build).
  int64_t maxNonzeros = RecomputeILP::defaultMaxNonzeros;
  /// Where to say what is being solved and how each solve ended (echo-ilp:
  /// stderr); nothing when null.
  raw_ostream *log = nullptr;
};

/// Solves the program of the training step `func` at each budget and puts
/// the budget strategy (planBudget, on the estimate) beside every solution:
/// at the solution's own estimated bytes after the rewrite (the same
/// footprint, so the recompute FLOPs compare directly) and at the budget.
/// Returns echo-ilp's JSON object for `func` (docs/Contract.md) and writes
/// a table to `os`. Fails with a diagnostic when the program cannot be
/// built.
FailureOr<llvm::json::Object>
compareBudgetWithILP(func::FuncOp func, const ILPComparisonOptions &options,
                     raw_ostream &os);

} // namespace mlir::echo

#endif // ECHO_TRANSFORMS_RECOMPUTEILP_H
