//===- Machine.h - The time model's rates from a calibration ----*- C++ -*-===//
//
// Part of the Echo project.
//
// echo-run --machine=FILE reads the record bench/machine.py writes (and
// caches in ${XDG_CACHE_HOME:-~/.cache}/echo/machine/<key>.json) and gives
// echo-recompute's time model the machine's own rates: the measured SGEMM
// rate as the peak (what a GEMM-bound op gets, not the FMA peak no library
// reaches) and the STREAM-like triad as the memory bandwidth.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_MACHINE_H
#define ECHO_RUNNER_MACHINE_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::echo {

/// The time model's rates: peak GFLOP/s and memory GB/s.
struct MachineRates {
  double peakGflops = 0;
  double memoryGbps = 0;
};

/// The rates of the calibration in the JSON file `path`: its
/// `measured.sgemm_gflops` and `measured.triad_gbps`, each positive and
/// finite. On failure, nullopt and `error` says what is wrong with the file.
std::optional<MachineRates> readMachineCalibration(llvm::StringRef path,
                                                   std::string &error);

} // namespace mlir::echo

#endif // ECHO_RUNNER_MACHINE_H
