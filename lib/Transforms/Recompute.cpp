//===- Recompute.cpp - echo-recompute: none, mirror, sublinear, echo ------===//
//
// Part of the Echo project.
//
// Each strategy picks a set R of forward ops whose results are recomputed in
// the backward pass rather than stashed; the rewrite is shared:
//
// - R is split into groups (connected pieces of the forward graph,
//   sublinear's segments, or echo's values by first backward reader). Each
//   group becomes one `echo.recompute` region, placed right before the
//   first backward op that reads one of its values, cloning the ops of R
//   those values need from stashed values (ops outside R, arguments;
//   constants are cloned) or from values an earlier region yields, and
//   yielding every value the backward pass reads; all backward reads are
//   redirected to the region.
// - Forward ops left without users are erased.
//
// echo keeps dropout in the recompute path but stashes its mask 1-bit
// packed, and for ops whose gradient needs only `x > 0` (ReLU) it stashes
// that predicate instead of `x`; it cuts chains of recomputed values
// (residual streams, recurrent states) so that no region rebuilds one from
// its start, and stashes values whose recomputation would rebuild other
// values long before their readers (a concat of all time steps). Within a
// FLOP budget (`heavy-budget`) it may also re-run a compute-heavy op whose
// operands the backward pass keeps anyway (an attention's q·kᵀ), so that
// the values computed from it (the softmax output) are not stashed.
//
// Per-op knowledge comes from the op interfaces: compute-heaviness from
// CostOpInterface; which forward values the backward pass reads is read off
// the IR built by echo-autodiff (which asked DifferentiableOpInterface).
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <cmath>

namespace mlir::echo {
#define GEN_PASS_DEF_ECHORECOMPUTE
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// True for an i1 tensor (a dropout mask, a ReLU predicate).
bool isMask(Value v) {
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  return tensor && tensor.getElementType().isInteger(1);
}

/// The forward/backward structure of one training step.
struct StepInfo {
  func::FuncOp func;
  Block *body;
  Operation *lossOp = nullptr;
  /// Top-level ops in order and their positions.
  SmallVector<Operation *> ops;
  DenseMap<Operation *, int64_t> index;

  explicit StepInfo(func::FuncOp f) : func(f), body(&f.getBody().front()) {
    for (Operation &op : *body) {
      index[&op] = ops.size();
      ops.push_back(&op);
    }
    int64_t loss = getLossOpIndex(f);
    if (loss >= 0)
      lossOp = ops[loss];
  }

