//===- VerifyBufferPlan.cpp - echo-verify-buffer-plan ---------------------===//
//
// Part of the Echo project.
//
// The checker of echo-plan-buffers' arena: it reads the offsets back from
// the IR (the views of the arena), recomputes liveness with the model the
// planner used (echo/Analysis/BufferPlan.h) and fails on any two buffers
// that overlap while both are live, except where the planner's own in-place
// rule allows it. It trusts nothing the planner recorded but the alignment.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/BufferPlan.h"
#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Threading.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOVERIFYBUFFERPLAN
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

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
