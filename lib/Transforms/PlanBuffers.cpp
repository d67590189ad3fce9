//===- PlanBuffers.cpp - echo-plan-buffers --------------------------------===//
//
// Part of the Echo project.
//
// Chen et al. 2016 §3 and SuperNeurons §3.2: once liveness is known, one
// static arena with shared offsets replaces the step's many allocations.
// The planner and its checker (VerifyBufferPlan.cpp) share only the
// preconditions, the liveness model and the in-place rule
// (echo/Analysis/BufferPlan.h); the checker reads the offsets back from the
// IR.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/BufferPlan.h"
#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Analysis/MemoryCategories.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOPLANBUFFERS
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

/// True when a buffer allocated inside a region (a loop body, say) is used
/// only there and never handed on through a terminator, so that one fixed
/// place in the arena serves every execution of the region: its interval is
/// the top-level op that holds the region.
static bool staysInItsBlock(memref::AllocOp alloc, func::FuncOp func,
                            const BufferLiveness &liveness) {
  for (Operation *parent = alloc->getParentOp(); parent != func;
       parent = parent->getParentOp())
    if (parent->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return false;
  Region *region = alloc->getParentRegion();
  for (Value alias : liveness.getAliases(alloc)) {
    if (!region->isAncestor(alias.getParentRegion()))
      return false;
    for (Operation *user : alias.getUsers())
      if (user->getBlock() == alloc->getBlock() &&
          user->hasTrait<OpTrait::IsTerminator>())
        return false;
  }
  return true;
}

/// The category tagged in `loc`, or nullopt.
static std::optional<MemoryCategory> taggedCategory(Location loc) {
  if (auto tag = getTaggedCategory(loc))
    return tag->first;
  return std::nullopt;
}

/// The category of argument `arg` of a tagged, bufferized step: its own tag,
/// or, for an out-parameter (a result of the step, which has none), the tag
/// of the first op that writes it.
static std::optional<MemoryCategory>
argumentCategory(BlockArgument arg, const BufferLiveness &liveness) {
  if (auto own = taggedCategory(arg.getLoc()))
    return own;
  std::optional<MemoryCategory> found;
  int64_t first = std::numeric_limits<int64_t>::max();
  for (Value alias : liveness.getAliases(arg))
    for (Operation *user : alias.getUsers()) {
      std::optional<MemoryCategory> category = taggedCategory(user->getLoc());
      // A copy into the out-parameter: what the copied buffer holds.
      if (auto copy = dyn_cast<memref::CopyOp>(user))
        if (Operation *source = copy.getSource().getDefiningOp())
          if (auto fromSource = taggedCategory(source->getLoc()))
            category = fromSource;
      int64_t position = liveness.getPosition(user);
      if (category && position < first) {
        first = position;
        found = category;
      }
    }
  return found;
}

/// The file location inside `loc` (the model's line), printed, or "".
static std::string sourceLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

namespace {
struct EchoPlanBuffersPass
    : public echo::impl::EchoPlanBuffersBase<EchoPlanBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t align = alignment;
    if (align < 1 || !llvm::isPowerOf2_64(align)) {
      getOperation().emitError()
          << "echo-plan-buffers: alignment must be a power of two, not "
          << align;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    // Signatures change only where no call sees them (checked before the
    // functions are planned in parallel: the check reads the whole module).
    if (arena == ArenaKind::Argument)
      for (func::FuncOp func : funcs)
        if (!func->hasAttr(EchoDialect::getBufferPlanAttrName()) &&
            failed(checkArgumentArena(func)))
          return signalPassFailure();
    if (failed(failableParallelForEach(
            &getContext(), funcs, [&](func::FuncOp f) { return plan(f); })))
      return signalPassFailure();
  }

  LogicalResult checkArgumentArena(func::FuncOp func) {
    if (!func.isPublic())
      return func.emitError() << "echo-plan-buffers: arena=argument changes "
                                 "the signature; @"
                              << func.getSymName() << " must be public";
    if (!SymbolTable::symbolKnownUseEmpty(func, getOperation()))
      return func.emitError() << "echo-plan-buffers: arena=argument changes "
                                 "the signature; @"
                              << func.getSymName() << " must have no callers";
    return success();
  }

  LogicalResult plan(func::FuncOp func);

  /// The plan's memory categories (see echo/Analysis/MemoryCategories.h):
  /// `peak_position`, `categories` (bytes per category at the planned peak,
  /// and `free`: the arena's bytes no live buffer holds there),
  /// `category_timeline` (bytes per category at each top-level op) and
  /// `slots` (each planned buffer: offset, bytes, first and last position,
  /// category, op, source location). `fixed` holds the bytes outside the
  /// arena (the caller's buffers, unplanned allocations) per category;
  /// `plannedLocs` the tagged locations of the planned allocations.
  SmallVector<NamedAttribute> describeCategories(func::FuncOp func,
                                                 const CategoryBytes &fixed,
                                                 ArrayRef<Location> plannedLocs,
                                                 ArrayRef<ArenaBuffer> buffers,
                                                 const ArenaPlan &arenaPlan,
                                                 ArrayRef<int64_t> timeline);
};
} // namespace