  bool isForward(Operation *op) const {
    Operation *top = body->findAncestorOpInBlock(*op);
    return top && lossOp && index.lookup(top) <= index.lookup(lossOp);
  }
  /// A read of a forward value by the backward pass (the return of the loss
  /// and of updated parameters does not count).
  bool isBackwardUse(OpOperand &use) const {
    Operation *top = body->findAncestorOpInBlock(*use.getOwner());
    return top && !isa<func::ReturnOp>(top) && lossOp &&
           lossOp->isBeforeInBlock(top);
  }
  /// The top-level op of the earliest backward read of `v`, or null.
  Operation *firstBackwardReader(Value v) const {
    Operation *first = nullptr;
    for (OpOperand &use : v.getUses())
      if (isBackwardUse(use)) {
        Operation *top = body->findAncestorOpInBlock(*use.getOwner());
        if (!first || top->isBeforeInBlock(first))
          first = top;
      }
    return first;
  }
  bool hasBackwardUse(Value v) const {
    return llvm::any_of(v.getUses(),
                        [&](OpOperand &u) { return isBackwardUse(u); });
  }
  /// True when the backward pass reads a result of `op` other than a mask
  /// (echo stashes masks packed; they are never what a region serves).
  bool isReadBack(Operation *op) const {
    return llvm::any_of(op->getResults(), [&](Value v) {
      return !isMask(v) && hasBackwardUse(v);
    });
  }
  /// Forward ops that may be recomputed at all: pure Echo forward ops other
  /// than the loss itself.
  SmallVector<Operation *> forwardCandidates() const {
    SmallVector<Operation *> out;
    for (Operation *op : ops) {
      if (op == lossOp)
        break;
      if (isa<DifferentiableOpInterface>(op) && isPure(op))
        out.push_back(op);
    }
    return out;
  }
};

bool isFreeValue(Value v) {
  Operation *def = v.getDefiningOp();
  return !def || isa<arith::ConstantOp>(def);
}

/// The ops of `r` (in forward order) whose recomputation through ops of `r`
/// needs a value the backward pass reads, directly or through values it
/// does not read.
DenseSet<Operation *> needingReadValues(const StepInfo &info,
                                        ArrayRef<Operation *> r) {
  DenseSet<Operation *> inR(r.begin(), r.end()), out;
  for (Operation *op : r)
    if (llvm::any_of(op->getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && inR.contains(def) &&
                 (info.isReadBack(def) || out.contains(def));
        }))
      out.insert(op);
  return out;
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

/// Builds the recompute regions of a plan, one per group, in backward
/// order. An op that several regions need (a batch norm whose output every
/// time step slices) is cloned into the first of them, which yields its
/// results to the later ones, instead of being re-run for each. A value
/// the backward pass reads that a region clones on the way to its own
/// targets is re-run at its own readers (cheaper in memory than keeping it
/// alive in between) unless its recomputation needs another value the
/// backward pass reads: a chain's links are yielded, so no chain is
/// rebuilt region after region.
class RegionBuilder {
public:
  /// With `stashMasks`, the backward pass keeps reading the forward pass's
  /// masks (stashed packed): a recomputed dropout serves only its output.
  RegionBuilder(StepInfo &info, ArrayRef<SmallVector<Operation *>> groups,
                bool stashMasks)
      : info(info), stashMasks(stashMasks) {
    for (const auto &g : groups)
      inR.insert(g.begin(), g.end());
    // Regions in the order they will sit in the backward pass.
    SmallVector<std::pair<Operation *, unsigned>> placed;
    for (auto [i, g] : llvm::enumerate(groups))
      if (Operation *at = placement(g))
        placed.push_back({at, static_cast<unsigned>(i)});
    llvm::sort(placed, [&](auto &a, auto &b) {
      return std::make_pair(info.index.lookup(a.first), a.second) <
             std::make_pair(info.index.lookup(b.first), b.second);
    });
    for (auto [at, i] : placed)
      order.push_back(groups[i]);
    SmallVector<Operation *> ops(inR.begin(), inR.end());
    llvm::sort(ops, [&](Operation *a, Operation *b) {
      return info.index.lookup(a) < info.index.lookup(b);
    });
    readBehind = needingReadValues(info, ops);
    // The ops of R some region clones.
    SmallVector<Value> all;
    for (const auto &g : groups)
      llvm::append_range(all, targets(g));
    for (Operation *op : closure(all))
      needed.insert(op);
  }

  void build() {
    for (ArrayRef<Operation *> group : order)
      buildRegion(group);
  }

private:
  /// Values of `group` the backward pass reads, except those an earlier
  /// region already serves.
  SmallVector<Value> targets(ArrayRef<Operation *> group) const {
    SmallVector<Value> out;
    for (Operation *op : group)
      for (Value v : op->getResults())
        if (!(stashMasks && isMask(v)) && info.hasBackwardUse(v))
          out.push_back(v);
    return out;
  }

  /// The earliest backward reader of a value of `group`, or null.
  Operation *placement(ArrayRef<Operation *> group) const {
    Operation *at = nullptr;
    for (Value v : targets(group)) {
      Operation *first = info.firstBackwardReader(v);
      if (!at || first->isBeforeInBlock(at))
        at = first;
    }
    return at;
  }

  /// The result of a region placed before `at` that serves the forward
  /// value `v`, or null.
  Value servedAt(Value v, Operation *at) const {
    Value r = available.lookup(v);
    return r && at && r.getDefiningOp()->isBeforeInBlock(at) ? r : Value();
  }

