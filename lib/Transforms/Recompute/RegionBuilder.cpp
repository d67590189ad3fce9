//===- RegionBuilder.cpp - applyRecomputePlan: regions and masks ----------===//
//
// Part of the Echo project.
//
// The rewrite every recompute strategy shares (see Recompute.h for the
// vocabulary): ReLU inputs replaced by 1-bit masks, one `echo.recompute`
// region per group placed before the first backward reader of its values,
// packed masks, and forward ops left without users erased.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Recompute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::echo;

namespace {

bool isMask(Value v) { return TrainingStep::isMask(v); }

/// Builds the recompute regions of a plan, one per group, in backward
/// order. An op that several regions need (a batch norm whose output every
/// time step slices) is cloned into the first of them, which yields its
/// results to the later ones, instead of being re-run for each. A value
/// the backward pass reads that a region clones on the way to its own
/// targets is re-run at its own readers (cheaper in memory than keeping it
/// alive in between) unless its recomputation needs another value the
/// backward pass reads: a chain's links are yielded, so no chain is
/// rebuilt region after region; or unless its first backward reader comes
/// within `reuseWithin` ops of the region (RecomputePlan::reuseWithin).
class RegionBuilder {
public:
  /// With `stashMasks`, the backward pass keeps reading the forward pass's
  /// masks (stashed packed): a recomputed dropout serves only its output.
  RegionBuilder(const TrainingStep &step,
                ArrayRef<SmallVector<Operation *>> groups, bool stashMasks,
                const RecomputePlan &plan)
      : step(step), stashMasks(stashMasks), reuseWithin(plan.reuseWithin),
        tagReuse(plan.tagReuse) {
    for (int64_t position : plan.reuseExcluded)
      reuseExcluded.insert(step.getOp(position));
    for (const auto &g : groups)
      inR.insert(g.begin(), g.end());
    // Regions in the order they will sit in the backward pass.
    SmallVector<std::pair<Operation *, unsigned>> placed;
    for (auto [i, g] : llvm::enumerate(groups))
      if (Operation *at = placement(g))
        placed.push_back({at, static_cast<unsigned>(i)});
    llvm::sort(placed, [&](auto &a, auto &b) {
      return std::make_pair(step.getPosition(a.first), a.second) <
             std::make_pair(step.getPosition(b.first), b.second);
    });
    for (auto [at, i] : placed)
      order.push_back(groups[i]);
    SmallVector<Operation *> ops(inR.begin(), inR.end());
    llvm::sort(ops, [&](Operation *a, Operation *b) {
      return step.getPosition(a) < step.getPosition(b);
    });
    readBehind = getOpsNeedingReadValues(step, ops);
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
        if (!(stashMasks && isMask(v)) && step.hasBackwardUse(v))
          out.push_back(v);
    return out;
  }

  /// The earliest backward reader of a value of `group`, or null.
  Operation *placement(ArrayRef<Operation *> group) const {
    Operation *at = nullptr;
    for (Value v : targets(group)) {
      Operation *first = step.getFirstBackwardReader(v);
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
      return step.getPosition(a) < step.getPosition(b);
    });
    return out;
  }

