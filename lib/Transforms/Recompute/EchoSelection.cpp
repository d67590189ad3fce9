//===- EchoSelection.cpp - What the echo strategy recomputes --------------===//
//
// Part of the Echo project.
//
// Algorithm 1's selection of R, the cuts of chains and early rebuilds, and
// the compute-heavy re-runs within the FLOP budget (Recompute.h defines the
// words used here).
//
//===----------------------------------------------------------------------===//

#include "EchoSelection.h"

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Recompute.h"

using namespace mlir;
using namespace mlir::echo;

static bool isMask(Value v) { return TrainingStep::isMask(v); }

/// Algorithm 1: start from every recomputable op and trim forward in
/// topological order. Removing `s` from R stashes the results of `s` that the
/// backward pass or R still reads, and releases the operands of `s` no one else
/// needs: it is removed when that does not increase the stash. Use counts
/// make a tensor shared by several ops count once (Fig. 8/13). A dropout
/// stays in the recompute path like any other op; its mask is stashed
/// 1-bit packed either way (Alg. 1 line 18), so it is not counted.
/// Compute-heavy ops are candidates only if in `heavy` (a subset of
/// heavyCandidates: they read only values kept anyway), and stay only while
/// none of those values is itself recomputed.
SmallVector<Operation *>
recompute::selectAlgorithm1(const TrainingStep &info,
                            const DenseSet<Operation *> &heavy) {
  SmallVector<Operation *> candidates;
  for (Operation *op : info.getRecomputeCandidates())
    if (!isComputeHeavy(op) || heavy.contains(op))
      candidates.push_back(op);
  DenseSet<Operation *> inR(candidates.begin(), candidates.end());
  // Reads of each value by ops of R (the clones that would need it).
  DenseMap<Value, int64_t> readsByR;
  for (Operation *op : candidates) {
    DenseSet<Value> once;
    for (Value v : op->getOperands())
      if (once.insert(v).second)
        ++readsByR[v];
  }
  DenseMap<Value, bool> bwd;
  auto backwardRead = [&](Value v) {
    auto [it, inserted] = bwd.try_emplace(v, false);
    if (inserted)
      it->second = info.hasBackwardUse(v);
    return it->second;
  };
  auto drop = [&](Operation *s) {
    inR.erase(s);
    DenseSet<Value> once;
    for (Value v : s->getOperands())
      if (once.insert(v).second)
        --readsByR[v];
  };
  for (Operation *s : candidates) {
    if (isComputeHeavy(s) && llvm::any_of(s->getOperands(), [&](Value v) {
          return inR.contains(v.getDefiningOp());
        })) {
      drop(s); // re-running it would need values recomputed themselves
      continue;
    }
    int64_t alloc = 0, released = 0;
    for (Value r : s->getResults())
      if (!isMask(r) && (backwardRead(r) || readsByR.lookup(r) > 0))
        alloc += getTensorBytes(r.getType());
    DenseSet<Value> once;
    for (Value v : s->getOperands()) {
      if (!once.insert(v).second || TrainingStep::isFree(v))
        continue;
      if (inR.contains(v.getDefiningOp()))
        continue; // recomputed either way
      if (readsByR.lookup(v) == 1 && !backwardRead(v))
        released += getTensorBytes(v.getType());
    }
    if (released >= alloc)
      drop(s);
  }
  SmallVector<Operation *> r;
  for (Operation *op : candidates)
    if (inR.contains(op))
      r.push_back(op);
  return r;
}

/// The ops of `r` not in `removed`, in order.
static SmallVector<Operation *> without(ArrayRef<Operation *> r,
                                        const DenseSet<Operation *> &removed) {
  SmallVector<Operation *> out;
  for (Operation *op : r)
    if (!removed.contains(op))
      out.push_back(op);
  return out;
}

