//===- TimeModel.h - Seconds of a training step's ops -----------*- C++ -*-===//
//
// Part of the Echo project.
//
// The roofline time model recomputation is priced in: an op takes
// max(FLOPs / peak FLOP/s, bytes read and written / memory bytes/s), from
// its CostOpInterface estimates (`estimateFlops`, `estimateBytesAccessed`);
// an op with regions takes the sum of the ops in them. Most ops echo
// recomputes are elementwise chains whose time is the bytes they move, not
// their FLOPs; GEMMs and convolutions are bound by their FLOPs.
//
// echo-recompute's `peak-gflops=` and `memory-gbps=` set it (echo-run and
// `echo.torch.compile_step` take them from the machine's calibration,
// bench/machine.py: the SGEMM figure as the peak, the triad as the
// bandwidth) and record it on the step (`echo.time_model`), where the
// memory report reads it. The host offload's device model
// (OffloadModel, Recompute.h) is the same roofline at a GPU's rates.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_ANALYSIS_TIMEMODEL_H
#define ECHO_ANALYSIS_TIMEMODEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <optional>

namespace mlir::echo {

/// The fixed defaults of echo-recompute's time model, in GFLOP/s and GB/s,
/// used where no calibration gives the machine's own: round figures of a
/// small multi-core CPU (not measured; see docs/Contract.md).
constexpr double kDefaultPeakGflops = 100;
constexpr double kDefaultMemoryGbps = 20;

/// A roofline: each op's seconds from its FLOPs and the bytes it moves.
struct RooflineModel {
  /// Peak FLOPs per second and memory bytes per second.
  double flopsPerSecond = kDefaultPeakGflops * 1e9;
  double bytesPerSecond = kDefaultMemoryGbps * 1e9;

  /// The model at `gflops` GFLOP/s and `gbps` GB/s.
  static RooflineModel get(double gflops, double gbps) {
    return {gflops * 1e9, gbps * 1e9};
  }

  /// max(flops / FLOP rate, bytes / byte rate).
  double getSeconds(int64_t flops, int64_t bytes) const;
  /// The seconds of `op`: its FLOPs and bytes accessed under the roofline;
  /// an op with regions (echo.recompute) takes the sum of the ops in them.
  double estimateSeconds(Operation *op) const;

  /// `{peak_gflops, memory_gbps}` (the step's `echo.time_model`), and back
  /// (nullopt when either is missing or not positive).
  DictionaryAttr toAttr(MLIRContext *context) const;
  static std::optional<RooflineModel> fromAttr(DictionaryAttr attr);
};

/// `seconds` in whole picoseconds, for ranking: sums of the same op
/// seconds in another order compare equal.
inline int64_t roundToPicoseconds(double seconds) {
  return static_cast<int64_t>(std::llround(seconds * 1e12));
}

/// The time model recorded on `func` (`echo.time_model`), else the
/// defaults.
RooflineModel getTimeModel(func::FuncOp func);

/// Estimated seconds of the step `func` under `model`: its top-level ops
/// outside recompute regions (forward and backward), and the ops inside
/// `echo.recompute` regions.
struct StepSeconds {
  double step = 0;
  double recompute = 0;
};
StepSeconds estimateStepSeconds(func::FuncOp func, const RooflineModel &model);

} // namespace mlir::echo

#endif // ECHO_ANALYSIS_TIMEMODEL_H