  /// The ops of R computing `values`, transitively, stopping at values a
  /// region placed before `at` yields; in forward order.
  SmallVector<Operation *> closure(ArrayRef<Value> values,
                                   Operation *at = nullptr) const {
    DenseSet<Operation *> reached;
    SmallVector<Operation *> worklist;
    for (Value v : values)
      worklist.push_back(v.getDefiningOp());
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!reached.insert(op).second)
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (inR.contains(def) && !servedAt(operand, at))
            worklist.push_back(def);
    }
    SmallVector<Operation *> out(reached.begin(), reached.end());
    llvm::sort(out, [&](Operation *a, Operation *b) {
      return info.index.lookup(a) < info.index.lookup(b);
    });
    return out;
  }

  /// One region for `group`, right before its first backward reader: it
  /// clones what the group's backward-read values need and yields them,
  /// plus the values that ops cloned by later regions read.
  void buildRegion(ArrayRef<Operation *> group) {
    SmallVector<Value> yields = targets(group);
    if (yields.empty())
      return; // all given by earlier regions
    Operation *insertBefore = placement(group);
    SmallVector<Operation *> clones = closure(yields, insertBefore);
    DenseSet<Operation *> cloned(clones.begin(), clones.end());
    // Values that ops cloned elsewhere read, and links the backward pass
    // reads later, are yielded too.
    DenseSet<Value> yielded(yields.begin(), yields.end());
    for (Operation *op : clones)
      for (Value v : op->getResults())
        if (!(stashMasks && isMask(v)) && !yielded.contains(v) &&
            ((info.hasBackwardUse(v) && readBehind.contains(op)) ||
             llvm::any_of(v.getUsers(), [&](Operation *user) {
               return needed.contains(user) && !cloned.contains(user);
             }))) {
          yielded.insert(v);
          yields.push_back(v);
        }

    // Region inputs: stashed values and values earlier regions yield
    // (defined outside the clones, not constants), in order of first use.
    SmallVector<Value> inputs, operands;
    DenseSet<Value> seen;
    for (Operation *op : clones)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if ((def && cloned.contains(def)) ||
            (def && isa<arith::ConstantOp>(def)) ||
            !seen.insert(operand).second)
          continue;
        inputs.push_back(operand);
        Value served = servedAt(operand, insertBefore);
        operands.push_back(served ? served : operand);
      }

    OpBuilder builder(insertBefore);
    SmallVector<Type> types;
    for (Value v : yields)
      types.push_back(v.getType());
    Location loc = yields.front().getLoc();
    auto region = RecomputeOp::create(builder, loc, types, operands);
    Block &block = region.getBody().front();
    IRMapping mapping;
    for (auto [in, arg] : llvm::zip(inputs, block.getArguments()))
      mapping.map(in, arg);
    OpBuilder inner = OpBuilder::atBlockEnd(&block);
    for (Operation *op : clones) {
      for (Value operand : op->getOperands())
        if (auto cst = operand.getDefiningOp<arith::ConstantOp>())
          if (!mapping.contains(operand))
            inner.clone(*cst, mapping);
      inner.clone(*op, mapping);
    }
    SmallVector<Value> results;
    for (Value v : yields)
      results.push_back(mapping.lookup(v));
    YieldOp::create(inner, loc, results);

    // Backward reads after the region now read it (a value yielded for
    // later regions may also have readers before it: they keep theirs).
    for (auto [v, r] : llvm::zip(yields, region.getResults())) {
      available[v] = r;
      v.replaceUsesWithIf(r, [&](OpOperand &use) {
        if (!info.isBackwardUse(use) || region->isAncestor(use.getOwner()))
          return false;
        Operation *top = info.body->findAncestorOpInBlock(*use.getOwner());
        return region->isBeforeInBlock(top);
      });
    }
  }

  StepInfo &info;
  bool stashMasks;
  DenseSet<Operation *> inR;
  /// The groups in the order of their regions.
  SmallVector<ArrayRef<Operation *>> order;
  /// The ops of R that some region clones.
  DenseSet<Operation *> needed;
  /// The ops of R whose recomputation needs a value the backward pass reads
  /// (a chain's links among them).
  DenseSet<Operation *> readBehind;
  /// Forward values of R and the region results that now serve them.
  DenseMap<Value, Value> available;
};

/// Groups R into connected pieces (values flowing between ops of R).
SmallVector<SmallVector<Operation *>> connectedGroups(const StepInfo &info,
                                                      ArrayRef<Operation *> r) {
  DenseSet<Operation *> inR(r.begin(), r.end());
  llvm::EquivalenceClasses<Operation *> classes;
  for (Operation *op : r) {
    classes.insert(op);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (inR.contains(def))
          classes.unionSets(op, def);
  }
  DenseMap<Operation *, unsigned> leaderIndex;
  SmallVector<SmallVector<Operation *>> groups;
  for (Operation *op : r) { // r is in op order, so groups are too
    Operation *leader = classes.getLeaderValue(op);
    auto [it, inserted] = leaderIndex.try_emplace(leader, groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].push_back(op);
  }
  return groups;
}