/// Cuts chains of recomputed values. A link is a value the backward pass
/// reads whose recomputation needs another such value, directly or through
/// values it does not read: a residual stream (ResNet's block outputs, each
/// read by the next block's weight gradient) or a recurrent state (a GRU's
/// h, an LSTM's c). Recomputing one link from another,
/// and that one from the next, would rebuild the chain from its start in
/// one region. Walking forward, the depth of an op is how many links its
/// recomputation rebuilds one after the other; where it would reach two,
/// the link it reads is stashed instead, so no region rebuilds more than
/// two links one after the other.
SmallVector<Operation *> recompute::cutChains(const TrainingStep &info,
                                              ArrayRef<Operation *> r) {
  DenseSet<Operation *> inR(r.begin(), r.end());
  // needsRead: the op's recomputation (through ops of R not cut) needs a
  // value the backward pass reads, directly or through unread ops.
  DenseSet<Operation *> link, cut, needsRead;
  DenseMap<Operation *, int> depth;
  auto contribution = [&](Operation *def) {
    if (cut.contains(def))
      return 0; // stashed
    return depth.lookup(def) + (link.contains(def) ? 1 : 0);
  };
  for (Operation *op : r) { // in forward order
    SmallVector<Operation *> producers;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (inR.contains(def))
          producers.push_back(def);
    int d = 0;
    for (Operation *def : producers)
      d = std::max(d, contribution(def));
    if (d >= 2) {
      d = 0;
      for (Operation *def : producers) {
        if (link.contains(def) && contribution(def) >= 2)
          cut.insert(def);
        d = std::max(d, contribution(def));
      }
    }
    depth[op] = d;
    if (llvm::any_of(producers, [&](Operation *def) {
          return !cut.contains(def) &&
                 (info.isReadBack(def) || needsRead.contains(def));
        }))
      needsRead.insert(op);
    if (info.isReadBack(op) && needsRead.contains(op))
      link.insert(op);
  }
  return without(r, cut);
}

/// Stashes values the backward pass reads whose recomputation would rebuild,
/// long before their own readers, other values the backward pass reads: a
/// concat of every time step's state, read by the classifier's weight
/// gradient right after the loss, would recompute the whole last layer
/// there and keep it alive for the layer's backward. Both choices are
/// weighed in bytes times op positions: stashing `v` holds it from its
/// definition to its first reader; recomputing it holds each value it
/// rebuilds from `v`'s first reader to that value's own.
SmallVector<Operation *> recompute::cutEarlyRebuilds(const TrainingStep &info,
                                                     ArrayRef<Operation *> r) {
  DenseSet<Operation *> inR(r.begin(), r.end());
  // The first backward reader's position of an op's results, or -1.
  DenseMap<Operation *, int64_t> firstRead;
  auto readAt = [&](Operation *op) {
    auto [it, inserted] = firstRead.try_emplace(op, -1);
    if (inserted)
      for (Value v : op->getResults())
        if (!isMask(v))
          if (Operation *first = info.getFirstBackwardReader(v)) {
            int64_t at = info.getPosition(first);
            if (it->second < 0 || at < it->second)
              it->second = at;
          }
    return it->second;
  };
  auto bytes = [](Operation *op) {
    int64_t b = 0;
    for (Value v : op->getResults())
      if (!isMask(v))
        b += getTensorBytes(v.getType());
    return b;
  };
  // The walks below skip unread ops that reach no read value: they rebuild
  // nothing the backward pass reads.
  DenseSet<Operation *> readBehind = getOpsNeedingReadValues(info, r);
  DenseSet<Operation *> stash;
  for (Operation *op : r) {
    int64_t at = readAt(op);
    if (at < 0)
      continue;
    double stashCost =
        static_cast<double>(bytes(op)) * (at - info.getPosition(op));
    double rebuildCost = 0;
    SmallVector<Operation *> worklist = {op};
    DenseSet<Operation *> visited = {op};
    while (!worklist.empty() && rebuildCost <= stashCost) {
      Operation *cur = worklist.pop_back_val();
      for (Value operand : cur->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || !inR.contains(def) || stash.contains(def) ||
            !visited.insert(def).second)
          continue;
        int64_t defAt = readAt(def);
        if (defAt < 0) {
          if (readBehind.contains(def))
            worklist.push_back(def); // rebuilt in the region only
          continue;
        }
        if (defAt > at)
          rebuildCost += static_cast<double>(bytes(def)) * (defAt - at);
      }
    }
    if (rebuildCost > stashCost)
      stash.insert(op);
  }
  return without(r, stash);
}

