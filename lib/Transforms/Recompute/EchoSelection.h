//===- EchoSelection.h - What the echo strategy recomputes ------*- C++ -*-===//
//
// Part of the Echo project.
//
// The selections of R that echo's search (Echo.cpp) turns into candidate
// plans: Algorithm 1's trimming, the chain cuts, and the compute-heavy ops
// worth re-running. Private to lib/Transforms/Recompute.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_TRANSFORMS_RECOMPUTE_ECHOSELECTION_H
#define ECHO_LIB_TRANSFORMS_RECOMPUTE_ECHOSELECTION_H

#include "echo/Analysis/TimeModel.h"
#include "echo/Analysis/TrainingStep.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::echo::recompute {

/// Algorithm 1 (lines 12-28): starts from every recomputable op and trims
/// forward in topological order, with use counts so that a tensor shared by
/// several ops counts once (Figs. 8, 13). Compute-heavy ops are candidates
/// only if in `heavy` (a subset of getHeavyCandidates) and stay only while
/// none of the values they read is itself recomputed. Returns R in forward
/// order.
SmallVector<Operation *>
selectAlgorithm1(const TrainingStep &step,
                 const DenseSet<Operation *> &heavy = {});

/// `r` without the links where recomputing would rebuild two links one
/// after the other (Recompute.h: link, chain).
SmallVector<Operation *> cutChains(const TrainingStep &step,
                                   ArrayRef<Operation *> r);

/// `r` without the feature maps whose recomputation would rebuild, long
/// before their own readers, other feature maps (a concat of every time
/// step read right after the loss), weighing bytes × op positions.
SmallVector<Operation *> cutEarlyRebuilds(const TrainingStep &step,
                                          ArrayRef<Operation *> r);

/// The compute-heavy ops worth re-running within `budgetSeconds` under
/// `model` (Section IV-B's non-conservative overhead estimate, priced in
/// time), best first.
SmallVector<Operation *> selectHeavy(const TrainingStep &step,
                                     double budgetSeconds,
                                     const RooflineModel &model);

/// Seconds, under `model`, of the compute-heavy ops cloned into `func`'s
/// recompute regions.
double getHeavyRecomputeSeconds(func::FuncOp func, const RooflineModel &model);

} // namespace mlir::echo::recompute

#endif // ECHO_LIB_TRANSFORMS_RECOMPUTE_ECHOSELECTION_H
