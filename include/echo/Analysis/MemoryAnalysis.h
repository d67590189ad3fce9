//===- MemoryAnalysis.h - Live bytes of a training step ---------*- C++ -*-===//
//
// Part of the Echo project.
//
// The footprint model shared by the memory report, echo-recompute's checks
// and echo-run: tensors live from their definition to their last use in the
// function's op order; function arguments (parameters, optimizer state and
// data) live for the whole step, and a new parameter or state an optimizer
// writes over its argument in place adds nothing; values used inside an
// `echo.recompute` region are used at the region's position, and the
// region's own temporaries add their peak at that position.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_ANALYSIS_MEMORYANALYSIS_H
#define ECHO_ANALYSIS_MEMORYANALYSIS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/JSON.h"

#include <optional>

namespace mlir::echo {

/// Bytes of a statically shaped tensor or memref (i1 counts as one byte);
/// 0 for anything else.
int64_t getTensorBytes(Type type);

/// The statistics of one training step, in SPEC.md's memory-report terms.
struct MemoryStats {
  std::string function;
  std::string strategy = "none";
  int64_t peakLiveBytes = 0;
  int64_t featureMapBytes = 0;
  /// Bytes of the optimizer state the step takes and updates in place
  /// (arguments marked `echo.optimizer_state`: velocities, moments); they
  /// are arguments, so peakLiveBytes counts them too.
  int64_t optimizerStateBytes = 0;
  std::optional<int64_t> plannedBytes;
  int64_t recomputedOps = 0;
  int64_t forwardFlops = 0;
  int64_t backwardFlops = 0;
  int64_t recomputeFlops = 0;
  /// Estimated seconds of the forward and backward ops and of the ops in
  /// recompute regions, under the step's time model (TimeModel.h: the
  /// `echo.time_model` echo-recompute recorded, else the defaults).
  double forwardSeconds = 0;
  double backwardSeconds = 0;
  double recomputeSeconds = 0;
  /// The chunked loss (`echo.chunked_loss`): its number of chunks and the
  /// bytes of logits it keeps from being live at once (the whole logits'
  /// less one chunk's); 0 and 0 for a step whose loss is not chunked.
  int64_t lossChunks = 0;
  int64_t logitsBytesSaved = 0;
  /// Live bytes at each top-level op of the function, in order.
  SmallVector<int64_t> timeline;
  /// The same bytes by memory category (echo/Analysis/MemoryCategories.h;
  /// host offload apart, see `offload`): one timeline per category, in
  /// MemoryCategory order; they sum to `timeline`. Empty when not computed.
  std::vector<SmallVector<int64_t>> categoryTimeline;
  /// Host offload (`echo.offload` / `echo.fetch`), when the step has any:
  /// the values moved, the most bytes the host pool holds at once (a copy
  /// lives from its offload to the wait of its fetch), the bytes copied in
  /// both directions, and what the schedule (`echo.offload_schedule`)
  /// estimated: the step's compute seconds, transfer seconds in all and
  /// those not hidden behind compute under its bandwidth model.
  struct Offload {
    int64_t values = 0;
    int64_t hostPeakBytes = 0;
    int64_t transferBytes = 0;
    double computeSeconds = 0;
    double transferSeconds = 0;
    double unhiddenSeconds = 0;
  };
  std::optional<Offload> offload;
  /// What echo-plan-buffers recorded (`echo.buffer_plan`), if it ran.
  std::optional<DictionaryAttr> bufferPlan;

  /// What the planned step needs allocated: the arena, the caller's buffers
  /// (parameters, data, results) and the allocations left out of the arena
  /// (their static sizes); none without a plan.
  std::optional<int64_t> getStepBytes() const;

  /// The first position of the most live bytes (0 for an empty timeline).
  int64_t getPeakPosition() const;

  /// SPEC.md's JSON object; `planned_bytes` is the plan's arena size,
  /// `step_bytes` getStepBytes() (null without a plan), and a `plan` object
  /// carries the rest of the plan.
  llvm::json::Object toJSON() const;
  /// The statistics as an attribute (`echo.memory_stats`), and back.
  DictionaryAttr toAttr(MLIRContext *context) const;
  static FailureOr<MemoryStats> fromAttr(DictionaryAttr attr);
};

/// Computes the statistics of `func`. The forward pass is every top-level op
/// up to the one defining the loss (the first returned value); the backward
/// pass is the rest.
MemoryStats computeMemoryStats(func::FuncOp func);

/// `computeMemoryStats(func).peakLiveBytes`, without the rest.
int64_t computePeakLiveBytes(func::FuncOp func);

/// What a recompute plan's search reads of `computeMemoryStats(func)`, the
/// same values computed without the rest (the forward and backward time,
/// the categories, offload): `peakLiveBytes`, `timeline`, `recomputedOps`,
/// `recomputeFlops` and `recomputeSeconds`. A candidate's estimate.
MemoryStats computeRecomputeEstimate(func::FuncOp func);

/// The statistics to report for `func`: those recorded on it as
/// `echo.memory_stats` when present (its tensor-level form), else computed
/// from its IR; with its `echo.buffer_plan` when it has one. Fails with a
/// diagnostic when the recorded statistics are malformed.
FailureOr<MemoryStats> getReportedMemoryStats(func::FuncOp func);

/// Writes `value` as indented JSON to the file `output` ('-' = stdout); on
/// failure sets `error`.
LogicalResult writeJSON(llvm::json::Value value, StringRef output,
                        std::string &error);

} // namespace mlir::echo

#endif // ECHO_ANALYSIS_MEMORYANALYSIS_H
