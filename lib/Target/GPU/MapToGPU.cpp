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
/// Reductions along rows (the values of one output are consecutive in
/// memory: a layer norm's statistics, a softmax's row sums) of at least
/// this many values each also run a block per output, however many outputs
/// there are: a thread per output would read rows apart (one cache line per
/// thread and load), and a few thousand outputs are a few SMs' threads.
/// Such a block has a thread per 4 values, at least a warp, at most
/// block-size.
constexpr int64_t kMinRowReductionInputs = 32;

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
    if (reductionDims.empty())
      return failure();
    bool few = outputs <= kMaxBlockReductionOutputs &&
               reduced >= kMinBlockReductionInputs;
    // Along rows: an input's last (fastest-varying) index is reduced.
    bool alongRows =
        reduced >= kMinRowReductionInputs &&
        llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
          AffineMap map = op.getMatchingIndexingMap(input);
          if (map.getNumResults() == 0)
            return false;
          auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
          return last &&
                 !linalg::isParallelIterator(iterators[last.getPosition()]);
        });
    if (!few && !alongRows)
      return failure();
    int64_t blockThreads =
        few ? int64_t(blockSize)
            : std::clamp<int64_t>(
                  int64_t(llvm::bit_floor(uint64_t(reduced / 4))),
                  std::min<int64_t>(32, blockSize), blockSize);
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
                                        index(blockThreads), one, one);
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
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (scf::ParallelOp columns = threadsOverColumns(loop, rewriter)) {
          if (failed(wrapSequential(run, rewriter)) ||
              failed(mapParallelLoop(columns, rewriter)))
            return failure();
          continue;
        }
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

  /// The buffer a view-like op (subview, reshape, cast) looks into, through
  /// any number of them; a memref.view of the arena is a buffer of its own
  /// (the planner keeps buffers live at once apart).
  static Value rootBuffer(Value memref) {
    while (Operation *def = memref.getDefiningOp()) {
      auto view = dyn_cast<ViewLikeOpInterface>(def);
      if (!view || isa<memref::ViewOp>(def))
        break;
      memref = view.getViewSource();
    }
    return memref;
  }

  /// A sequential top-level loop whose iterations each run elementwise
  /// loops over one index space P and touch, at each point p of P, only
  /// elements at p of their buffers (an embedding gradient: for each token
  /// i, table[ids[i], p] += dy[i, p]). Iterations depend on each other
  /// (two tokens may share a row), points of P never do, so the loop can
  /// run in one thread per point, each thread running all iterations in
  /// their order (the same sums, bitwise, as the one sequential thread).
  /// Returns that `scf.parallel` over P around the loop, in place of
  /// `loop`, or null when the loop is not of this form:
  /// - its body holds only pure ops without regions, loads of buffers the
  ///   loop does not write (the ids), subviews of buffers defined before
  ///   the loop, and `scf.parallel` loops over the same constant P;
  /// - inside those, only pure ops, and loads and stores whose last
  ///   indices are the loop's ivs, into buffers defined before the loop or
  ///   subviews of them that keep those dimensions whole (offset 0, full
  ///   size, stride 1) where P spans more than one index, so that each
  ///   point p of P reaches the same elements of a buffer, whichever view
  ///   reaches them (and no other point's: no 0 strides); different views
  ///   into one buffer must come from one base.
  scf::ParallelOp threadsOverColumns(scf::ForOp loop, IRRewriter &rewriter) {
    if (loop.getNumResults() != 0)
      return nullptr;
    auto outside = [&](Value v) {
      return !loop->isAncestor(v.getParentBlock()->getParentOp());
    };
    SmallVector<scf::ParallelOp> inner;
    SmallVector<Value> loaded;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (auto parallel = dyn_cast<scf::ParallelOp>(op)) {
        inner.push_back(parallel);
        continue;
      }
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        loaded.push_back(load.getMemRef());
        continue;
      }
      if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
        if (!outside(subview.getSource()))
          return nullptr;
        continue;
      }
      if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
        return nullptr;
    }
    if (inner.empty())
      return nullptr;
    // One index space, constant, from 0 by 1.
    SmallVector<int64_t> space;
    for (scf::ParallelOp parallel : inner) {
      SmallVector<int64_t> ubs;
      for (auto [lb, ub, step] :
           llvm::zip(parallel.getLowerBound(), parallel.getUpperBound(),
                     parallel.getStep())) {
        std::optional<int64_t> u = getConstantIntValue(ub);
        if (!isConstantIntValue(lb, 0) || !isConstantIntValue(step, 1) || !u)
          return nullptr;
        ubs.push_back(*u);
      }
      if (parallel.getNumResults() != 0 || (!space.empty() && space != ubs))
        return nullptr;
      space = ubs;
    }
    unsigned rank = space.size();
    // Each buffer reached inside: the base it is reached through.
    llvm::DenseMap<Value, Value> baseOfRoot;
    llvm::DenseSet<Value> written;
    auto reach = [&](Value memref, ValueRange indices, ValueRange ivs) {
      auto type = cast<MemRefType>(memref.getType());
      // linalg's loops index through identity affine.applys.
      auto plain = [](Value index) {
        auto apply = index.getDefiningOp<affine::AffineApplyOp>();
        return apply && apply.getAffineMap().isIdentity() ? apply.getOperand(0)
                                                          : index;
      };
      if (indices.size() < rank ||
          !llvm::equal(llvm::map_range(indices.take_back(rank), plain), ivs))
        return false;
      Value base = memref;
      if (!outside(memref)) {
        auto subview = memref.getDefiningOp<memref::SubViewOp>();
        if (!subview)
          return false;
        base = subview.getSource();
        auto source = cast<MemRefType>(base.getType());
        if (source.getRank() != type.getRank())
          return false;
        unsigned first = type.getRank() - rank;
        for (unsigned d = first; d < type.getRank(); ++d)
          if (space[d - first] != 1 &&
              (subview.getStaticOffsets()[d] != 0 ||
               subview.getStaticStrides()[d] != 1 || source.isDynamicDim(d) ||
               subview.getStaticSizes()[d] != source.getDimSize(d)))
            return false;
      }
      // The base maps the points to distinct elements (no 0 strides).
      auto baseType = cast<MemRefType>(base.getType());
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(baseType.getStridesAndOffset(strides, offset)))
        return false;
      for (unsigned k = 0; k < rank; ++k)
        if (space[k] != 1 && strides[strides.size() - rank + k] == 0)
          return false;
      Value &known = baseOfRoot[rootBuffer(base)];
      if (known && known != base)
        return false;
      known = base;
      return true;
    };
    for (scf::ParallelOp parallel : inner) {
      SmallVector<Value> ivs(parallel.getInductionVars());
      WalkResult walk = parallel.getBody()->walk([&](Operation *op) {
        if (auto load = dyn_cast<memref::LoadOp>(op))
          return reach(load.getMemRef(), load.getIndices(), ivs)
                     ? WalkResult::advance()
                     : WalkResult::interrupt();
        if (auto store = dyn_cast<memref::StoreOp>(op)) {
          written.insert(rootBuffer(store.getMemRef()));
          return reach(store.getMemRef(), store.getIndices(), ivs)
                     ? WalkResult::advance()
                     : WalkResult::interrupt();
        }
        if (isa<scf::ReduceOp>(op) && op->getNumOperands() == 0)
          return WalkResult::advance();
        return op->getNumRegions() == 0 && isMemoryEffectFree(op)
                   ? WalkResult::advance()
                   : WalkResult::interrupt();
      });
      if (walk.wasInterrupted())
        return nullptr;
    }
    for (Value memref : loaded)
      if (written.contains(rootBuffer(memref)))
        return nullptr;

    // scf.parallel over P { scf.for { the body, each inner loop's body at
    // the thread's point } }.
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    SmallVector<Value> zeros(rank), ones(rank), ubs;
    for (unsigned d = 0; d < rank; ++d) {
      zeros[d] = arith::ConstantIndexOp::create(rewriter, loc, 0);
      ones[d] = arith::ConstantIndexOp::create(rewriter, loc, 1);
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, space[d]));
    }
    auto columns = scf::ParallelOp::create(rewriter, loc, zeros, ubs, ones);
    rewriter.setInsertionPointToStart(columns.getBody());
    auto sequential = scf::ForOp::create(rewriter, loc, loop.getLowerBound(),
                                         loop.getUpperBound(), loop.getStep());
    rewriter.setInsertionPointToStart(sequential.getBody());
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), sequential.getInductionVar());
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto parallel = dyn_cast<scf::ParallelOp>(op);
      if (!parallel) {
        rewriter.clone(op, mapping);
        continue;
      }
      mapping.map(parallel.getInductionVars(), columns.getInductionVars());
      for (Operation &inside : parallel.getBody()->without_terminator())
        rewriter.clone(inside, mapping);
    }
    rewriter.eraseOp(loop);
    return columns;
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
