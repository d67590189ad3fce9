//===- PlanBuffers.cpp - echo-plan-buffers, echo-verify-buffer-plan -------===//
//
// Part of the Echo project.
//
// Chen et al. 2016 §3 and SuperNeurons §3.2: once liveness is known, one
// static arena with shared offsets replaces the step's many allocations.
// The planner and the checker share only the liveness model and the
// in-place rule (echo/Analysis/BufferPlan.h); the checker reads the offsets
// back from the IR.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/BufferPlan.h"
#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOPLANBUFFERS
#define GEN_PASS_DEF_ECHOVERIFYBUFFERPLAN
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

/// Fails with a diagnostic unless `func` can be planned or checked: one
/// block, and no ownership-based deallocation yet.
static LogicalResult checkPlannable(func::FuncOp func, StringRef pass) {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << pass
                            << ": needs a function body of one block (run it "
                               "before convert-scf-to-cf)";
  WalkResult walk = func.walk([&](bufferization::DeallocOp dealloc) {
    dealloc.emitError() << pass
                        << ": run it before buffer-deallocation-pipeline "
                           "(the IR already has bufferization.dealloc)";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

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
  SmallVector<memref::AllocOp> candidates;
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
      auto it = indexOf.find(operand);
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

  func->setAttr(
      EchoDialect::getBufferPlanAttrName(),
      b.getDictionaryAttr({
          b.getNamedAttr("arena_bytes", b.getI64IntegerAttr(arenaPlan.size)),
          b.getNamedAttr("lower_bound_bytes",
                         b.getI64IntegerAttr(arenaPlan.lowerBound)),
          b.getNamedAttr("buffers", b.getI64IntegerAttr(planned.size())),
          b.getNamedAttr("in_place", b.getI64IntegerAttr(inPlace.size())),
          b.getNamedAttr("alignment", b.getI64IntegerAttr(alignment)),
          b.getNamedAttr("heuristic", b.getStringAttr(arenaPlan.heuristic)),
      }));
  return success();
}

//===----------------------------------------------------------------------===//
// Checker
//===----------------------------------------------------------------------===//

namespace {
struct PlacedView {
  Operation *view;
  int64_t offset;
  int64_t bytes;
  LiveInterval live;
};

struct EchoVerifyBufferPlanPass
    : public echo::impl::EchoVerifyBufferPlanBase<EchoVerifyBufferPlanPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    if (failed(failableParallelForEach(
            &getContext(), funcs, [&](func::FuncOp f) { return verify(f); })))
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult verify(func::FuncOp func);
};
} // namespace

/// The arena of `func`: the alloc or argument marked `echo.arena`.
static FailureOr<Value> findArena(func::FuncOp func) {
  Value arena;
  auto take = [&](Value candidate, Location loc) -> LogicalResult {
    if (arena)
      return emitError(loc) << "echo-verify-buffer-plan: @" << func.getSymName()
                            << " has two arenas";
    arena = candidate;
    return success();
  };
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, EchoDialect::getArenaAttrName()) &&
        failed(take(func.getArgument(i), func.getLoc())))
      return failure();
  WalkResult walk = func.walk([&](memref::AllocOp alloc) {
    if (alloc->hasAttr(EchoDialect::getArenaAttrName()) &&
        failed(take(alloc, alloc.getLoc())))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return arena;
}

LogicalResult EchoVerifyBufferPlanPass::verify(func::FuncOp func) {
  FailureOr<Value> arena = findArena(func);
  if (failed(arena))
    return failure();
  auto plan =
      func->getAttrOfType<DictionaryAttr>(EchoDialect::getBufferPlanAttrName());
  if (!*arena)
    return success(); // Nothing planned (or nothing to plan).
  if (failed(checkPlannable(func, "echo-verify-buffer-plan")))
    return failure();
  int64_t alignment = 1;
  if (plan)
    if (auto a = plan.getAs<IntegerAttr>("alignment"))
      alignment = a.getInt();
  int64_t arenaBytes = getTensorBytes(arena->getType());

  BufferLiveness liveness(func);
  SmallVector<PlacedView> views;
  for (Operation *user : arena->getUsers()) {
    if (isa<memref::DeallocOp>(user))
      continue;
    auto view = dyn_cast<memref::ViewOp>(user);
    if (!view)
      return user->emitError() << "echo-verify-buffer-plan: the arena may "
                                  "only be used through memref.view";
    std::optional<int64_t> offset = getConstantIntValue(view.getByteShift());
    if (!offset || !view.getType().hasStaticShape())
      return view.emitError() << "echo-verify-buffer-plan: a view of the "
                                 "arena needs a constant offset and a "
                                 "static shape";
    int64_t bytes = getTensorBytes(view.getType());
    if (*offset < 0 || *offset + bytes > arenaBytes)
      return view.emitError()
             << "echo-verify-buffer-plan: bytes [" << *offset << ", "
             << *offset + bytes << ") lie outside the arena of " << arenaBytes
             << " bytes";
    if (*offset % alignment != 0)
      return view.emitError()
             << "echo-verify-buffer-plan: offset " << *offset
             << " is not a multiple of the plan's alignment " << alignment;
    FailureOr<LiveInterval> live = liveness.getInterval(view);
    if (failed(live)) {
      if (view->use_empty())
        continue;
      return view.emitError() << "echo-verify-buffer-plan: a view of the "
                                 "arena is returned by the function";
    }
    views.push_back({view, *offset, bytes, *live});
  }

  // Sweep in order of start; compare with every view still live.
  llvm::sort(views, [](const PlacedView &a, const PlacedView &b) {
    return std::make_pair(a.live.start, a.offset) <
           std::make_pair(b.live.start, b.offset);
  });
  SmallVector<PlacedView *> active;
  for (PlacedView &v : views) {
    llvm::erase_if(active,
                   [&](PlacedView *a) { return a->live.end < v.live.start; });
    for (PlacedView *a : active) {
      if (a->offset >= v.offset + v.bytes || v.offset >= a->offset + a->bytes)
        continue;
      if (a->offset == v.offset &&
          liveness.canReuseInPlace(a->view->getResult(0), a->live,
                                   v.view->getResult(0), v.live))
        continue;
      Operation *at = liveness.getOperation(v.live.start);
      InFlightDiagnostic diag =
          v.view->emitError()
          << "echo-verify-buffer-plan: bytes [" << v.offset << ", "
          << v.offset + v.bytes << ") of this buffer overlap bytes ["
          << a->offset << ", " << a->offset + a->bytes
          << ") of another buffer while both are live (at '" << at->getName()
          << "', top-level op " << v.live.start << ")";
      diag.attachNote(a->view->getLoc()) << "the other buffer";
      return failure();
    }
    active.push_back(&v);
  }
  return success();
}
