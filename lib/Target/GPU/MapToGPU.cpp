//===- MapToGPU.cpp - Map a planned step onto GPU blocks and threads ------===//
//
// Part of the Echo project.
//
// echo-map-to-gpu (see Passes.td): a bufferized, planned step becomes
// parallel loops mapped to blocks and threads, with the sequential leftovers
// in single-thread launches (memref level), ready for
// convert-parallel-loops-to-gpu.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <numeric>

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOMAPTOGPU
#include "echo/Target/GPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// True for ops the host may run on device buffers: they only compute
/// addresses or scalars, or call into the runtime.
bool staysOnHost(Operation *op) {
  if (isa<func::CallOp>(op))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

struct EchoMapToGPUPass
    : public echo::impl::EchoMapToGPUBase<EchoMapToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (blockSize < 1 || blockSize > 1024) {
      func.emitError() << "echo-map-to-gpu: block-size must be in [1, 1024], "
                          "got "
                       << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    if (!func.getBody().hasOneBlock()) {
      func.emitError("echo-map-to-gpu: expects a single-block function body "
                     "(run it before convert-scf-to-cf)");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    if (failed(lowerToParallelLoops(func, rewriter)) ||
        failed(mapTopLevelOps(func, rewriter)))
      return signalPassFailure();
  }

  /// memref.copy -> linalg.copy, then every linalg op -> scf.parallel.
  LogicalResult lowerToParallelLoops(func::FuncOp func, IRRewriter &rewriter) {
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
    SmallVector<linalg::LinalgOp> linalgOps;
    func.walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
    for (linalg::LinalgOp op : linalgOps) {
      if (!op.hasPureBufferSemantics())
        return op.emitOpError("echo-map-to-gpu: expects bufferized IR");
      op = parallelDimsFirst(op, rewriter);
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
        return op.emitOpError("echo-map-to-gpu: cannot lower to loops");
      rewriter.eraseOp(op);
    }
    return success();
  }

  /// A generic op whose reduction dimension comes before a parallel one (a
  /// bias gradient: column sums over rows) would lower to an outer scf.for,
  /// and the whole op would run in one thread. Interchanged so that its
  /// parallel dimensions come first (in their order, then the reductions in
  /// theirs), it maps to blocks and threads, each thread running its own
  /// reduction in the same order as before: the sums are bitwise the same.
  static linalg::LinalgOp parallelDimsFirst(linalg::LinalgOp op,
                                            IRRewriter &rewriter) {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic)
      return op;
    SmallVector<utils::IteratorType> iterators =
        generic.getIteratorTypesArray();
    SmallVector<unsigned> order;
    for (unsigned d = 0; d < iterators.size(); ++d)
      if (linalg::isParallelIterator(iterators[d]))
        order.push_back(d);
    if (order.empty() || order.size() == iterators.size())
      return op;
    for (unsigned d = 0; d < iterators.size(); ++d)
      if (!linalg::isParallelIterator(iterators[d]))
        order.push_back(d);
    if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
      return op;
    FailureOr<linalg::GenericOp> swapped =
        linalg::interchangeGenericOp(rewriter, generic, order);
    return succeeded(swapped) ? cast<linalg::LinalgOp>(swapped->getOperation())
                              : op;
  }

  LogicalResult mapTopLevelOps(func::FuncOp func, IRRewriter &rewriter) {
    SmallVector<Operation *> run;
    for (Operation &op :
         llvm::make_early_inc_range(func.front().without_terminator())) {
      if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(op))
        return op.emitOpError()
               << "echo-map-to-gpu: a GPU step's memory is its arguments "
                  "and the planned arena; run echo-plan-buffers first (this "
                  "buffer would live in host memory)";
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        if (failed(wrapSequential(run, rewriter)) ||
            failed(mapParallelLoop(loop, rewriter)))
          return failure();
        continue;
      }
      // A scalar computed from device results (a 0-d op's loads: the sum
      // of two scalar losses) is device code too; a runtime call stays on
      // the host (reading such a scalar is an error, below).
      if (staysOnHost(&op) && (isa<func::CallOp>(op) || !readsFrom(&op, run))) {
        if (failed(wrapSequential(run, rewriter)))
          return failure();
        continue;
      }
      run.push_back(&op);
    }
    return wrapSequential(run, rewriter);
  }

  /// True when an operand of `op` is a result of an op in `run` (the
  /// top-level ops from `run.front()` up to `op`).
  static bool readsFrom(Operation *op, ArrayRef<Operation *> run) {
    if (run.empty())
      return false;
    return llvm::any_of(op->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && def->getBlock() == op->getBlock() &&
             !def->isBeforeInBlock(run.front());
    });
  }

  /// Collapses `loop` to one dimension, tiles it by the block size and maps
  /// the tiles to blocks and the elements of a tile to threads.
  LogicalResult mapParallelLoop(scf::ParallelOp loop, IRRewriter &rewriter) {
    if (loop.getNumResults() != 0)
      return loop.emitOpError("echo-map-to-gpu: parallel loops with "
                              "reductions are not supported");
    Operation *next = loop->getNextNode();
    if (loop.getNumLoops() > 1) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      collapseParallelLoops(rewriter, loop, {all});
      loop = nullptr;
      for (Operation *op = next->getPrevNode(); op; op = op->getPrevNode())
        if ((loop = dyn_cast<scf::ParallelOp>(op)))
          break;
      if (!loop)
        return next->emitError("echo-map-to-gpu: collapsing a loop nest lost "
                               "the loop");
    }
    int64_t tile = blockSize;
    if (std::optional<int64_t> trips = constantTripCount(loop))
      tile = std::max<int64_t>(1, std::min(*trips, tile));
    auto [outer, inner] =
        scf::tileParallelLoop(loop, {tile}, /*noMinMaxBounds=*/true);
    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto map = [&](scf::ParallelOp ploop, gpu::Processor processor) {
      return gpu::setMappingAttr(ploop, {gpu::ParallelLoopDimMappingAttr::get(
                                            ctx, processor, id, id)});
    };
    if (failed(map(outer, gpu::Processor::BlockX)) ||
        failed(map(inner, gpu::Processor::ThreadX)))
      return outer.emitOpError("echo-map-to-gpu: cannot map the loop");
    return success();
  }

  static std::optional<int64_t> constantTripCount(scf::ParallelOp loop) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[0]);
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[0]);
    std::optional<int64_t> step = getConstantIntValue(loop.getStep()[0]);
    if (!lb || !ub || !step || *step <= 0)
      return std::nullopt;
    return llvm::divideCeil(*ub - *lb, *step);
  }

  /// Moves the ops of `run` (consecutive top-level ops) into one
  /// single-thread gpu.launch, with the parallel loops inside made
  /// sequential. Clears `run`.
  LogicalResult wrapSequential(SmallVectorImpl<Operation *> &run,
                               IRRewriter &rewriter) {
    if (run.empty())
      return success();
    llvm::SmallPtrSet<Operation *, 8> members(run.begin(), run.end());
    for (Operation *op : run)
      for (Operation *user : op->getUsers())
        if (!members.contains(op->getBlock()->findAncestorOpInBlock(*user)))
          return op->emitOpError("echo-map-to-gpu: a result of device code "
                                 "is used on the host");
    Location loc = run.front()->getLoc();
    rewriter.setInsertionPoint(run.front());
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto launch =
        gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    rewriter.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    for (Operation *op : run)
      op->moveBefore(terminator);
    run.clear();

    SmallVector<scf::ParallelOp> loops;
    launch.walk([&](scf::ParallelOp loop) { loops.push_back(loop); });
    for (scf::ParallelOp loop : loops) {
      if (loop.getNumResults() != 0)
        return loop.emitOpError("echo-map-to-gpu: parallel loops with "
                                "reductions are not supported");
      rewriter.setInsertionPoint(loop);
      scf::buildLoopNest(
          rewriter, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
          loop.getStep(), [&](OpBuilder &b, Location, ValueRange ivs) {
            IRMapping mapping;
            mapping.map(loop.getInductionVars(), ivs);
            for (Operation &op : loop.getBody()->without_terminator())
              b.clone(op, mapping);
          });
      rewriter.eraseOp(loop);
    }
    return success();
  }
};

} // namespace
