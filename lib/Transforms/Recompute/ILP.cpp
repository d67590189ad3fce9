//===- ILP.cpp - The optimal recompute reference, solved with CBC ---------===//
//
// Part of the Echo project.
//
// Builds the integer program RecomputeILP.h describes from a training step
// (positions, bytes and FLOPs through MemoryAnalysis and CostOpInterface)
// and solves it with COIN-OR CBC.
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/RecomputeILP.h"

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <OsiClpSolverInterface.hpp>

#include <cfloat>
#include <chrono>
#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::echo;

StringRef mlir::echo::stringifyStatus(RecomputeILPSolution::Status status) {
  switch (status) {
  case RecomputeILPSolution::Status::Optimal:
    return "optimal";
  case RecomputeILPSolution::Status::Feasible:
    return "feasible";
  case RecomputeILPSolution::Status::Infeasible:
    return "infeasible";
  case RecomputeILPSolution::Status::Unknown:
    return "unknown";
  }
  llvm_unreachable("unknown status");
}

namespace {
/// A value the backward pass reads that recomputing its op frees between
/// its last forward reader and its first backward reader.
struct Freeable {
  unsigned candidate;
  int64_t bytes, lastForward, firstBackward;
};

/// The positions of a value's uses in `step`: the last one (its natural
/// end), the last one that is not a backward read, and the first backward
/// reader (-1 when none).
struct UseSpan {
  int64_t last, lastForward, firstBackward = -1;
};

UseSpan getUseSpan(const TrainingStep &step, Value v) {
  int64_t def = step.getPosition(v.getDefiningOp());
  UseSpan span{def, def};
  for (OpOperand &use : v.getUses()) {
    int64_t at = step.getPosition(use.getOwner());
    span.last = std::max(span.last, at);
    if (!step.isBackwardUse(use))
      span.lastForward = std::max(span.lastForward, at);
    else if (span.firstBackward < 0 || at < span.firstBackward)
      span.firstBackward = at;
  }
  return span;
}
} // namespace

