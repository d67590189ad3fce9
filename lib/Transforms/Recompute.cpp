//===- Recompute.cpp - echo-recompute: none, mirror, sublinear, echo ------===//
//
// Part of the Echo project.
//
// Each strategy picks a set R of forward ops whose results are recomputed in
// the backward pass rather than stashed; the rewrite is shared:
//
// - R is split into groups (connected pieces of the forward graph, or
//   sublinear's segments). Each group becomes one `echo.recompute` region,
//   placed right before the first backward op that reads one of its values,
//   cloning the ops of R those values need from stashed values (ops outside
//   R, arguments; constants are cloned) and yielding every value the
//   backward pass reads; all backward reads are redirected to the region.
// - Forward ops left without users are erased.
//
// echo also stashes 1-bit masks: dropout's (its i1 result) and, for ops
// whose gradient needs only `x > 0` (ReLU), that predicate instead of `x`;
// and it cuts chains of recomputed values (residual streams) so that no
// region recomputes a stream from its start.
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

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

/// Builds one recompute region for the ops of `group` (all in `inR`) and
/// redirects the backward reads of their values to it.
void buildRegion(StepInfo &info, ArrayRef<Operation *> group,
                 const DenseSet<Operation *> &inR) {
  // Values of the group read by the backward pass.
  SmallVector<Value> targets;
  Operation *insertBefore = nullptr;
  for (Operation *op : group) {
    for (Value v : op->getResults()) {
      Operation *first = info.firstBackwardReader(v);
      if (!first)
        continue;
      targets.push_back(v);
      if (!insertBefore || first->isBeforeInBlock(insertBefore))
        insertBefore = first;
    }
  }
  if (targets.empty())
    return;

  // The ops to clone: producers of the targets within R, transitively.
  DenseSet<Operation *> needed;
  SmallVector<Operation *> worklist;
  for (Value v : targets)
    worklist.push_back(v.getDefiningOp());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!needed.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (inR.contains(def))
          worklist.push_back(def);
  }
  SmallVector<Operation *> clones(needed.begin(), needed.end());
  llvm::sort(clones, [&](Operation *a, Operation *b) {
    return info.index.lookup(a) < info.index.lookup(b);
  });

  // Region inputs: stashed values (defined outside the clones, not
  // constants), in order of first use.
  SmallVector<Value> inputs;
  DenseSet<Value> seen;
  for (Operation *op : clones)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if ((def && needed.contains(def)) ||
          (def && isa<arith::ConstantOp>(def)) || !seen.insert(operand).second)
        continue;
      inputs.push_back(operand);
    }

  OpBuilder builder(insertBefore);
  SmallVector<Type> types;
  for (Value v : targets)
    types.push_back(v.getType());
  Location loc = targets.front().getLoc();
  auto region = RecomputeOp::create(builder, loc, types, inputs);
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
  SmallVector<Value> yielded;
  for (Value v : targets)
    yielded.push_back(mapping.lookup(v));
  YieldOp::create(inner, loc, yielded);

  for (auto [v, r] : llvm::zip(targets, region.getResults()))
    v.replaceUsesWithIf(r, [&](OpOperand &use) {
      return info.isBackwardUse(use) && !region->isAncestor(use.getOwner());
    });
}

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
  SmallVector<SmallVector<Operation *>> out;
  for (const auto &group : groups) {
    DenseMap<Operation *, unsigned> clusterOf;
    for (Operation *op : group) {
      Operation *at = nullptr;
      for (Value v : op->getResults())
        if (Operation *first = info.firstBackwardReader(v))
          if (!at || first->isBeforeInBlock(at))
            at = first;
      if (!at)
        continue; // only needed to compute other values: cloned on demand
      auto [it, inserted] = clusterOf.try_emplace(at, out.size());
      if (inserted)
        out.emplace_back();
      out[it->second].push_back(op);
    }
  }
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
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (type && type.getElementType().isInteger(1) && info.hasBackwardUse(v))
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

/// Applies `groups` to `func`.
void applyGroups(func::FuncOp func, ArrayRef<SmallVector<Operation *>> groups) {
  StepInfo info(func);
  DenseSet<Operation *> inR;
  for (const auto &g : groups)
    inR.insert(g.begin(), g.end());
  for (const auto &g : groups)
    buildRegion(info, g, inR);
}

//===----------------------------------------------------------------------===//
// Strategies: each returns the groups of R
//===----------------------------------------------------------------------===//

