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

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

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

/// Reductions with at most this many outputs and at least this many values
/// folded into each run a block per output (reduceAcrossBlock): a thread
/// per output leaves most of an H100's 132 multiprocessors idle below about
/// 8k outputs (32 blocks of 256 threads).
constexpr int64_t kMaxBlockReductionOutputs = 8192;
constexpr int64_t kMinBlockReductionInputs = 1024;

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
      if (succeeded(reduceAcrossBlock(op, rewriter)))
        continue;
      op = parallelDimsFirst(op, rewriter);
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
        return op.emitOpError("echo-map-to-gpu: cannot lower to loops");
      rewriter.eraseOp(op);
    }
    return success();
  }

  /// The all-reduce of a combiner (the op that folds a value into a
  /// reduction's accumulator), if the GPU dialect has one.
  static std::optional<gpu::AllReduceOperation> allReduceOf(Operation *op) {
    using K = gpu::AllReduceOperation;
    return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
        .Case([](arith::AddFOp) { return K::ADD; })
        .Case([](arith::AddIOp) { return K::ADD; })
        .Case([](arith::MulFOp) { return K::MUL; })
        .Case([](arith::MulIOp) { return K::MUL; })
        .Case([](arith::MaximumFOp) { return K::MAXIMUMF; })
        .Case([](arith::MinimumFOp) { return K::MINIMUMF; })
        .Case([](arith::MaxNumFOp) { return K::MAXNUMF; })
        .Case([](arith::MinNumFOp) { return K::MINNUMF; })
        .Case([](arith::MaxSIOp) { return K::MAXSI; })
        .Case([](arith::MinSIOp) { return K::MINSI; })
        .Default([](Operation *) { return std::nullopt; });
  }

  /// A top-level reduction with few outputs and many inputs each (a
  /// batch-norm statistic: 64 channels of 32x112x112 values; a loss chunk's
  /// row sums over the vocabulary) would map one thread to each output, and
  /// a few hundred threads would each add up 10^4-10^5 values. It becomes
  /// one gpu.launch with one block per output: the block's threads each fold
  /// a strided share of the reduced values (the op's own body, from the
  /// combiner's neutral element), gpu.all_reduce folds the threads' values
  /// in a fixed tree, and thread 0 folds that into the output. The sums come
  /// in another order than a sequential loop's (not bitwise the same, as
  /// with any parallel reduction), the same on every run. Applies to
  /// generic ops whose outputs are all f32/f64/i32 reductions of one combiner
  /// op each (arith add, mul, min, max), with static bounds; others stay.
  LogicalResult reduceAcrossBlock(linalg::LinalgOp op, IRRewriter &rewriter) {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic || op->getParentOp() != op->getParentOfType<func::FuncOp>())
      return failure();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t outputs = 1, reduced = 1;
    SmallVector<unsigned> parallelDims, reductionDims;
    for (auto [d, iterator] : llvm::enumerate(iterators)) {
      if (ShapedType::isDynamic(ranges[d]))
        return failure();
      if (linalg::isParallelIterator(iterator)) {
        parallelDims.push_back(d);
        outputs *= ranges[d];
      } else {
        reductionDims.push_back(d);
        reduced *= ranges[d];
      }
    }
    if (reductionDims.empty() || outputs > kMaxBlockReductionOutputs ||
        reduced < kMinBlockReductionInputs)
      return failure();
    Block *body = generic.getBody();
    SmallVector<BlockArgument> outArgs =
        llvm::to_vector(generic.getRegionOutputArgs());
    SmallVector<Operation *> combiners;
    for (unsigned i = 0; i < outArgs.size(); ++i) {
      SmallVector<Operation *> chain;
      if (!matchReduction(outArgs, i, chain) || chain.size() != 1 ||
          !allReduceOf(chain.front()) ||
          !arith::getNeutralElement(chain.front()))
        return failure();
      // The types gpu.all_reduce lowers to shuffles for (f64 in two 32-bit
      // halves): f32 statistics accumulate in f64.
      Type type = outArgs[i].getType();
      if (!type.isF32() && !type.isF64() && !type.isInteger(32))
        return failure();
      // Each output is indexed by the parallel dimensions alone.
      AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(i));
      for (unsigned d : reductionDims)
        if (map.isFunctionOfDim(d))
          return failure();
      combiners.push_back(chain.front());
    }

    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value one = index(1);
    auto launch = gpu::LaunchOp::create(rewriter, loc, index(outputs), one, one,
                                        index(blockSize), one, one);
    Block &launchBody = launch.getBody().front();
    rewriter.setInsertionPointToEnd(&launchBody);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    rewriter.setInsertionPoint(terminator);
    Value blockId = launch.getBlockIds().x;
    Value threadId = launch.getThreadIds().x;
    Value threads = launch.getBlockSize().x;

    // The loop indices, in the op's dimension order: the parallel ones
    // from the block id, the reduction ones (inside the loop) from its index.
    SmallVector<Value> ivs(iterators.size());
    auto delinearize = [&](Value linear, ArrayRef<unsigned> dims) {
      for (unsigned d : llvm::reverse(dims)) {
        Value extent = index(ranges[d]);
        ivs[d] = arith::RemUIOp::create(rewriter, loc, linear, extent);
        linear = arith::DivUIOp::create(rewriter, loc, linear, extent);
      }
    };
    delinearize(blockId, parallelDims);

    SmallVector<Value> neutral;
    for (Operation *combiner : combiners)
      neutral.push_back(arith::ConstantOp::create(
          rewriter, loc, *arith::getNeutralElement(combiner)));
    auto loop = scf::ForOp::create(rewriter, loc, threadId, index(reduced),
                                   threads, neutral);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      delinearize(loop.getInductionVar(), reductionDims);
      IRMapping mapping;
      for (OpOperand *input : op.getDpsInputOperands()) {
        Value value = input->get();
        if (isa<MemRefType>(value.getType())) {
          std::optional<SmallVector<Value, 8>> indices =
              affine::expandAffineMap(rewriter, loc,
                                      op.getMatchingIndexingMap(input), ivs);
          value = memref::LoadOp::create(rewriter, loc, value, *indices);
        }
        mapping.map(op.getMatchingBlockArgument(input), value);
      }
      mapping.map(outArgs, loop.getRegionIterArgs());
      for (Operation &inner : body->without_terminator()) {
        if (auto idx = dyn_cast<linalg::IndexOp>(inner)) {
          mapping.map(idx.getResult(), ivs[idx.getDim()]);
          continue;
        }
        rewriter.clone(inner, mapping);
      }
      SmallVector<Value> next;
      for (Value v : body->getTerminator()->getOperands())
        next.push_back(mapping.lookup(v));
      scf::YieldOp::create(rewriter, loc, next);
    }

    // Every thread takes part in the block's all-reduce; thread 0 folds the
    // block's value into the output.
    SmallVector<Value> blockValues;
    for (auto [combiner, partial] : llvm::zip(combiners, loop.getResults()))
      blockValues.push_back(
          gpu::AllReduceOp::create(rewriter, loc, partial,
                                   gpu::AllReduceOperationAttr::get(
                                       &getContext(), *allReduceOf(combiner)),
                                   rewriter.getUnitAttr()));
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        threadId, index(0));
    auto ifFirst = scf::IfOp::create(rewriter, loc, first);
    rewriter.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
    for (auto [i, combiner] : llvm::enumerate(combiners)) {
      OpOperand *init = op.getDpsInitOperand(i);
      std::optional<SmallVector<Value, 8>> indices = affine::expandAffineMap(
          rewriter, loc, op.getMatchingIndexingMap(init), ivs);
      // The reduction ivs are not defined here; outputs do not use them.
      Value old = memref::LoadOp::create(rewriter, loc, init->get(), *indices);
      IRMapping mapping;
      for (Value operand : combiner->getOperands())
        mapping.map(operand, operand == outArgs[i] ? old : blockValues[i]);
      Operation *folded = rewriter.clone(*combiner, mapping);
      memref::StoreOp::create(rewriter, loc, folded->getResult(0), init->get(),
                              *indices);
    }
    rewriter.eraseOp(op);
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
      if (isa<gpu::LaunchOp>(op)) { // a reduction across a block
        if (failed(wrapSequential(run, rewriter)))
          return failure();
        continue;
      }
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