FailureOr<RecomputeILP> RecomputeILP::build(func::FuncOp func,
                                            int64_t maxNonzeros) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return func.emitError("echo-ilp: @")
           << func.getSymName() << " is not a single-block training step";
  bool rewritten = false;
  func.walk([&](Operation *op) {
    if (isa<RecomputeOp, PackMaskOp>(op))
      rewritten = true;
  });
  if (rewritten)
    return func.emitError("echo-ilp: @")
           << func.getSymName()
           << " was already rewritten by a recompute strategy; give the step "
              "as echo-autodiff built it";
  if (!TrainingStep(func).getLossOp())
    return func.emitError("echo-ilp: the loss of @")
           << func.getSymName() << " (its first result) is not computed by it";

  // The step every echo plan starts from: ReLU reads binarized (the
  // positions plans name), then masks packed (the step the model is of).
  RecomputeILP ilp;
  ilp.step = cast<func::FuncOp>(func->clone());
  func::FuncOp work = *ilp.step;
  binarizeGradientReads(work);
  OpOrder planOrder(work.getBody().front());
  RecomputePlan masks;
  masks.packMasks = true;
  applyRecomputePlan(work, masks);
  TrainingStep step(work);
  MemoryStats stats = computeMemoryStats(work);
  ArrayRef<int64_t> base = stats.timeline;
  int64_t n = step.size(), loss = step.getForwardEndPosition();

  ilp.baseBytes = stats.peakLiveBytes;

  // Candidates: what the other strategies may recompute, less stochastic
  // ops and masks (never recomputed) and ops with a result the backward
  // pass reads before the forward pass is done with it (nothing to free).
  SmallVector<Operation *> candidateOps;
  DenseMap<Operation *, unsigned> candidateIndex;
  SmallVector<Freeable> freeable;
  for (Operation *op : step.getRecomputeCandidates()) {
    if (producesStochasticMask(op) ||
        llvm::any_of(op->getResults(), TrainingStep::isMask))
      continue;
    SmallVector<Freeable> frees;
    bool useless = false;
    for (Value v : op->getResults()) {
      int64_t bytes = getTensorBytes(v.getType());
      if (!bytes || !step.hasBackwardUse(v))
        continue;
      UseSpan span = getUseSpan(step, v);
      if (span.lastForward >= span.firstBackward)
        useless = true;
      frees.push_back({static_cast<unsigned>(candidateOps.size()), bytes,
                       span.lastForward, span.firstBackward});
    }
    if (useless)
      continue;
    candidateIndex[op] = candidateOps.size();
    candidateOps.push_back(op);
    llvm::append_range(freeable, frees);
  }

  // Region points: the first backward readers of the freeable values.
  SmallVector<int64_t> points;
  for (const Freeable &f : freeable)
    points.push_back(f.firstBackward);
  llvm::sort(points);
  points.erase(llvm::unique(points), points.end());
  int64_t numPoints = points.size();
  auto pointIndex = [&](int64_t position) { // the last point <= position
    return static_cast<int64_t>(llvm::upper_bound(points, position) -
                                points.begin()) -
           1;
  };

  auto addColumn = [&](double lower, double upper, double objective,
                       bool integer) {
    ilp.columns.push_back({lower, upper, objective, integer});
    return static_cast<int>(ilp.columns.size() - 1);
  };
  // The program grows with the square of the step's length (candidates
  // times region points, live values times ops); CBC needs about 300 bytes
  // per nonzero and its first LP relaxation seconds per 100,000 of them.
  // Over the bound the program is refused as soon as it is known to be,
  // before it is built further.
  auto tooLarge = [&] {
    if (ilp.numNonzeros <= maxNonzeros)
      return false;
    func.emitError("echo-ilp: the program of @")
        << func.getSymName() << " has more than " << maxNonzeros
        << " nonzeros (--max-nonzeros; CBC needs about 300 bytes each): "
        << candidateOps.size() << " ops may be recomputed at " << numPoints
        << " region points";
    return true;
  };

  // e and S columns; S[i][k] for k beyond the last point i may use is 0
  // (suffix returns -1). Candidate i may use points 0..lastPoint[i], each
  // with an e and an S column and a row of three entries defining S (two
  // at the last).
  SmallVector<int64_t> lastPoint(candidateOps.size(), numPoints - 1);
  for (const Freeable &f : freeable)
    lastPoint[f.candidate] =
        std::min(lastPoint[f.candidate], pointIndex(f.firstBackward));
  for (int64_t last : lastPoint)
    if (last >= 0)
      ilp.numNonzeros += 3 * (last + 1) - 1;
  if (tooLarge())
    return failure();
  SmallVector<SmallVector<int>> suffixColumns(candidateOps.size());
  for (auto [i, op] : llvm::enumerate(candidateOps)) {
    int64_t last = lastPoint[i];
    Candidate c;
    c.position = step.getPosition(op);
    c.planPosition = planOrder.getPosition(op);
    c.flops = estimateFlops(op);
    for (int64_t k = 0; k <= last; ++k) {
      c.e.push_back(addColumn(0, 1, static_cast<double>(c.flops) + 1, true));
      suffixColumns[i].push_back(addColumn(0, 1, 0, false));
    }
    ilp.candidates.push_back(std::move(c));
  }
  auto suffix = [&](unsigned i, int64_t k) {
    return k >= 0 && k < static_cast<int64_t>(suffixColumns[i].size())
               ? suffixColumns[i][k]
               : -1;
  };
  for (auto [i, c] : llvm::enumerate(ilp.candidates))
    for (auto [k, e] : llvm::enumerate(c.e)) {
      Row row{{{suffixColumns[i][k], 1.0}, {e, -1.0}}, 'E', 0};
      if (int next = suffix(i, k + 1); next >= 0)
        row.terms.push_back({next, -1.0});
      ilp.rows.push_back(std::move(row));
    }

  // An op is recomputed no earlier than the ops of R it reads.
  for (auto [c, op] : llvm::enumerate(candidateOps)) {
    SetVector<unsigned> producers;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (auto it = candidateIndex.find(def);
            it != candidateIndex.end() && it->second != c)
          producers.insert(it->second);
    for (unsigned i : producers)
      for (auto [k, e] : llvm::enumerate(ilp.candidates[c].e))
        if (int later = suffix(i, k + 1); later >= 0) {
          ilp.rows.push_back({{{e, 1.0}, {later, 1.0}}, 'L', 1.0});
          ilp.numNonzeros += 2;
        }
    if (tooLarge())
      return failure();
  }

  // Values recomputed ops read past their natural end: for each, the
  // candidates reading it, its producer (when a candidate) and its end.
  struct Operand {
    SetVector<unsigned> consumers;
    std::optional<unsigned> producer;
    int64_t bytes, end;
    /// Its x (at region point k) and y (at the ops after point k) columns.
    DenseMap<int64_t, int> x, y;
  };
  llvm::MapVector<Value, Operand> operands;
  for (auto [c, op] : llvm::enumerate(candidateOps))
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      int64_t bytes = getTensorBytes(v.getType());
      if (!def || !bytes || TrainingStep::isFree(v))
        continue;
      auto [it, inserted] = operands.try_emplace(v);
      if (inserted) {
        it->second.bytes = bytes;
        it->second.end = getUseSpan(step, v).last;
        if (auto p = candidateIndex.find(def); p != candidateIndex.end())
          it->second.producer = p->second;
      }
      it->second.consumers.insert(c);
    }
  // x >= present(k) + S[c][k'] - 1, present(k) = 1 - S[producer][k+1]
  // (k' = k at the region point, k + 1 at the ops after it).
  auto presentWhileNeeded = [&](Operand &o, int64_t k, bool atPoint) {
    int column = -1;
    for (unsigned c : o.consumers) {
      int needed = suffix(c, atPoint ? k : k + 1);
      if (needed < 0)
        continue;
      if (column < 0)
        column = addColumn(0, 1, 0, false);
      Row row{{{column, 1.0}, {needed, -1.0}}, 'G', 0};
      if (o.producer)
        if (int later = suffix(*o.producer, k + 1); later >= 0)
          row.terms.push_back({later, 1.0});
      ilp.numNonzeros += row.terms.size();
      ilp.rows.push_back(std::move(row));
    }
    return column;
  };
  for (auto &[v, o] : operands)
    for (int64_t k = 0; k < numPoints; ++k) {
      if (points[k] > o.end)
        if (int x = presentWhileNeeded(o, k, true); x >= 0)
          o.x[k] = x;
      int64_t lastOp = k + 1 < numPoints ? points[k + 1] - 1 : n - 1;
      if (lastOp > o.end)
        if (int y = presentWhileNeeded(o, k, false); y >= 0)
          o.y[k] = y;
      if (tooLarge())
        return failure();
    }

  // Live bytes at every op and region point; rows with the same terms keep
  // the largest bytes.
  std::map<SmallVector<std::pair<int, double>>, int64_t> memory;
  auto addMemoryRow = [&](SmallVector<std::pair<int, double>> terms,
                          int64_t bytes) {
    llvm::sort(terms);
    int64_t size = terms.size();
    auto [it, inserted] = memory.try_emplace(std::move(terms), bytes);
    if (!inserted)
      it->second = std::max(it->second, bytes);
    else
      ilp.numNonzeros += size;
  };
  for (int64_t t = 0; t < n; ++t) {
    SmallVector<std::pair<int, double>> terms;
    int64_t k = t > loss ? pointIndex(t) : -1;
    for (const Freeable &f : freeable)
      if (f.lastForward < t && t < f.firstBackward)
        if (int s = suffix(f.candidate, k + 1); s >= 0)
          terms.push_back({s, -static_cast<double>(f.bytes)});
    if (k >= 0)
      for (auto &[v, o] : operands)
        if (o.end < t)
          if (auto it = o.y.find(k); it != o.y.end())
            terms.push_back({it->second, static_cast<double>(o.bytes)});
    addMemoryRow(std::move(terms), base[t]);
    if (tooLarge())
      return failure();
  }
  for (int64_t k = 0; k < numPoints; ++k) {
    int64_t at = points[k];
    // Live between the op before the point and the op at it.
    int64_t bytes = base[at];
    for (Value r : step.getOp(at)->getResults())
      bytes -= getTensorBytes(r.getType());
    SmallVector<std::pair<int, double>> terms;
    for (const Freeable &f : freeable)
      if (at < f.firstBackward)
        if (int s = suffix(f.candidate, k + 1); s >= 0)
          terms.push_back({s, -static_cast<double>(f.bytes)});
    for (auto &[v, o] : operands)
      if (auto it = o.x.find(k); it != o.x.end())
        terms.push_back({it->second, static_cast<double>(o.bytes)});
    addMemoryRow(std::move(terms), bytes);
    if (tooLarge())
      return failure();
  }
  for (auto &[terms, bytes] : memory)
    ilp.memoryRows.push_back({terms, bytes});
  return ilp;
}