/// True for ops that produce an i1 mask (dropout): mirror keeps them, as
/// MXNet's mirror kept dropout, and echo stashes their masks packed instead
/// of recomputing them (Alg. 1 line 18).
bool producesMask(Operation *op) {
  return llvm::any_of(op->getResultTypes(), [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.getElementType().isInteger(1);
  });
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
/// make a tensor shared by several ops count once (Fig. 8/13).
SmallVector<Operation *> planEcho(const StepInfo &info) {
  SmallVector<Operation *> candidates;
  for (Operation *op : info.forwardCandidates())
    if (!isComputeHeavy(op) && !producesMask(op))
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
  for (Operation *s : candidates) {
    int64_t alloc = 0, released = 0;
    for (Value r : s->getResults())
      if (backwardRead(r) || readsByR.lookup(r) > 0)
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
    if (released >= alloc) {
      inR.erase(s);
      for (Value v : once)
        --readsByR[v];
    }
  }
  SmallVector<Operation *> r;
  for (Operation *op : candidates)
    if (inR.contains(op))
      r.push_back(op);
  return r;
}

/// Cuts chains of recomputed values: when recomputing a value the backward
/// pass reads needs another such value (through ops of `r`), that other
/// value is stashed instead, so a chain alternates stashed and recomputed
/// values. A residual stream (ResNet's block outputs, each
/// read by the next block's weight gradient) otherwise makes every region
/// recompute the stream from its start: all of it live at once in one
/// region, or cloned again for every reader.
SmallVector<Operation *> cutChains(const StepInfo &info,
                                   ArrayRef<Operation *> r) {
  DenseSet<Operation *> inR(r.begin(), r.end());
  auto isRead = [&](Operation *op) {
    return llvm::any_of(op->getResults(),
                        [&](Value v) { return info.hasBackwardUse(v); });
  };
  // From the last op back: a value that is cut is stashed, so what
  // recomputing it would need does not matter.
  DenseSet<Operation *> cut;
  for (Operation *op : llvm::reverse(r)) {
    if (!isRead(op) || cut.contains(op))
      continue;
    // The ops recomputing `op` needs, up to the next value read by the
    // backward pass (which is cut, so the walk stops there).
    SmallVector<Operation *> worklist = {op};
    DenseSet<Operation *> visited = {op};
    while (!worklist.empty()) {
      Operation *cur = worklist.pop_back_val();
      for (Value operand : cur->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || !inR.contains(def) || !visited.insert(def).second)
          continue;
        if (isRead(def))
          cut.insert(def);
        else
          worklist.push_back(def);
      }
    }
  }
  SmallVector<Operation *> out;
  for (Operation *op : r)
    if (!cut.contains(op))
      out.push_back(op);
  return out;
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
  /// applied to a copy; the copy with the lowest estimated peak wins. echo
  /// never exceeds the baseline's peak: if no copy fits, the step is
  /// rewritten group by group, keeping the groups that do not raise it.
  LogicalResult rewriteEcho(func::FuncOp func, StepInfo &info) {
    int64_t basePeak = computeMemoryStats(func).peakLiveBytes;
    OpBuilder b(func);
    auto binarized = cast<func::FuncOp>(b.clone(*func));
    SmallVector<func::FuncOp> variants = {func};
    if (binarizeGradientReads(binarized) > 0)
      variants.push_back(binarized);
    func::FuncOp best;
    int64_t bestPeak = basePeak + 1;
    for (func::FuncOp variant : variants) {
      for (const auto &plan : echoPlans(variant)) {
        func::FuncOp trial = applyToCopy(variant, plan, /*pack=*/true);
        int64_t peak = computeMemoryStats(trial).peakLiveBytes;
        if (peak >= bestPeak) {
          trial.erase();
          continue;
        }
        if (best)
          best.erase();
        best = trial;
        bestPeak = peak;
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

  /// echo's candidate plans for `func`: planEcho's selection and, when it
  /// cuts anything, cutChains' version of it, each grouped and split by
  /// first backward reader.
  static SmallVector<SmallVector<SmallVector<Operation *>>>
  echoPlans(func::FuncOp func) {
    StepInfo info(func);
    SmallVector<Operation *> selection = planEcho(info);
    SmallVector<Operation *> cut = cutChains(info, selection);
    SmallVector<SmallVector<SmallVector<Operation *>>> plans;
    for (ArrayRef<Operation *> s : {ArrayRef(selection), ArrayRef(cut)}) {
      plans.push_back(connectedGroups(info, s));
      plans.push_back(splitByFirstUse(info, plans.back()));
      if (cut.size() == selection.size())
        break; // nothing was cut
    }
    return plans;
  }

  /// Rewrites `func` with `plan` (and packs its masks when `pack`).
  void apply(func::FuncOp func, ArrayRef<SmallVector<Operation *>> plan,
             bool pack) {
    applyGroups(func, plan);
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
    applyGroups(copy, mapGroups(current, copyInfo, plan));
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
    int64_t peak = computeMemoryStats(trial).peakLiveBytes;
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
      for (Operation *op : g)
        out.back().push_back(to.ops[from.index.lookup(op)]);
    }
    return out;
  }
};

} // namespace