  /// One region for `group`, right before its first backward reader: it
  /// clones what the group's backward-read values need and yields them,
  /// plus the values that ops cloned by later regions read.
  void buildRegion(ArrayRef<Operation *> group) {
    Operation *insertBefore = placement(group);
    SmallVector<Value> yields;
    for (Value v : targets(group))
      if (!servedAt(v, insertBefore))
        yields.push_back(v);
    if (yields.empty())
      return; // all given by earlier regions
    SmallVector<Operation *> clones = closure(yields, insertBefore);
    DenseSet<Operation *> cloned(clones.begin(), clones.end());
    // Values that ops cloned elsewhere read, and links the backward pass
    // reads later, are yielded too.
    DenseSet<Value> yielded(yields.begin(), yields.end());
    DenseSet<Value> reused;
    auto readSoon = [&](Value v) {
      Operation *first = step.getFirstBackwardReader(v);
      if (reuseWithin <= 0 || !first ||
          reuseExcluded.contains(v.getDefiningOp()))
        return false;
      bool soon =
          first && step.getPosition(first) - step.getPosition(insertBefore) <=
                       reuseWithin;
      if (soon)
        reused.insert(v);
      return soon;
    };
    for (Operation *op : clones)
      for (Value v : op->getResults())
        if (!(stashMasks && isMask(v)) && !yielded.contains(v) &&
            ((step.hasBackwardUse(v) &&
              (readBehind.contains(op) || readSoon(v))) ||
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
            (def && def->hasTrait<OpTrait::ConstantLike>()) ||
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
      // Constants (any constant-like op: arith.constant, tosa.const,
      // tosa.const_shape) are cloned into the region, not passed in.
      for (Value operand : op->getOperands())
        if (Operation *cst = operand.getDefiningOp();
            cst && cst->hasTrait<OpTrait::ConstantLike>() &&
            !mapping.contains(operand))
          inner.clone(*cst, mapping);
      inner.clone(*op, mapping);
    }
    SmallVector<Value> results;
    for (Value v : yields)
      results.push_back(mapping.lookup(v));
    YieldOp::create(inner, loc, results);

    if (tagReuse) {
      SmallVector<int64_t> tags;
      for (auto [i, v] : llvm::enumerate(yields))
        if (reused.contains(v))
          tags.append(
              {static_cast<int64_t>(i), step.getPosition(v.getDefiningOp())});
      if (!tags.empty())
        region->setAttr("echo.reused", builder.getDenseI64ArrayAttr(tags));
    }

    // Backward reads after the region now read it (a value yielded for
    // later regions may also have readers before it: they keep theirs).
    for (auto [v, r] : llvm::zip(yields, region.getResults())) {
      available[v] = r;
      v.replaceUsesWithIf(r, [&](OpOperand &use) {
        if (!step.isBackwardUse(use) || region->isAncestor(use.getOwner()))
          return false;
        return region->isBeforeInBlock(step.getTopLevel(use.getOwner()));
      });
    }
  }

  const TrainingStep &step;
  bool stashMasks;
  int64_t reuseWithin;
  bool tagReuse;
  DenseSet<Operation *> reuseExcluded;
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

/// Stashes the i1 mask `v` (defined in the forward pass) 1-bit packed: packs
/// it right after `after` and unpacks it before its first backward reader.
void stashPacked(const TrainingStep &step, Value v, Operation *after) {
  auto type = cast<RankedTensorType>(v.getType());
  Operation *first = step.getFirstBackwardReader(v);
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
    return step.isBackwardUse(use) &&
           use.getOwner() != unpacked.getDefiningOp();
  });
}

/// Stashes the i1 masks read by the backward pass 1-bit packed.
void packMasks(const TrainingStep &step) {
  for (Operation *op : step.getRecomputeCandidates())
    for (Value v : op->getResults())
      if (isMask(v) && step.hasBackwardUse(v))
        stashPacked(step, v, op);
}

/// True when the backward pass reads `v` on behalf of `op` alone: no other
/// forward op's gradient reads it (as an operand or as a result).
bool readOnlyForGradientOf(Value v, Operation *op, const TrainingStep &step) {
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
    if (user != op && step.isForward(user) && reads(user, v))
      return false;
  return true;
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

} // namespace

int64_t mlir::echo::binarizeGradientReads(func::FuncOp func) {
  TrainingStep step(func);
  int64_t masks = 0;
  for (Operation *op : step.getRecomputeCandidates()) {
    auto diff = dyn_cast<DifferentiableOpInterface>(op);
    if (!diff || !diff.isGradientReadBinarizable())
      continue;
    for (unsigned index : diff.getGradientReadOperands()) {
      Value x = op->getOperand(index);
      auto type = dyn_cast<RankedTensorType>(x.getType());
      if (TrainingStep::isFree(x) || !type ||
          !isa<FloatType>(type.getElementType()) || !step.hasBackwardUse(x) ||
          !readOnlyForGradientOf(x, op, step))
        continue;
      OpBuilder b(op);
      Value mask = diff.buildGradientReadMask(b, op->getLoc(), x);
      x.replaceUsesWithIf(
          mask, [&](OpOperand &use) { return step.isBackwardUse(use); });
      stashPacked(step, mask, op);
      ++masks;
    }
  }
  return masks;
}

void mlir::echo::applyRecomputePlan(func::FuncOp func,
                                    const RecomputePlan &plan) {
  if (plan.lossChunks > 0) {
    [[maybe_unused]] LogicalResult chunked = chunkLoss(func, plan.lossChunks);
    assert(succeeded(chunked) && "a plan chunks a loss that cannot be");
  }
  if (plan.binarizeGradientReads)
    binarizeGradientReads(func);
  {
    TrainingStep step(func);
    SmallVector<SmallVector<Operation *>> groups;
    for (ArrayRef<int64_t> group : plan.groups) {
      groups.emplace_back();
      for (int64_t position : group)
        groups.back().push_back(step.getOp(position));
    }
    RegionBuilder(step, groups, /*stashMasks=*/plan.packMasks, plan).build();
    if (plan.packMasks)
      packMasks(step);
  }
  eraseDeadForward(func);
  // A region reads the parameters its forward ops read: an optimizer's
  // update (which writes over the parameter in place) goes after it. Before
  // the offloads, whose positions are taken on this form of the step.
  placeInPlaceUpdates(func.front());
  if (!plan.offloads.empty())
    offloadValues(func, plan.offloads, plan.offloadModel);
}