RecomputeILPSolution
RecomputeILP::solve(int64_t budgetBytes,
                    const RecomputeILPOptions &options) const {
  return run(budgetBytes, options);
}

RecomputeILPSolution
RecomputeILP::solveMinPeak(const RecomputeILPOptions &options) const {
  return run(std::nullopt, options);
}

RecomputeILPSolution
RecomputeILP::run(std::optional<int64_t> budgetBytes,
                  const RecomputeILPOptions &options) const {
  auto loadStart = std::chrono::steady_clock::now();
  // Without a budget: minimise the peak, a last column every memory row
  // bounds.
  int numColumns = columns.size() + (budgetBytes ? 0 : 1);
  int peak = columns.size();

  // The rows' entries in row order, then the matrix in compressed sparse
  // columns, loaded in one call: CBC's addRow copies the whole matrix at
  // every row, quadratic in the program's size.
  struct Entry {
    int column, row;
    double value;
  };
  SmallVector<Entry, 0> entries;
  SmallVector<double, 0> rowLower, rowUpper;
  auto addRow = [&](ArrayRef<std::pair<int, double>> terms, char sense,
                    double rhs) {
    int row = rowLower.size();
    for (auto [column, value] : terms)
      entries.push_back({column, row, value});
    rowLower.push_back(sense == 'L' ? -DBL_MAX : rhs);
    rowUpper.push_back(sense == 'G' ? DBL_MAX : rhs);
  };
  for (const Row &row : rows)
    addRow(row.terms, row.sense, row.rhs);
  for (const MemoryRow &row : memoryRows) {
    if (budgetBytes) {
      addRow(row.terms, 'L', static_cast<double>(*budgetBytes - row.bytes));
      continue;
    }
    SmallVector<std::pair<int, double>> terms(row.terms);
    terms.push_back({peak, -1.0});
    addRow(terms, 'L', -static_cast<double>(row.bytes));
  }
  // A counting sort by column keeps each column's rows in order; a column
  // named twice in a row (a candidate freeing two results) is one entry.
  SmallVector<CoinBigIndex, 0> starts(numColumns + 1, 0);
  for (const Entry &e : entries)
    ++starts[e.column + 1];
  for (int c = 0; c < numColumns; ++c)
    starts[c + 1] += starts[c];
  SmallVector<int, 0> index(entries.size());
  SmallVector<double, 0> value(entries.size());
  {
    SmallVector<CoinBigIndex, 0> next(starts.begin(), starts.end() - 1);
    for (const Entry &e : entries) {
      CoinBigIndex k = next[e.column]++;
      index[k] = e.row;
      value[k] = e.value;
    }
  }
  CoinBigIndex kept = 0;
  for (int c = 0; c < numColumns; ++c) {
    CoinBigIndex begin = starts[c], end = starts[c + 1];
    starts[c] = kept;
    for (CoinBigIndex k = begin; k < end; ++k) {
      if (k > begin && index[k] == index[kept - 1]) {
        value[kept - 1] += value[k];
        continue;
      }
      index[kept] = index[k];
      value[kept++] = value[k];
    }
  }
  starts[numColumns] = kept;

  SmallVector<double, 0> colLower, colUpper, objective;
  for (const Column &c : columns) {
    colLower.push_back(c.lower);
    colUpper.push_back(c.upper);
    objective.push_back(budgetBytes ? c.objective : 0.0);
  }
  if (!budgetBytes) {
    colLower.push_back(0);
    colUpper.push_back(DBL_MAX);
    objective.push_back(1.0);
  }

  // CBC's solver driver (what the cbc program and CBC's C interface run:
  // preprocessing, cuts, heuristics) over a Clp LP solver whose simplex
  // stops at the same wall-clock deadline as CBC's search.
  CbcModel model{OsiClpSolverInterface()};
  CbcSolverUsefulData data;
  CbcMain0(model, data);
  data.noPrinting_ = true;
  auto *solver = dynamic_cast<OsiClpSolverInterface *>(model.solver());
  solver->loadProblem(numColumns, rowLower.size(), starts.data(), index.data(),
                      value.data(), colLower.data(), colUpper.data(),
                      objective.data(), rowLower.data(), rowUpper.data());
  for (auto [i, c] : llvm::enumerate(columns))
    if (c.integer)
      solver->setInteger(i);
  model.setLogLevel(0);
  // The limit is wall-clock time (CBC counts CPU time by default, which
  // runs slower than the clock on a busy machine). CBC checks its own limit
  // only between LP solves, and the first LP relaxation of a few hundred
  // ops takes longer than most limits; Clp's simplex checks a deadline of
  // its own between iterations. That deadline is absolute, and every LP
  // CBC solves (the relaxation, preprocessing's, the nodes') is a copy of
  // this one, so it bounds the whole solve.
  model.setUseElapsedTime(true);
  model.setMaximumSeconds(options.timeLimitSeconds);

  RecomputeILPSolution out;
  auto start = std::chrono::steady_clock::now();
  out.loadSeconds = std::chrono::duration<double>(start - loadStart).count();
  solver->getModelPtr()->setMaximumWallSeconds(options.timeLimitSeconds);
  // CbcMain1 shows the first LP relaxation's solver when it is done with
  // it (whereFrom 1), through a callback without user data. Clp's status 3
  // is a stop at a limit, here the deadline.
  static thread_local bool stoppedInRelaxation;
  stoppedInRelaxation = false;
  auto afterRelaxation = [](CbcModel *m, int whereFrom) {
    if (whereFrom == 1)
      if (auto *clp = dynamic_cast<OsiClpSolverInterface *>(m->solver()))
        stoppedInRelaxation = clp->getModelPtr()->status() == 3;
    return 0;
  };
  const char *argv[] = {"echo-ilp", "-timeMode", "elapsed", "-solve", "-quit"};
  // CBC reports its own failures by throwing CoinError; such a solve ends
  // with no solution (as CBC's C interface treats it).
  try {
    CbcMain1(std::size(argv), argv, model, afterRelaxation, data);
  } catch (const CoinError &e) {
    out.solverError =
        e.className() + "::" + e.methodName() + ": " + e.message();
  }
  out.solveSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!out.solverError.empty())
    return out;
  out.stoppedInRelaxation = stoppedInRelaxation;
  out.timeLimitReached =
      model.isSecondsLimitReached() || out.stoppedInRelaxation;
  out.bestBound = model.getBestPossibleObjValue();
  const double *solution = model.bestSolution();
  // CBC 2.10 can report a relaxation a limit interrupted as infeasible (its
  // secondary status 1) with no time limit reached: a feasible budget read
  // as proven infeasible. An infeasibility reported once the limit has
  // passed is therefore the limit, not a proof.
  bool infeasible = model.isProvenInfeasible();
  if (infeasible && (out.stoppedInRelaxation ||
                     out.solveSeconds >= options.timeLimitSeconds)) {
    infeasible = false;
    out.timeLimitReached = true;
  }
  if (model.isProvenOptimal() && solution)
    out.status = RecomputeILPSolution::Status::Optimal;
  else if (infeasible)
    out.status = RecomputeILPSolution::Status::Infeasible;
  else if (solution)
    out.status = RecomputeILPSolution::Status::Feasible;
  else
    out.status = RecomputeILPSolution::Status::Unknown;
  if (!out.hasPlan())
    return out;
  out.objective = model.getObjValue();

  // R, in connected groups (values flowing between its ops), in op order,
  // named by their positions in the step the plan applies to.
  SmallVector<int64_t> r;
  DenseMap<int64_t, int64_t> planPositions;
  for (const Candidate &c : candidates) {
    double chosen = 0;
    for (int e : c.e)
      chosen += solution[e];
    if (chosen <= 0.5)
      continue;
    r.push_back(c.position);
    planPositions[c.position] = c.planPosition;
    out.recomputeFlops += c.flops;
  }
  out.recomputedOps = r.size();
  llvm::sort(r);
  out.plan.groups = getConnectedGroups(TrainingStep(*step), r);
  for (SmallVector<int64_t> &group : out.plan.groups)
    for (int64_t &position : group)
      position = planPositions.lookup(position);
  out.plan.binarizeGradientReads = true;
  out.plan.packMasks = true;

  for (const MemoryRow &row : memoryRows) {
    double bytes = static_cast<double>(row.bytes);
    for (auto [col, coef] : row.terms)
      bytes += coef * solution[col];
    out.modelPeakBytes =
        std::max(out.modelPeakBytes, static_cast<int64_t>(std::llround(bytes)));
  }
  return out;
}