/// Splits each group by where its values are first read in the backward
/// pass: one region per reading point, each cloning what it needs, so that
/// recomputed values are born right before their readers instead of all at
/// the first one (a residual chain joins many blocks into one group).
SmallVector<SmallVector<Operation *>>
splitByFirstUse(const StepInfo &info,
                ArrayRef<SmallVector<Operation *>> groups) {
  // (Only echo splits; its masks stay stashed, so they place nothing.)
  // Ops only needed to compute other values go in a last group of their
  // own, which places no region: they are cloned where they are needed.
  SmallVector<SmallVector<Operation *>> out;
  SmallVector<Operation *> unread;
  for (const auto &group : groups) {
    DenseMap<Operation *, unsigned> clusterOf;
    for (Operation *op : group) {
      Operation *at = nullptr;
      for (Value v : op->getResults())
        if (Operation *first =
                isMask(v) ? nullptr : info.firstBackwardReader(v))
          if (!at || first->isBeforeInBlock(at))
            at = first;
      if (!at) {
        unread.push_back(op);
        continue;
      }
      auto [it, inserted] = clusterOf.try_emplace(at, out.size());
      if (inserted)
        out.emplace_back();
      out[it->second].push_back(op);
    }
  }
  if (!unread.empty())
    out.push_back(std::move(unread));
  return out;
}

/// Stashes the i1 mask `v` (defined in the forward pass) 1-bit packed: packs
/// it right after `after` and unpacks it before its first backward reader.
void stashPacked(StepInfo &info, Value v, Operation *after) {
  auto type = cast<RankedTensorType>(v.getType());
  Operation *first = info.firstBackwardReader(v);
  if (!first)
    return;
  OpBuilder b(v.getContext());
  b.setInsertionPointAfter(after);
  int64_t bytes = (type.getNumElements() + 7) / 8;
  auto packedType = RankedTensorType::get({bytes}, b.getI8Type());
  Value packed = PackMaskOp::create(b, v.getLoc(), packedType, v);
  b.setInsertionPoint(first);
  Value unpacked = UnpackMaskOp::create(b, v.getLoc(), type, packed);
  v.replaceUsesWithIf(unpacked, [&](OpOperand &use) {
    return info.isBackwardUse(use) &&
           use.getOwner() != unpacked.getDefiningOp();
  });
}

/// Stashes the i1 masks read by the backward pass 1-bit packed.
void packMasks(StepInfo &info) {
  for (Operation *op : info.forwardCandidates())
    for (Value v : op->getResults()) {
      if (isMask(v) && info.hasBackwardUse(v))
        stashPacked(info, v, op);
    }
}

/// True when the backward pass reads `v` on behalf of `op` alone: no other
/// forward op's gradient reads it (as an operand or as a result).
bool readOnlyForGradientOf(Value v, Operation *op, const StepInfo &info) {
  auto reads = [](Operation *user, Value v) {
    auto diff = dyn_cast<DifferentiableOpInterface>(user);
    if (!diff)
      return true; // unknown: assume it reads
    for (unsigned i : diff.getGradientReadOperands())
      if (user->getOperand(i) == v)
        return true;
    for (unsigned i : diff.getGradientReadResults())
      if (user->getResult(i) == v)
        return true;
    return false;
  };
  if (reads(v.getDefiningOp(), v))
    return false;
  for (Operation *user : v.getUsers())
    if (user != op && info.isForward(user) && reads(user, v))
      return false;
  return true;
}

/// Ops whose gradient needs only `x > 0` of what it reads
/// (isGradientReadBinarizable: ReLU) get that predicate, computed in the
/// forward pass and stashed 1-bit packed, in place of `x` in the backward
/// pass. `x` is then free to die (or to be recomputed) unless the gradient
/// of another op reads it.
int64_t binarizeGradientReads(func::FuncOp func) {
  StepInfo info(func);
  int64_t masks = 0;
  for (Operation *op : info.forwardCandidates()) {
    auto diff = cast<DifferentiableOpInterface>(op);
    if (!diff.isGradientReadBinarizable())
      continue;
    for (unsigned index : diff.getGradientReadOperands()) {
      Value x = op->getOperand(index);
      auto type = dyn_cast<RankedTensorType>(x.getType());
      if (isFreeValue(x) || !type || !isa<FloatType>(type.getElementType()) ||
          !info.hasBackwardUse(x) || !readOnlyForGradientOf(x, op, info))
        continue;
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value zero = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
      Value mask =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
      x.replaceUsesWithIf(
          mask, [&](OpOperand &use) { return info.isBackwardUse(use); });
      stashPacked(info, mask, op);
      ++masks;
    }
  }
  return masks;
}

/// Erases forward ops (and constants) whose results lost all their users.
void eraseDeadForward(func::FuncOp func) {
  Block &body = func.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isPure(op) && op->getNumResults() > 0)
      op->erase();
}

