//===- Sublinear.cpp - The sublinear strategy (Chen et al. 2016) ----------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Transforms/Recompute.h"

#include <cmath>

using namespace mlir;
using namespace mlir::echo;

namespace {
/// The forward ops sublinear may recompute, with their result bytes.
struct SublinearOps {
  explicit SublinearOps(const TrainingStep &step)
      : ops(step.getRecomputeCandidates()) {
    for (Operation *op : ops) {
      int64_t b = 0;
      for (Value v : op->getResults())
        b += getTensorBytes(v.getType());
      bytes.push_back(b);
      total += b;
      largest = std::max(largest, b);
    }
  }

  /// Cuts the ops into segments of at most `budget` bytes (Chen et al.
  /// Alg. 3): the op that crosses it is a checkpoint (-1). Returns the
  /// estimated peak: checkpoints stashed plus the largest segment.
  int64_t segment(double budget, SmallVector<int64_t> &segOf) const {
    segOf.assign(ops.size(), -1);
    int64_t temp = 0, seg = 0, stash = 0, maxSeg = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      temp += bytes[i];
      if (temp > budget) {
        segOf[i] = -1; // checkpoint
        stash += bytes[i];
        maxSeg = std::max(maxSeg, temp);
        temp = 0;
        ++seg;
      } else {
        segOf[i] = seg;
      }
    }
    maxSeg = std::max(maxSeg, temp);
    return stash + maxSeg;
  }

  /// sqrt(total * largest), the centre of the budget search.
  double center() const {
    return std::sqrt(static_cast<double>(total) * largest);
  }

  /// The plan of segments `segOf`: each segment one group.
  RecomputePlan makePlan(const TrainingStep &step,
                         SmallVector<int64_t> segOf) const;

  SmallVector<Operation *> ops;
  SmallVector<int64_t> bytes;
  int64_t total = 0, largest = 1;
};
} // namespace

RecomputePlan SublinearOps::makePlan(const TrainingStep &step,
                                     SmallVector<int64_t> best) const {
  // Values read outside their segment are segment outputs: checkpoints
  // too, so that a segment is recomputed from checkpoints only.
  DenseMap<Operation *, int64_t> segmentOf;
  for (size_t i = 0; i < ops.size(); ++i)
    segmentOf[ops[i]] = best[i];
  for (size_t i = 0; i < ops.size(); ++i) {
    if (best[i] < 0)
      continue;
    for (Value v : ops[i]->getResults())
      for (Operation *user : v.getUsers()) {
        // Checkpoints are never recomputed, so reading a value does not
        // make them need it in the backward pass.
        auto it = segmentOf.find(user);
        if (it != segmentOf.end() && it->second >= 0 &&
            it->second != segmentOf.lookup(ops[i]))
          best[i] = -1;
      }
  }
  RecomputePlan plan;
  DenseMap<int64_t, unsigned> groupOf;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (best[i] < 0)
      continue;
    auto [it, inserted] = groupOf.try_emplace(best[i], plan.groups.size());
    if (inserted)
      plan.groups.emplace_back();
    plan.groups[it->second].push_back(step.getPosition(ops[i]));
  }
  return plan;
}

/// Chen et al. Alg. 2/3. Walking the forward pass, the results of an op
/// become a checkpoint when the bytes since the last checkpoint exceed the
/// budget; every other op is recomputed within its segment. The budget is
/// searched (their Appendix A) over candidates around sqrt(total * largest):
/// the smallest estimated peak (checkpoints stashed plus the largest
/// segment) wins.
RecomputePlan mlir::echo::planSublinear(const TrainingStep &step) {
  SublinearOps ops(step);
  if (ops.ops.empty())
    return {};
  SmallVector<int64_t> best;
  int64_t bestEstimate = INT64_MAX;
  for (int k = -8; k <= 8; ++k) {
    SmallVector<int64_t> segOf;
    int64_t estimate =
        ops.segment(ops.center() * std::pow(2.0, k / 2.0), segOf);
    if (estimate < bestEstimate) {
      bestEstimate = estimate;
      best = segOf;
    }
  }
  return ops.makePlan(step, std::move(best));
}

RecomputePlan mlir::echo::planSublinearAt(const TrainingStep &step,
                                          double scale) {
  SublinearOps ops(step);
  if (ops.ops.empty())
    return {};
  SmallVector<int64_t> segOf;
  ops.segment(ops.center() * scale, segOf);
  return ops.makePlan(step, std::move(segOf));
}