namespace {
/// The estimate of `func` rewritten with `plan`.
MemoryStats estimateWith(func::FuncOp func, const RecomputePlan &plan) {
  func::FuncOp trial = applyToClone(func, plan);
  MemoryStats stats = computeMemoryStats(trial);
  trial.erase();
  return stats;
}

/// The budget strategy's plan for `func` within `bytes` (on the estimate),
/// as echo-ilp reports it.
llvm::json::Object budgetStrategyAt(func::FuncOp func, int64_t bytes) {
  EchoPlanOptions options;
  options.budget.bytes = bytes;
  EchoPlanOptions::BudgetTable table;
  options.budgetTable = &table;
  std::string error;
  FailureOr<RecomputePlan> plan = failure();
  {
    ScopedDiagnosticHandler handler(func.getContext(), [&](Diagnostic &d) {
      error = d.str();
      return success();
    });
    plan = planBudget(func, options);
  }
  llvm::json::Object out{{"budget_bytes", bytes}};
  if (failed(plan)) {
    out["error"] = error;
    return out;
  }
  MemoryStats stats = estimateWith(func, *plan);
  for (const BudgetCandidateInfo &c : table.candidates)
    if (c.chosen)
      out["candidate"] = c.name;
  out["estimated_bytes"] = stats.peakLiveBytes;
  out["recompute_flops"] = stats.recomputeFlops;
  out["recomputed_ops"] = stats.recomputedOps;
  return out;
}

/// A solution as echo-ilp reports it, with its plan's estimate (after the
/// rewrite every strategy shares) when it has one.
llvm::json::Object describe(func::FuncOp func,
                            const RecomputeILPSolution &solution) {
  llvm::json::Object out{
      {"status", stringifyStatus(solution.status)},
      {"solve_seconds", solution.solveSeconds},
  };
  if (!solution.hasPlan())
    return out;
  MemoryStats stats = estimateWith(func, solution.plan);
  out["model_recompute_flops"] = solution.recomputeFlops;
  out["best_bound"] = solution.bestBound;
  out["model_peak_bytes"] = solution.modelPeakBytes;
  out["estimated_bytes"] = stats.peakLiveBytes;
  out["recompute_flops"] = stats.recomputeFlops;
  out["recomputed_ops"] = stats.recomputedOps;
  return out;
}

/// How a solve ended, as echo-ilp says it: "optimal in 1.20 s: objective
/// 778250", "time limit reached after 60.00 s: best solution 1473, best
/// bound 1200", "time limit reached in the first LP relaxation after
/// 1.00 s with no solution", ...
std::string describeOutcome(const RecomputeILPSolution &solution) {
  std::string loaded =
      llvm::formatv(" (loaded in {0:f3} s)", solution.loadSeconds);
  double seconds = solution.solveSeconds;
  switch (solution.status) {
  case RecomputeILPSolution::Status::Optimal:
    return llvm::formatv("optimal in {0:f2} s{1}: objective {2:f0}", seconds,
                         loaded, solution.objective);
  case RecomputeILPSolution::Status::Infeasible:
    return llvm::formatv("infeasible, proven in {0:f2} s{1}", seconds, loaded);
  case RecomputeILPSolution::Status::Feasible:
    return llvm::formatv(
        "{0} after {1:f2} s{2}: best solution {3:f0}, best "
        "bound {4:f0}",
        solution.timeLimitReached ? "time limit reached"
                                  : "stopped before optimality was proven",
        seconds, loaded, solution.objective, solution.bestBound);
  case RecomputeILPSolution::Status::Unknown:
    if (!solution.solverError.empty())
      return llvm::formatv("CBC failed after {0:f2} s{1}: {2}", seconds, loaded,
                           solution.solverError);
    return llvm::formatv("{0} after {1:f2} s{2} with no solution",
                         !solution.timeLimitReached ? "stopped"
                         : solution.stoppedInRelaxation
                             ? "time limit reached in the first LP relaxation"
                             : "time limit reached",
                         seconds, loaded);
  }
  llvm_unreachable("unknown status");
}

} // namespace