/// Compute-heavy ops echo may re-run in a region (Section IV-B's
/// non-conservative overhead estimate): each value they read is a constant,
/// an argument or read by the backward pass anyway (the `q` and `k` of an
/// attention's scores, which the scores' own gradient reads), so re-running
/// them costs time but no stash; and their seconds fit `budgetSeconds`.
static DenseSet<Operation *> heavyCandidates(const TrainingStep &info,
                                             double budgetSeconds,
                                             const RooflineModel &model) {
  DenseSet<Operation *> out;
  for (Operation *op : info.getRecomputeCandidates())
    if (isComputeHeavy(op) && estimateFlops(op) > 0 &&
        model.estimateSeconds(op) <= budgetSeconds &&
        llvm::all_of(op->getOperands(), [&](Value v) {
          return TrainingStep::isFree(v) ||
                 (!isMask(v) && info.hasBackwardUse(v));
        }))
      out.insert(op);
  return out;
}

/// The compute-heavy ops worth re-running within `budgetSeconds`, best
/// first. With every candidate allowed, each one echo keeps in R is weighed
/// by the bytes of its results times the ops between their last forward use
/// and the first backward read of a value recomputed from them (how long
/// the stash it avoids would have lived), per second of its re-run; the
/// best are taken while their seconds fit the budget. A re-run whose values
/// are read right after their forward use (the logits, at the loss) saves
/// nothing and is never taken.
SmallVector<Operation *> recompute::selectHeavy(const TrainingStep &info,
                                                double budgetSeconds,
                                                const RooflineModel &model) {
  DenseSet<Operation *> candidates =
      heavyCandidates(info, budgetSeconds, model);
  if (candidates.empty())
    return {};
  SmallVector<Operation *> r = selectAlgorithm1(info, candidates);
  DenseSet<Operation *> inR(r.begin(), r.end());
  // The first backward read of a value recomputed from each op of R.
  DenseMap<Operation *, int64_t> firstRead;
  for (Operation *op : llvm::reverse(r)) {
    int64_t at = INT64_MAX;
    for (Value v : op->getResults()) {
      if (isMask(v))
        continue;
      if (Operation *first = info.getFirstBackwardReader(v))
        at = std::min(at, info.getPosition(first));
      for (Operation *user : v.getUsers())
        if (inR.contains(user))
          at = std::min(at, firstRead.lookup(user));
    }
    firstRead[op] = at;
  }
  struct Choice {
    Operation *op;
    double seconds;
    double benefitPerSecond;
  };
  SmallVector<Choice> choices;
  for (Operation *op : r) {
    if (!isComputeHeavy(op) || firstRead[op] == INT64_MAX)
      continue;
    int64_t lastForwardUse = info.getPosition(op), bytes = 0;
    for (Value v : op->getResults()) {
      bytes += getTensorBytes(v.getType());
      for (Operation *user : v.getUsers())
        if (info.isForward(user))
          lastForwardUse = std::max(lastForwardUse, info.getPosition(user));
    }
    int64_t gap = firstRead[op] - lastForwardUse - 1;
    double seconds = model.estimateSeconds(op);
    if (gap > 0 && bytes > 0 && seconds > 0)
      choices.push_back(
          {op, seconds, static_cast<double>(bytes) * gap / seconds});
  }
  llvm::sort(choices, [&](const Choice &a, const Choice &b) {
    if (a.benefitPerSecond != b.benefitPerSecond)
      return a.benefitPerSecond > b.benefitPerSecond;
    return info.getPosition(a.op) < info.getPosition(b.op);
  });
  SmallVector<Operation *> out;
  double spent = 0;
  for (const Choice &c : choices)
    if (spent + c.seconds <= budgetSeconds) {
      spent += c.seconds;
      out.push_back(c.op);
    }
  return out;
}

double recompute::getHeavyRecomputeSeconds(func::FuncOp func,
                                           const RooflineModel &model) {
  double seconds = 0;
  func.walk([&](RecomputeOp region) {
    for (Operation &op : region.getBody().front())
      if (isComputeHeavy(&op))
        seconds += model.estimateSeconds(&op);
  });
  return seconds;
}