LogicalResult EchoPlanBuffersPass::plan(func::FuncOp func) {
  // Planning twice would nest arenas; a planned function stays as it is.
  if (func->hasAttr(EchoDialect::getBufferPlanAttrName()))
    return success();
  if (failed(checkPlannable(func, "echo-plan-buffers")))
    return failure();
  bool argumentArena = arena == ArenaKind::Argument;

  Block &body = func.getBody().front();
  BufferLiveness liveness(func);
  // What the step needs besides the arena: the caller's buffers (parameters,
  // data, results as out-parameters) and the allocations left out of it.
  int64_t argumentBytes = 0, unplannedBytes = 0;
  for (Type type : func.getArgumentTypes())
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && memref.hasStaticShape())
      argumentBytes += getTensorBytes(memref);
  SmallVector<memref::AllocOp> candidates;
  SmallVector<std::pair<Location, int64_t>> unplanned;
  func.walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    StringRef why;
    if (alloc->getBlock() != &body && !staysInItsBlock(alloc, func, liveness))
      why = "it is used outside the region that allocates it";
    else if (!type.hasStaticShape())
      why = "it is dynamically shaped";
    else if (!type.getLayout().isIdentity())
      why = "it has a layout";
    else if (type.getMemorySpace())
      why = "it is in a memory space";
    if (why.empty()) {
      candidates.push_back(alloc);
      return;
    }
    alloc.emitWarning() << "echo-plan-buffers: allocation left out of the "
                           "arena because "
                        << why;
    if (type.hasStaticShape()) {
      unplannedBytes += getTensorBytes(type);
      unplanned.push_back({alloc.getLoc(), getTensorBytes(type)});
    }
    ++numUnplanned;
  });
  // The arena's lifetime replaces theirs.
  for (memref::AllocOp alloc : candidates)
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();

  SmallVector<memref::AllocOp> planned;
  SmallVector<ArenaBuffer> buffers;
  DenseMap<Value, unsigned> indexOf;
  for (memref::AllocOp alloc : candidates) {
    if (alloc->use_empty()) {
      alloc.erase();
      continue;
    }
    FailureOr<LiveInterval> live = liveness.getInterval(alloc);
    if (failed(live)) {
      alloc.emitWarning() << "echo-plan-buffers: allocation left out of the "
                             "arena because the function returns it";
      unplannedBytes += getTensorBytes(alloc.getType());
      unplanned.push_back({alloc.getLoc(), getTensorBytes(alloc.getType())});
      ++numUnplanned;
      continue;
    }
    indexOf[alloc] = buffers.size();
    planned.push_back(alloc);
    buffers.push_back(
        {getTensorBytes(alloc.getType()),
         std::max<int64_t>(alignment, alloc.getAlignment().value_or(1)),
         *live});
  }

  // In place: a buffer first written by the op that reads another for the
  // last time. Each buffer gives and takes its bytes at most once.
  SmallVector<std::pair<unsigned, unsigned>> inPlace;
  DenseSet<unsigned> given, taken;
  for (auto [born, buffer] : llvm::enumerate(buffers)) {
    Operation *op = liveness.getOperation(buffer.live.start);
    for (Value operand : op->getOperands()) {
      auto it = indexOf.find(stripReshapes(operand));
      if (it == indexOf.end())
        continue;
      unsigned dying = it->second;
      if (given.contains(dying) || taken.contains(born) ||
          !liveness.canReuseInPlace(planned[dying], buffers[dying].live,
                                    planned[born], buffer.live))
        continue;
      inPlace.push_back({dying, unsigned(born)});
      given.insert(dying);
      taken.insert(born);
    }
  }

  ArenaPlan arenaPlan = planArena(buffers, inPlace);

  // A training step tagged by echo-tag-memory-categories: what its buffers
  // hold, read before the allocations become views.
  bool tagged = llvm::any_of(func.getArguments(), [](BlockArgument arg) {
    return getTaggedCategory(arg.getLoc()).has_value();
  });
  CategoryBytes fixed{};
  SmallVector<Location> plannedLocs;
  if (tagged) {
    for (BlockArgument arg : func.getArguments()) {
      auto memref = dyn_cast<MemRefType>(arg.getType());
      if (!memref || !memref.hasStaticShape())
        continue;
      MemoryCategory category =
          argumentCategory(arg, liveness).value_or(MemoryCategory::Temporaries);
      fixed[unsigned(category)] += getTensorBytes(memref);
    }
    for (auto [loc, bytes] : unplanned)
      fixed[unsigned(
          taggedCategory(loc).value_or(MemoryCategory::Temporaries))] += bytes;
    for (memref::AllocOp alloc : planned)
      plannedLocs.push_back(alloc.getLoc());
  }
  numPlanned += planned.size();
  numInPlace += inPlace.size();

  // Rewrite: one arena, every planned allocation a view into it.
  OpBuilder b(func.getContext());
  Value arenaValue;
  auto arenaType = MemRefType::get({arenaPlan.size}, b.getIntegerType(8));
  int64_t arenaAlignment = alignment;
  for (const ArenaBuffer &buffer : buffers)
    arenaAlignment = std::max(arenaAlignment, buffer.alignment);
  if (!planned.empty()) {
    UnitAttr marker = b.getUnitAttr();
    if (argumentArena) {
      unsigned index = func.getNumArguments();
      if (failed(
              func.insertArgument(index, arenaType,
                                  b.getDictionaryAttr(b.getNamedAttr(
                                      EchoDialect::getArenaAttrName(), marker)),
                                  func.getLoc())))
        return failure();
      arenaValue = func.getArgument(index);
    } else {
      b.setInsertionPointToStart(&body);
      auto alloc =
          memref::AllocOp::create(b, func.getLoc(), arenaType, ValueRange{},
                                  b.getI64IntegerAttr(arenaAlignment));
      alloc->setAttr(EchoDialect::getArenaAttrName(), marker);
      arenaValue = alloc;
    }
  }
  for (auto [i, alloc] : llvm::enumerate(planned)) {
    b.setInsertionPoint(alloc);
    Value shift =
        arith::ConstantIndexOp::create(b, alloc.getLoc(), arenaPlan.offsets[i]);
    Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(),
                                        arenaValue, shift, ValueRange{});
    alloc.replaceAllUsesWith(view);
    alloc.erase();
  }

  // What the step holds at each top-level op: the arena's live slots and
  // everything outside the arena.
  SmallVector<int64_t> timeline(body.getOperations().size(),
                                argumentBytes + unplannedBytes);
  for (auto [position, bytes] : llvm::enumerate(arenaPlan.liveBytes))
    if (position < timeline.size())
      timeline[position] += bytes;

  SmallVector<NamedAttribute> categoryEntries;
  if (tagged)
    categoryEntries = describeCategories(func, fixed, plannedLocs, buffers,
                                         arenaPlan, timeline);
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr("arena_bytes", b.getI64IntegerAttr(arenaPlan.size)),
      b.getNamedAttr("lower_bound_bytes",
                     b.getI64IntegerAttr(arenaPlan.lowerBound)),
      b.getNamedAttr("buffers", b.getI64IntegerAttr(planned.size())),
      b.getNamedAttr("in_place", b.getI64IntegerAttr(inPlace.size())),
      b.getNamedAttr("alignment", b.getI64IntegerAttr(alignment)),
      b.getNamedAttr("argument_bytes", b.getI64IntegerAttr(argumentBytes)),
      b.getNamedAttr("unplanned_bytes", b.getI64IntegerAttr(unplannedBytes)),
      b.getNamedAttr("heuristic", b.getStringAttr(arenaPlan.heuristic)),
      b.getNamedAttr("timeline", b.getDenseI64ArrayAttr(timeline)),
  };
  entries.append(categoryEntries.begin(), categoryEntries.end());
  func->setAttr(EchoDialect::getBufferPlanAttrName(),
                b.getDictionaryAttr(entries));
  // The tags have served; the lowering's locations are the model's again.
  if (tagged)
    stripMemoryCategoryTags(func);
  return success();
}