FailureOr<llvm::json::Object> mlir::echo::compareBudgetWithILP(
    func::FuncOp func, const ILPComparisonOptions &options, raw_ostream &os) {
  auto buildStart = std::chrono::steady_clock::now();
  FailureOr<RecomputeILP> ilp = RecomputeILP::build(func, options.maxNonzeros);
  if (failed(ilp))
    return failure();
  if (options.log)
    *options.log << llvm::formatv(
        "echo-ilp: @{0}: {1} variables, {2} constraints, {3} nonzeros, built "
        "in {4:f3} s\n",
        func.getSymName(), ilp->getNumColumns(), ilp->getNumRows(),
        ilp->getNumNonzeros(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      buildStart)
            .count());
  // A solve at `budget` (the smallest peak without one), said on the log.
  auto solve = [&](std::optional<int64_t> budget) {
    if (options.log)
      *options.log << llvm::formatv(
          "echo-ilp: @{0}: solving {1} with a time limit of {2} s\n",
          func.getSymName(),
          budget ? llvm::formatv("at a budget of {0} bytes", *budget).str()
                 : std::string("for the smallest peak"),
          llvm::format("%g", options.solver.timeLimitSeconds));
    RecomputeILPSolution solution = budget ? ilp->solve(*budget, options.solver)
                                           : ilp->solveMinPeak(options.solver);
    if (options.log)
      *options.log << "echo-ilp: @" << func.getSymName() << ": "
                   << describeOutcome(solution) << "\n";
    return solution;
  };
  int64_t noneBytes = estimateWith(func, RecomputePlan()).peakLiveBytes;
  int64_t ops = OpOrder(func.getBody().front()).size();
  llvm::json::Object out{
      {"function", func.getSymName()},
      {"ops", ops},
      {"candidates", ilp->getNumCandidates()},
      {"columns", ilp->getNumColumns()},
      {"rows", ilp->getNumRows()},
      {"nonzeros", ilp->getNumNonzeros()},
      {"none_bytes", noneBytes},
      {"model_base_bytes", ilp->getBaseBytes()},
  };
  os << "@" << func.getSymName() << ": " << ops << " ops, "
     << ilp->getNumCandidates() << " may be recomputed; program of "
     << ilp->getNumColumns() << " columns and " << ilp->getNumRows()
     << " rows; none's estimate " << noneBytes << " bytes\n";

  SmallVector<int64_t> budgets;
  for (const RecomputeBudget &b : options.budgets)
    budgets.push_back(b.resolve(noneBytes));
  if (options.minPeak) {
    RecomputeILPSolution smallest = solve(std::nullopt);
    llvm::json::Object o{
        {"status", stringifyStatus(smallest.status)},
        {"solve_seconds", smallest.solveSeconds},
    };
    if (smallest.hasPlan()) {
      o["model_peak_bytes"] = smallest.modelPeakBytes;
      budgets.push_back(smallest.modelPeakBytes);
    }
    os << "  smallest peak in the model: "
       << (smallest.hasPlan() ? std::to_string(smallest.modelPeakBytes)
                              : stringifyStatus(smallest.status).str())
       << llvm::formatv(" ({0:f2} s)\n", smallest.solveSeconds);
    out["min_peak"] = std::move(o);
  }

  os << llvm::formatv("  {0,12} | {1,-10} {2,8} {3,14} {4,12} | {5,14} "
                      "{6,12} {7,8}  {8}\n",
                      "budget", "ILP", "solve s", "recompute FLOPs",
                      "estimated", "budget FLOPs", "estimated", "ratio",
                      "budget strategy's plan");
  llvm::json::Array points;
  for (int64_t budget : budgets) {
    RecomputeILPSolution solution = solve(budget);
    llvm::json::Object point{{"budget_bytes", budget}};
    llvm::json::Object ilpPoint = describe(func, solution);
    // The budget strategy at the footprint the ILP's plan reaches (the
    // same bytes, so the FLOPs compare) and at the budget itself.
    std::optional<int64_t> ilpBytes = ilpPoint.getInteger("estimated_bytes");
    std::optional<int64_t> ilpFlops = ilpPoint.getInteger("recompute_flops");
    std::string line =
        llvm::formatv("  {0,12} | {1,-10} {2,8:f2} ", budget,
                      stringifyStatus(solution.status), solution.solveSeconds);
    if (ilpBytes) {
      llvm::json::Object same = budgetStrategyAt(func, *ilpBytes);
      std::optional<int64_t> flops = same.getInteger("recompute_flops");
      line += llvm::formatv("{0,14} {1,12} | ", *ilpFlops, *ilpBytes);
      if (flops) {
        std::optional<double> ratio;
        if (*ilpFlops > 0)
          ratio = static_cast<double>(*flops) / static_cast<double>(*ilpFlops);
        else if (*flops == 0)
          ratio = 1.0;
        point["ratio"] = ratio ? llvm::json::Value(*ratio) : nullptr;
        line +=
            llvm::formatv("{0,14} {1,12} {2,8}  {3}", *flops,
                          *same.getInteger("estimated_bytes"),
                          ratio ? llvm::formatv("{0:f3}", *ratio).str() : "-",
                          same.getString("candidate").value_or(""));
      } else {
        point["ratio"] = nullptr;
        line += "does not fit";
      }
      point["budget_at_ilp_bytes"] = std::move(same);
    }
    point["ilp"] = std::move(ilpPoint);
    point["budget"] = budgetStrategyAt(func, budget);
    os << line << "\n";
    points.push_back(std::move(point));
  }
  out["points"] = std::move(points);
  return out;
}
