//===- ConvAlgorithm.h - Choosing a convolution algorithm -------*- C++ -*-===//
//
// Part of the Echo project.
//
// SuperNeurons' rule for convolution algorithms: of the algorithms the
// library offers for one convolution (cuDNN's, fastest first by its
// heuristics, each with its workspace bytes and, where measured, its time),
// take the fastest whose workspace fits the memory free at that point of
// the step. Header-only and free of any library, so that the choice is
// tested against a fake algorithm table on machines without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_CONVALGORITHM_H
#define ECHO_RUNTIME_CONVALGORITHM_H

#include <cstddef>

namespace mlir::echo::runtime {

/// One algorithm the library offers.
struct ConvAlgorithm {
  /// The library's id of the algorithm.
  int id = 0;
  /// The library can run it for this convolution.
  bool usable = true;
  /// Its time in ms when measured (negative: unknown; the table's order
  /// ranks it).
  float ms = -1.0f;
  size_t workspaceBytes = 0;
};

/// What was chosen: the index in the table (negative when no algorithm is
/// usable), and whether its workspace fits the free bytes (when none
/// does, the usable one with the smallest workspace is chosen).
struct ConvChoice {
  int index = -1;
  bool fits = false;
};

/// The fastest usable algorithm of `table` (`n` entries, fastest first
/// unless measured times say otherwise) whose workspace is at most
/// `freeBytes`.
inline ConvChoice chooseConvAlgorithm(const ConvAlgorithm *table, int n,
                                      size_t freeBytes) {
  ConvChoice best;
  auto faster = [&](int a, int b) {
    // Measured times decide where both are known; else the table's order.
    if (table[a].ms >= 0 && table[b].ms >= 0 && table[a].ms != table[b].ms)
      return table[a].ms < table[b].ms;
    return a < b;
  };
  for (int i = 0; i < n; ++i) {
    if (!table[i].usable || table[i].workspaceBytes > freeBytes)
      continue;
    if (best.index < 0 || faster(i, best.index))
      best = {i, true};
  }
  if (best.index >= 0)
    return best;
  for (int i = 0; i < n; ++i)
    if (table[i].usable &&
        (best.index < 0 ||
         table[i].workspaceBytes < table[best.index].workspaceBytes))
      best = {i, false};
  return best;
}

} // namespace mlir::echo::runtime

#endif // ECHO_RUNTIME_CONVALGORITHM_H