SmallVector<NamedAttribute> EchoPlanBuffersPass::describeCategories(
    func::FuncOp func, const CategoryBytes &fixed,
    ArrayRef<Location> plannedLocs, ArrayRef<ArenaBuffer> buffers,
    const ArenaPlan &arenaPlan, ArrayRef<int64_t> timeline) {
  Builder b(func.getContext());
  int64_t positions = timeline.size();

  // Each arena slot, at each position it is live, holds the buffer of its
  // in-place chain that starts last at or before that position.
  SmallVector<std::optional<std::pair<MemoryCategory, StringRef>>> tags;
  for (Location loc : plannedLocs)
    tags.push_back(getTaggedCategory(loc));
  auto categoryOf = [&](unsigned i) {
    return tags[i] ? tags[i]->first : MemoryCategory::Temporaries;
  };
  SmallVector<SmallVector<unsigned>> chains(arenaPlan.slotBytes.size());
  for (unsigned i = 0; i < buffers.size(); ++i)
    chains[arenaPlan.slotOf[i]].push_back(i);
  std::vector<SmallVector<int64_t>> delta(kNumMemoryCategories,
                                          SmallVector<int64_t>(positions + 1));
  for (auto [slot, chain] : llvm::enumerate(chains)) {
    llvm::stable_sort(chain, [&](unsigned x, unsigned y) {
      return buffers[x].live.start < buffers[y].live.start;
    });
    int64_t end = 0;
    for (unsigned i : chain)
      end = std::max(end, buffers[i].live.end);
    for (auto [k, i] : llvm::enumerate(chain)) {
      int64_t from = buffers[i].live.start;
      int64_t to =
          k + 1 < chain.size() ? buffers[chain[k + 1]].live.start - 1 : end;
      from = std::min(from, positions);
      to = std::min(to, positions - 1);
      if (from > to)
        continue;
      delta[unsigned(categoryOf(i))][from] += arenaPlan.slotBytes[slot];
      delta[unsigned(categoryOf(i))][to + 1] -= arenaPlan.slotBytes[slot];
    }
  }
  std::vector<SmallVector<int64_t>> lines(kNumMemoryCategories);
  for (unsigned c = 0; c < kNumMemoryCategories; ++c) {
    int64_t live = fixed[c];
    for (int64_t p = 0; p < positions; ++p) {
      live += delta[c][p];
      lines[c].push_back(live);
    }
  }

  // At the planned peak (the first position of the most bytes): each
  // category's bytes, and the arena's bytes no live slot holds there.
  int64_t peak = 0;
  for (int64_t p = 0; p < positions; ++p)
    if (timeline[p] > timeline[peak])
      peak = p;
  SmallVector<NamedAttribute> atPeak, perPosition;
  int64_t inArena = 0;
  for (unsigned c = 0; c < kNumMemoryCategories; ++c) {
    StringRef name = getMemoryCategoryName(MemoryCategory(c));
    if (MemoryCategory(c) == MemoryCategory::HostOffload)
      continue;
    int64_t bytes = positions ? lines[c][peak] : fixed[c];
    inArena += bytes - fixed[c];
    atPeak.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(bytes)));
    perPosition.push_back(
        b.getNamedAttr(name, b.getDenseI64ArrayAttr(lines[c])));
  }
  atPeak.push_back(
      b.getNamedAttr("free", b.getI64IntegerAttr(arenaPlan.size - inArena)));

  // Every planned buffer, for a timeline of the arena (echo.memory_snapshot).
  SmallVector<Attribute> slots;
  for (auto [i, loc] : llvm::enumerate(plannedLocs)) {
    StringRef op = tags[i] ? tags[i]->second : StringRef("memref.alloc");
    slots.push_back(b.getDictionaryAttr({
        b.getNamedAttr("offset", b.getI64IntegerAttr(arenaPlan.offsets[i])),
        b.getNamedAttr("bytes", b.getI64IntegerAttr(buffers[i].bytes)),
        b.getNamedAttr("first", b.getI64IntegerAttr(buffers[i].live.start)),
        b.getNamedAttr("last", b.getI64IntegerAttr(buffers[i].live.end)),
        b.getNamedAttr("category",
                       b.getStringAttr(getMemoryCategoryName(categoryOf(i)))),
        b.getNamedAttr("op", b.getStringAttr(op)),
        b.getNamedAttr("loc", b.getStringAttr(sourceLocation(loc))),
    }));
  }
  return {
      b.getNamedAttr("peak_position", b.getI64IntegerAttr(peak)),
      b.getNamedAttr("categories", b.getDictionaryAttr(atPeak)),
      b.getNamedAttr("category_timeline", b.getDictionaryAttr(perPosition)),
      b.getNamedAttr("slots", b.getArrayAttr(slots)),
  };
}