/// Applies `groups` to `func` (see RegionBuilder for `stashMasks`).
void applyGroups(func::FuncOp func, ArrayRef<SmallVector<Operation *>> groups,
                 bool stashMasks) {
  StepInfo info(func);
  RegionBuilder(info, groups, stashMasks).build();
}

//===----------------------------------------------------------------------===//
// Strategies: each returns the groups of R
//===----------------------------------------------------------------------===//

/// True for ops that produce an i1 mask (dropout): mirror keeps them, as
/// MXNet's mirror kept dropout.
bool producesMask(Operation *op) {
  return llvm::any_of(op->getResults(), isMask);
}

/// mirror: every forward op that is neither compute-heavy nor produces a
/// mask.
SmallVector<SmallVector<Operation *>> planMirror(const StepInfo &info) {
  SmallVector<Operation *> r;
  for (Operation *op : info.forwardCandidates())
    if (!isComputeHeavy(op) && !producesMask(op))
      r.push_back(op);
  return connectedGroups(info, r);
}

/// echo: start from every recomputable op and trim forward in topological
/// order. Removing `s` from R stashes the results of `s` that the backward
/// pass or R still reads, and releases the operands of `s` no one else
/// needs: it is removed when that does not increase the stash. Use counts
/// make a tensor shared by several ops count once (Fig. 8/13). A dropout
/// stays in the recompute path like any other op; its mask is stashed
/// 1-bit packed either way (Alg. 1 line 18), so it is not counted.
/// Compute-heavy ops are candidates only if in `heavy` (a subset of
/// heavyCandidates: they read only values kept anyway), and stay only while
/// none of those values is itself recomputed.
SmallVector<Operation *> planEcho(const StepInfo &info,
                                  const DenseSet<Operation *> &heavy = {}) {
  SmallVector<Operation *> candidates;
  for (Operation *op : info.forwardCandidates())
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
      if (!once.insert(v).second || isFreeValue(v))
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
SmallVector<Operation *> without(ArrayRef<Operation *> r,
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
SmallVector<Operation *> cutChains(const StepInfo &info,
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
SmallVector<Operation *> cutEarlyRebuilds(const StepInfo &info,
                                          ArrayRef<Operation *> r) {
  DenseSet<Operation *> inR(r.begin(), r.end());
  // The first backward reader's position of an op's results, or -1.
  DenseMap<Operation *, int64_t> firstRead;
  auto readAt = [&](Operation *op) {
    auto [it, inserted] = firstRead.try_emplace(op, -1);
    if (inserted)
      for (Value v : op->getResults())
        if (!isMask(v))
          if (Operation *first = info.firstBackwardReader(v)) {
            int64_t at = info.index.lookup(first);
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
  DenseSet<Operation *> readBehind = needingReadValues(info, r);
  DenseSet<Operation *> stash;
  for (Operation *op : r) {
    int64_t at = readAt(op);
    if (at < 0)
      continue;
    double stashCost =
        static_cast<double>(bytes(op)) * (at - info.index.lookup(op));
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
/// them costs FLOPs but no stash; and their FLOPs fit `budgetFlops`.
DenseSet<Operation *> heavyCandidates(const StepInfo &info,
                                      double budgetFlops) {
  DenseSet<Operation *> out;
  for (Operation *op : info.forwardCandidates())
    if (isComputeHeavy(op) && estimateFlops(op) > 0 &&
        estimateFlops(op) <= budgetFlops &&
        llvm::all_of(op->getOperands(), [&](Value v) {
          return isFreeValue(v) || (!isMask(v) && info.hasBackwardUse(v));
        }))
      out.insert(op);
  return out;
}

/// The compute-heavy ops worth re-running within `budgetFlops`, best first.
/// With every candidate allowed, each one echo keeps in R is weighed by the
/// bytes of its results times the ops between their last forward use and
/// the first backward read of a value recomputed from them (how long the
/// stash it avoids would have lived), per FLOP; the best are taken while
/// their FLOPs fit the budget. A re-run whose values are read right after
/// their forward use (the logits, at the loss) saves nothing and is never
/// taken.
SmallVector<Operation *> selectHeavy(const StepInfo &info, double budgetFlops) {
  DenseSet<Operation *> candidates = heavyCandidates(info, budgetFlops);
  if (candidates.empty())
    return {};
  SmallVector<Operation *> r = planEcho(info, candidates);
  DenseSet<Operation *> inR(r.begin(), r.end());
  // The first backward read of a value recomputed from each op of R.
  DenseMap<Operation *, int64_t> firstRead;
  for (Operation *op : llvm::reverse(r)) {
    int64_t at = INT64_MAX;
    for (Value v : op->getResults()) {
      if (isMask(v))
        continue;
      if (Operation *first = info.firstBackwardReader(v))
        at = std::min(at, info.index.lookup(first));
      for (Operation *user : v.getUsers())
        if (inR.contains(user))
          at = std::min(at, firstRead.lookup(user));
    }
    firstRead[op] = at;
  }
  struct Choice {
    Operation *op;
    int64_t flops;
    double benefitPerFlop;
  };
  SmallVector<Choice> choices;
  for (Operation *op : r) {
    if (!isComputeHeavy(op) || firstRead[op] == INT64_MAX)
      continue;
    int64_t lastForwardUse = info.index.lookup(op), bytes = 0;
    for (Value v : op->getResults()) {
      bytes += getTensorBytes(v.getType());
      for (Operation *user : v.getUsers())
        if (info.isForward(user))
          lastForwardUse = std::max(
              lastForwardUse,
              info.index.lookup(info.body->findAncestorOpInBlock(*user)));
    }
    int64_t gap = firstRead[op] - lastForwardUse - 1;
    int64_t flops = estimateFlops(op);
    if (gap > 0 && bytes > 0)
      choices.push_back({op, flops, static_cast<double>(bytes) * gap / flops});
  }
  llvm::sort(choices, [&](const Choice &a, const Choice &b) {
    if (a.benefitPerFlop != b.benefitPerFlop)
      return a.benefitPerFlop > b.benefitPerFlop;
    return info.index.lookup(a.op) < info.index.lookup(b.op);
  });
  SmallVector<Operation *> out;
  double spent = 0;
  for (const Choice &c : choices)
    if (spent + c.flops <= budgetFlops) {
      spent += c.flops;
      out.push_back(c.op);
    }
  return out;
}

/// FLOPs of the compute-heavy ops cloned into `func`'s recompute regions.
int64_t heavyRecomputeFlops(func::FuncOp func) {
  int64_t flops = 0;
  func.walk([&](RecomputeOp region) {
    for (Operation &op : region.getBody().front())
      if (isComputeHeavy(&op))
        flops += estimateFlops(&op);
  });
  return flops;
}

/// sublinear: Chen et al. Alg. 2/3. Walking the forward pass, the results
/// of an op become a checkpoint when the bytes since the last checkpoint
/// exceed the budget; every other op is recomputed within its segment. The
/// budget is searched (their Appendix A) over candidates around
/// sqrt(total * largest): the smallest estimated peak (checkpoints stashed
/// plus the largest segment) wins.
SmallVector<SmallVector<Operation *>> planSublinear(const StepInfo &info) {
  SmallVector<Operation *> ops = info.forwardCandidates();
  SmallVector<int64_t> bytes;
  int64_t total = 0, largest = 1;
  for (Operation *op : ops) {
    int64_t b = 0;
    for (Value v : op->getResults())
      b += getTensorBytes(v.getType());
    bytes.push_back(b);
    total += b;
    largest = std::max(largest, b);
  }
  if (ops.empty())
    return {};
  auto segment = [&](double budget, SmallVector<int64_t> &segOf,
                     int64_t &estimate) {
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
    estimate = stash + maxSeg;
  };
  double center = std::sqrt(static_cast<double>(total) * largest);
  SmallVector<int64_t> best;
  int64_t bestEstimate = INT64_MAX;
  for (int k = -8; k <= 8; ++k) {
    SmallVector<int64_t> segOf;
    int64_t estimate;
    segment(center * std::pow(2.0, k / 2.0), segOf, estimate);
    if (estimate < bestEstimate) {
      bestEstimate = estimate;
      best = segOf;
    }
  }
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
  SmallVector<SmallVector<Operation *>> groups;
  DenseMap<int64_t, unsigned> groupOf;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (best[i] < 0)
      continue;
    auto [it, inserted] = groupOf.try_emplace(best[i], groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].push_back(ops[i]);
  }
  return groups;
}

struct EchoRecomputePass
    : public echo::impl::EchoRecomputeBase<EchoRecomputePass> {
  using Base::Base;

  void runOnOperation() override {
    if (strategy != "none" && strategy != "mirror" && strategy != "sublinear" &&
        strategy != "echo") {
      getOperation().emitError()
          << "echo-recompute: unknown strategy '" << strategy
          << "' (expected 'none', 'mirror', 'sublinear' or 'echo')";
      return signalPassFailure();
    }
    if (!(heavyBudget >= 0.0 && heavyBudget <= 1.0)) {
      getOperation().emitError()
          << "echo-recompute: heavy-budget must be a share of the step's "
             "FLOPs in [0, 1], got "
          << heavyBudget;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> steps;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(EchoDialect::getTrainStepAttrName()) &&
          !func.isExternal())
        steps.push_back(func);
    for (func::FuncOp func : steps) {
      if (func->hasAttr(EchoDialect::getRecomputeStrategyAttrName())) {
        func.emitError() << "echo-recompute: @" << func.getSymName()
                         << " was already rewritten with strategy '"
                         << func->getAttrOfType<StringAttr>(
                                    EchoDialect::getRecomputeStrategyAttrName())
                                .getValue()
                         << "'";
        return signalPassFailure();
      }
      if (failed(rewrite(func)))
        return signalPassFailure();
      // Counted on the result: echo rewrites copies and keeps one.
      func.walk([&](RecomputeOp region) {
        ++numRegions;
        for (Operation &op : region.getBody().front())
          if (!isa<YieldOp, arith::ConstantOp>(op))
            ++numRecomputed;
      });
      func->setAttr(EchoDialect::getRecomputeStrategyAttrName(),
                    StringAttr::get(&getContext(), strategy));
    }
  }

  LogicalResult rewrite(func::FuncOp func) {
    StepInfo info(func);
    if (!info.lossOp)
      return func.emitError()
             << "echo-recompute: cannot find the loss of training step @"
             << func.getSymName() << " (its first result must be computed "
             << "by an op of the step)";
    if (strategy == "none")
      return success();
    if (strategy == "echo")
      return rewriteEcho(func, info);
    SmallVector<SmallVector<Operation *>> groups =
        strategy == "mirror" ? planMirror(info) : planSublinear(info);
    apply(func, groups, /*pack=*/false);
    eraseDeadForward(func);
    return success();
  }

  /// echo: the selection of planEcho, with and without cutChains, each
  /// placed as one region per connected group or one per first backward
  /// reader, on the step as it is and on a copy with 1-bit ReLU masks
  /// (they help where the input of a ReLU is stashed for its gradient
  /// alone, and cost a little where it is kept anyway). Each plan is
  /// applied to a copy; the copy with the lowest estimated peak wins. The
  /// winning plan is then tried again with the compute-heavy re-runs that
  /// fit `heavy-budget` (selectHeavy), and kept if that lowers the peak.
  /// echo never exceeds the baseline's peak: if no copy fits, the step is
  /// rewritten group by group, keeping the groups that do not raise it.
  LogicalResult rewriteEcho(func::FuncOp func, StepInfo &info) {
    MemoryStats base = computeMemoryStats(func);
    int64_t basePeak = base.peakLiveBytes;
    OpBuilder b(func);
    auto binarized = cast<func::FuncOp>(b.clone(*func));
    SmallVector<func::FuncOp> variants = {func};
    if (binarizeGradientReads(binarized) > 0)
      variants.push_back(binarized);
    func::FuncOp best, bestVariant;
    PlanKind bestKind;
    int64_t bestPeak = basePeak + 1;
    // Keeps `trial` (`variant` rewritten with a plan of `kind`) if it has
    // the lowest peak so far, else erases it.
    auto keep = [&](func::FuncOp trial, func::FuncOp variant, PlanKind kind) {
      int64_t peak = computePeakLiveBytes(trial);
      if (peak >= bestPeak) {
        trial.erase();
        return;
      }
      if (best)
        best.erase();
      best = trial;
      bestPeak = peak;
      bestVariant = variant;
      bestKind = kind;
    };
    for (func::FuncOp variant : variants)
      for (const EchoPlan &plan : echoPlans(variant))
        keep(applyToCopy(variant, plan.groups, /*pack=*/true), variant,
             plan.kind);
    if (best && heavyBudget > 0) {
      // A region may clone an op another region clones too, so the budget
      // is checked on the rewritten copy; over it, the better half is
      // tried.
      StepInfo variantInfo(bestVariant);
      double budget = heavyBudget * static_cast<double>(base.forwardFlops +
                                                        base.backwardFlops);
      SmallVector<Operation *> heavy = selectHeavy(variantInfo, budget);
      for (; !heavy.empty(); heavy.truncate(heavy.size() / 2)) {
        EchoPlan plan =
            makePlan(variantInfo, bestKind,
                     DenseSet<Operation *>(heavy.begin(), heavy.end()));
        func::FuncOp trial =
            applyToCopy(bestVariant, plan.groups, /*pack=*/true);
        if (heavyRecomputeFlops(trial) <= budget) {
          keep(trial, bestVariant, bestKind);
          break;
        }
        trial.erase();
      }
    }
    binarized.erase();
    if (best) {
      func.getBody().takeBody(best.getBody());
      best.erase();
      return success();
    }
    // Masks first (they never raise the peak), then group by group.
    packMasks(info);
    for (const auto &group : connectedGroups(info, planEcho(info)))
      if (peakIfApplied(func, {group}, /*pack=*/false) <= basePeak)
        apply(func, {group}, /*pack=*/false);
    eraseDeadForward(func);
    return success();
  }

  /// How an echo plan is made from planEcho's selection: cut by cutChains
  /// and cutEarlyRebuilds or not, one region per connected group or one per
  /// first backward reader.
  struct PlanKind {
    bool cut = false;
    bool split = false;
  };
  struct EchoPlan {
    SmallVector<SmallVector<Operation *>> groups;
    PlanKind kind;
  };

  /// The plan of `kind` for planEcho's selection with `heavy` allowed.
  static EchoPlan makePlan(const StepInfo &info, PlanKind kind,
                           const DenseSet<Operation *> &heavy) {
    SmallVector<Operation *> selection = planEcho(info, heavy);
    if (kind.cut)
      selection = cutEarlyRebuilds(info, cutChains(info, selection));
    return placePlan(info, connectedGroups(info, selection), kind);
  }

  /// `groups` (planEcho's selection, cut or not as `kind` says, in
  /// connected groups) placed as `kind` says.
  static EchoPlan placePlan(const StepInfo &info,
                            SmallVector<SmallVector<Operation *>> groups,
                            PlanKind kind) {
    if (kind.split)
      groups = splitByFirstUse(info, groups);
    return {std::move(groups), kind};
  }

  /// echo's candidate plans for `func`: planEcho's selection and, when it
  /// cuts anything, cutChains' version of it, each grouped and split by
  /// first backward reader.
  static SmallVector<EchoPlan> echoPlans(func::FuncOp func) {
    StepInfo info(func);
    SmallVector<Operation *> selection = planEcho(info);
    SmallVector<Operation *> cut =
        cutEarlyRebuilds(info, cutChains(info, selection));
    SmallVector<EchoPlan> plans;
    for (bool isCut : {false, true}) {
      auto groups = connectedGroups(info, isCut ? cut : selection);
      for (bool split : {false, true})
        plans.push_back(placePlan(info, groups, {isCut, split}));
      if (cut.size() == selection.size())
        break; // nothing was cut
    }
    return plans;
  }

  /// Rewrites `func` with `plan` (and packs its masks when `pack`).
  void apply(func::FuncOp func, ArrayRef<SmallVector<Operation *>> plan,
             bool pack) {
    applyGroups(func, plan, /*stashMasks=*/pack);
    if (pack) {
      StepInfo after(func);
      packMasks(after);
    }
  }

  /// A copy of `func` (inserted before it) rewritten with `plan`, masks
  /// packed when `pack`, dead forward ops erased.
  static func::FuncOp applyToCopy(func::FuncOp func,
                                  ArrayRef<SmallVector<Operation *>> plan,
                                  bool pack) {
    StepInfo current(func);
    OpBuilder b(func);
    auto copy = cast<func::FuncOp>(b.clone(*func));
    StepInfo copyInfo(copy);
    applyGroups(copy, mapGroups(current, copyInfo, plan), /*stashMasks=*/pack);
    if (pack)
      packMasks(copyInfo);
    eraseDeadForward(copy);
    return copy;
  }

  /// The estimated peak of `func` if it were rewritten with `plan`.
  static int64_t peakIfApplied(func::FuncOp func,
                               ArrayRef<SmallVector<Operation *>> plan,
                               bool pack) {
    func::FuncOp trial = applyToCopy(func, plan, pack);
    int64_t peak = computePeakLiveBytes(trial);
    trial.erase();
    return peak;
  }

  /// The ops of `groups` (in `from`) at the same positions in `to`, a clone.
  static SmallVector<SmallVector<Operation *>>
  mapGroups(const StepInfo &from, const StepInfo &to,
            ArrayRef<SmallVector<Operation *>> groups) {
    SmallVector<SmallVector<Operation *>> out;
    for (const auto &g : groups) {
      out.emplace_back();
      for (Operation *op : g) {
        assert(from.index.count(op) && "a planned op outside the step");
        out.back().push_back(to.ops[from.index.lookup(op)]);
      }
    }
    return out;
  }
};

} // namespace
