//===- ChunkLoss.cpp - The chunked output layer and loss ------------------===//
//
// Part of the Echo project.
//
// A loss over R rows of logits [R, C] made by an output layer (a linear
// layer, or a matmul with or without a broadcast bias) keeps the whole
// logits live from the output layer to the loss's gradient, and the logits
// gradient as large: at paper size the NMT's 6400 × 8000 logits are the
// floor of every recompute plan. Chunking the rows (Liger-Kernel's fused
// linear cross-entropy) keeps one chunk at a time: where the logits
// gradient was formed (the backward pass's first op, right after the loss),
// each chunk's logits are computed once, give the chunk's per-row terms of
// the loss and its logits gradient (`cross_entropy_grad` scaled by the rows
// of the whole loss), and the readers of the logits gradient run on the
// chunk (RowChunkOpInterface: dx's rows are written chunk by chunk, dW and
// db are sums over the chunks). Nothing is recomputed: the output layer
// runs once, in row chunks.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Recompute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"

#include <numeric>

using namespace mlir;
using namespace mlir::echo;

namespace {

/// A pair of reshapes that gives back its input's type (the importer's
/// [B·T, C] → [B, T, C] → [B·T, C] around a module's output): the value it
/// stands for, or `v`.
Value lookThroughReshapes(Value v) {
  auto outer = v.getDefiningOp<ReshapeOp>();
  auto inner = outer ? outer.getX().getDefiningOp<ReshapeOp>() : ReshapeOp();
  if (inner && inner.getX().getType() == v.getType())
    return inner.getX();
  return v;
}

/// The readers of `v`, looking through pairs of reshapes that give back its
/// type (added to `through`).
void collectReaders(Value v, SmallVectorImpl<OpOperand *> &readers,
                    SmallVectorImpl<Operation *> &through) {
  for (OpOperand &use : v.getUses()) {
    auto outer = dyn_cast<ReshapeOp>(use.getOwner());
    if (outer && outer->hasOneUse()) {
      auto inner = dyn_cast<ReshapeOp>(*outer->getUsers().begin());
      if (inner && inner.getType() == v.getType()) {
        through.append({outer, inner});
        collectReaders(inner.getResult(), readers, through);
        continue;
      }
    }
    readers.push_back(&use);
  }
}

/// The output layer and loss of a training step that can be chunked.
struct ChunkableLoss {
  CrossEntropyOp loss;
  CrossEntropyGradOp grad;
  /// The rows [R, H] the output layer maps to the logits.
  Value x;
  /// The output layer's ops from `x` to the logits, in op order: a linear;
  /// a matmul; or a matmul, a broadcast of the bias and their add.
  SmallVector<Operation *> layer;
  /// The readers of the logits gradient, and the reshapes looked through.
  SmallVector<OpOperand *> readers;
  SmallVector<Operation *> through;
  int64_t rows = 0, classes = 0;
};

/// The output layer of `logits`: the ops (in op order) and the rows they
/// map, or none.
std::optional<std::pair<SmallVector<Operation *>, Value>>
matchOutputLayer(Value logits) {
  if (auto linear = logits.getDefiningOp<LinearOp>())
    return std::make_pair(SmallVector<Operation *>{linear}, linear.getX());
  auto rowsOf = [](MatmulOp m) {
    return m.getTransposeA() ? Value() : m.getA();
  };
  if (auto matmul = logits.getDefiningOp<MatmulOp>())
    if (Value x = rowsOf(matmul))
      return std::make_pair(SmallVector<Operation *>{matmul}, x);
  auto add = logits.getDefiningOp<AddOp>();
  if (!add)
    return std::nullopt;
  for (auto [m, bc] : {std::pair(add.getLhs(), add.getRhs()),
                       std::pair(add.getRhs(), add.getLhs())}) {
    auto matmul = m.getDefiningOp<MatmulOp>();
    auto broadcast = bc.getDefiningOp<BroadcastOp>();
    // The bias [C] broadcast along the rows.
    if (!matmul || !broadcast || !rowsOf(matmul) ||
        broadcast.getDimensions() != ArrayRef<int64_t>{0} || m == bc)
      continue;
    SmallVector<Operation *> ops = {matmul, broadcast, add};
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    return std::make_pair(ops, rowsOf(matmul));
  }
  return std::nullopt;
}

std::optional<ChunkableLoss> findChunkableLoss(func::FuncOp func) {
  TrainingStep step(func);
  auto loss = dyn_cast_or_null<CrossEntropyOp>(step.getLossOp());
  if (!loss)
    return std::nullopt;
  ChunkableLoss c;
  c.loss = loss;
  Value logits = loss.getLogits();
  Value produced = lookThroughReshapes(logits);
  auto layer = matchOutputLayer(produced);
  if (!layer)
    return std::nullopt;
  std::tie(c.layer, c.x) = *layer;
  c.rows = cast<RankedTensorType>(produced.getType()).getDimSize(0);
  c.classes = cast<RankedTensorType>(produced.getType()).getDimSize(1);
  if (cast<RankedTensorType>(c.x.getType()).getRank() != 2 || c.rows < 2)
    return std::nullopt;
  // The logits' only readers: the loss and its gradient (through the
  // reshapes); the layer's values are read within the layer only.
  DenseSet<Operation *> allowed(c.layer.begin(), c.layer.end());
  allowed.insert(loss);
  for (OpOperand &use : logits.getUses())
    if (auto grad = dyn_cast<CrossEntropyGradOp>(use.getOwner()))
      if (!c.grad && grad.getLabels() == loss.getLabels() &&
          use.getOperandNumber() == 0)
        c.grad = grad;
  if (!c.grad)
    return std::nullopt;
  // The loss is formed where its gradient is: what reads it comes after.
  for (Operation *user : loss->getUsers()) {
    Operation *ancestor = c.grad->getBlock()->findAncestorOpInBlock(*user);
    if (!ancestor || !c.grad->isBeforeInBlock(ancestor))
      return std::nullopt;
  }
  allowed.insert(c.grad);
  if (logits != produced) {
    Operation *outer = logits.getDefiningOp();
    allowed.insert(outer);
    allowed.insert(outer->getOperand(0).getDefiningOp());
  }
  for (Operation *op : allowed)
    for (Operation *user : op->getUsers())
      if (!allowed.contains(user) && op != loss && op != c.grad)
        return std::nullopt;
  // Every reader of the logits gradient runs on row chunks of it, reads it
  // once, and reads nothing the gradient's position does not see.
  collectReaders(c.grad.getResult(), c.readers, c.through);
  DominanceInfo dominance(func);
  for (OpOperand *use : c.readers) {
    Operation *reader = use->getOwner();
    if (!isa<RowChunkOpInterface>(reader) ||
        reader->getBlock() != c.grad->getBlock() ||
        llvm::count(reader->getOperands(), use->get()) != 1)
      return std::nullopt;
    for (Value operand : reader->getOperands())
      if (operand != use->get() &&
          !dominance.properlyDominates(operand, c.grad))
        return std::nullopt;
  }
  return c;
}

/// `x` [R, ...] restricted to rows [offset, offset + size).
Value sliceRows(OpBuilder &b, Location loc, Value x, int64_t offset,
                int64_t size) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0), sizes(type.getShape());
  offsets[0] = offset;
  sizes[0] = size;
  return SliceOp::create(b, loc, type.clone(sizes), x,
                         b.getDenseI64ArrayAttr(offsets),
                         b.getDenseI64ArrayAttr(sizes));
}

/// Clones the output layer at `b` on the rows `x` stands for (mapped in
/// `mapping`); returns the chunk's logits.
Value cloneLayer(OpBuilder &b, ArrayRef<Operation *> layer, IRMapping &mapping,
                 int64_t rows) {
  Operation *last = nullptr;
  for (Operation *op : layer) {
    for (Value operand : op->getOperands())
      if (auto cst = operand.getDefiningOp<arith::ConstantOp>())
        if (!mapping.contains(operand))
          b.clone(*cst, mapping);
    last = b.clone(*op, mapping);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = rows;
    last->getResult(0).setType(type.clone(shape));
  }
  return last->getResult(0);
}

/// Whether `slice` takes every index of its input's dims other than
/// `axis`.
bool takesAllBut(SliceOp slice, int64_t axis) {
  auto whole = cast<RankedTensorType>(slice.getX().getType());
  return llvm::all_of(llvm::seq<int64_t>(0, whole.getRank()), [&](int64_t d) {
    return d == axis || (slice.getOffsets()[d] == 0 &&
                         slice.getSizes()[d] == whole.getDimSize(d));
  });
}

/// The input of the concatenation `slice` reads that is exactly what it
/// takes (the same rows along the concatenation's axis, every index of the
/// other dims), or null.
Value partOfConcat(SliceOp slice) {
  auto concat = slice.getX().getDefiningOp<ConcatOp>();
  int64_t axis = concat ? static_cast<int64_t>(concat.getAxis()) : 0;
  if (!concat || !takesAllBut(slice, axis))
    return {};
  auto type = cast<RankedTensorType>(slice.getType());
  int64_t at = 0;
  for (Value input : concat.getInputs()) {
    if (at == slice.getOffsets()[axis])
      return input.getType() == type ? input : Value();
    at += cast<RankedTensorType>(input.getType()).getDimSize(axis);
  }
  return {};
}

/// The first of `op`'s users in its block, or null.
Operation *firstUser(Operation *op) {
  Operation *first = nullptr;
  for (Operation *user : op->getUsers()) {
    user = op->getBlock()->findAncestorOpInBlock(*user);
    if (user && (!first || user->isBeforeInBlock(first)))
      first = user;
  }
  return first;
}

/// Moves `ops` (in order, in one block) right before the first op outside
/// them that reads one of their results, where that is after them; a
/// reader in a group of `groupOf` (another chunk) counts as that group's
/// first op, so that chunks are never interleaved.
void sinkToFirstReader(ArrayRef<Operation *> ops,
                       const DenseMap<Operation *, Operation *> &groupOf) {
  if (ops.empty())
    return;
  DenseSet<Operation *> own(ops.begin(), ops.end());
  Operation *target = nullptr;
  for (Operation *op : ops)
    for (Operation *user : op->getUsers()) {
      user = op->getBlock()->findAncestorOpInBlock(*user);
      if (!user || own.contains(user))
        continue;
      if (Operation *first = groupOf.lookup(user))
        user = first;
      if (!target || user->isBeforeInBlock(target))
        target = user;
    }
  if (!target || target->isBeforeInBlock(ops.back()))
    return;
  for (Operation *op : ops)
    op->moveBefore(target);
}

/// The order in which chunks are built: by where their rows of a row-wise
/// reader's result are first read, where every such result is read only
/// by slices taking one chunk's rows each (the gradient of a concatenation
/// of the rows: one decoder step per chunk); chunks whose rows nothing
/// reads come last. Row order where no reader is such.
SmallVector<size_t> readOrder(const ChunkableLoss &c,
                              ArrayRef<std::pair<int64_t, int64_t>> parts) {
  SmallVector<size_t> order(parts.size());
  std::iota(order.begin(), order.end(), 0);
  SmallVector<Operation *> firstRead(parts.size(), nullptr);
  for (OpOperand *use : c.readers) {
    Value result = use->getOwner()->getResult(0);
    SmallVector<std::pair<size_t, Operation *>> reads;
    bool rowWise = !result.use_empty();
    for (Operation *user : result.getUsers()) {
      auto slice = dyn_cast<SliceOp>(user);
      const auto *part =
          slice ? llvm::find_if(parts,
                                [&](auto p) {
                                  return slice.getOffsets()[0] == p.first &&
                                         slice.getSizes()[0] == p.second;
                                })
                : parts.end();
      if (part == parts.end() || !takesAllBut(slice, 0)) {
        rowWise = false;
        break;
      }
      if (Operation *read = firstUser(slice))
        reads.push_back({static_cast<size_t>(part - parts.begin()), read});
    }
    if (!rowWise)
      continue;
    for (auto [k, read] : reads)
      if (!firstRead[k] || read->isBeforeInBlock(firstRead[k]))
        firstRead[k] = read;
  }
  if (llvm::all_of(firstRead, [](Operation *op) { return !op; }))
    return order;
  llvm::sort(order, [&](size_t a, size_t b) {
    Operation *x = firstRead[a], *y = firstRead[b];
    if (x && y && x != y)
      return x->isBeforeInBlock(y);
    if (!x != !y)
      return x != nullptr; // read before unread
    return a < b;
  });
  return order;
}

/// The number of equal row blocks `x` is concatenated from (along dim 0),
/// or 0.
int64_t concatenatedRowBlocks(Value x) {
  auto concat = x.getDefiningOp<ConcatOp>();
  if (!concat || concat.getAxis() != 0 || concat.getInputs().size() < 2)
    return 0;
  return llvm::all_equal(concat.getInputs().getTypes())
             ? static_cast<int64_t>(concat.getInputs().size())
             : 0;
}

/// Records the ops a rewrite creates, to erase them if it fails.
struct Recorder : OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    created.push_back(op);
  }
  SmallVector<Operation *> created;
};

} // namespace

LogicalResult mlir::echo::chunkLoss(func::FuncOp func, int64_t chunks,
                                    bool *placed, bool place) {
  std::optional<ChunkableLoss> found = findChunkableLoss(func);
  if (!found || chunks < 2)
    return failure();
  ChunkableLoss &c = *found;
  int64_t size = llvm::divideCeil(c.rows, chunks);
  SmallVector<std::pair<int64_t, int64_t>> parts; // (offset, rows)
  for (int64_t offset = 0; offset < c.rows; offset += size)
    parts.push_back({offset, std::min(size, c.rows - offset)});
  if (parts.size() < 2)
    return failure();
  // The chunks in the order their rows of the input gradient are first
  // read (a decoder's backward reads its last step's rows first), else in
  // row order.
  SmallVector<size_t> order(parts.size());
  std::iota(order.begin(), order.end(), 0);
  if (place)
    order = readOrder(c, parts);

  // Where the logits gradient was formed: per chunk, the logits, their
  // terms of the loss, their gradient and each reader on the chunk.
  Recorder recorder;
  OpBuilder b(c.grad);
  b.setListener(&recorder);
  Location loc = c.grad.getLoc();
  Value labels = c.loss.getLabels();
  auto f32 = cast<RankedTensorType>(c.loss.getType());
  struct Partial {
    Value sum;
    SmallVector<Value> rows; // by part (row order)
    bool summed = false;
  };
  SmallVector<Partial> partials(c.readers.size());
  for (Partial &partial : partials)
    partial.rows.resize(parts.size());
  SmallVector<Value> terms(parts.size());
  // With ignored rows the mean is over the rows that count, known only from
  // the labels: each chunk's gradient divides by that count, and so does
  // the terms' sum.
  IntegerAttr ignore = c.loss.getIgnoreIndexAttr();
  FloatAttr smoothing = c.loss.getLabelSmoothingAttr();
  Value count, gradCount;
  IntegerAttr totalRows = b.getI64IntegerAttr(c.rows);
  if (ignore) {
    count = LabelCountOp::create(b, loc, f32, labels, ignore);
    gradCount = count;
    if (c.grad.getDloss().getType() != f32)
      gradCount = CastOp::create(b, loc, c.grad.getDloss().getType(), count);
    totalRows = IntegerAttr();
  }
  // The ops each chunk made, in build order.
  SmallVector<SmallVector<Operation *>> chunkOps;
  for (auto [built, k] : llvm::enumerate(order)) {
    auto [offset, rows] = parts[k];
    size_t first = recorder.created.size();
    IRMapping mapping;
    Value x = sliceRows(b, loc, c.x, offset, rows);
    mapping.map(c.x, x);
    Value logits = cloneLayer(b, c.layer, mapping, rows);
    Value chunkLabels = sliceRows(b, loc, labels, offset, rows);
    terms[k] = CrossEntropyTermsOp::create(b, loc, f32.clone({rows}), logits,
                                           chunkLabels, ignore, smoothing);
    auto grad = CrossEntropyGradOp::create(
        b, loc, cast<RankedTensorType>(logits.getType()), logits, chunkLabels,
        c.grad.getDloss(), gradCount, totalRows, ignore, smoothing);
    for (auto [use, partial] : llvm::zip(c.readers, partials)) {
      bool summed = false;
      Value v = cast<RowChunkOpInterface>(use->getOwner())
                    .buildOnRowChunk(b, use->getOperandNumber(), grad, offset,
                                     summed);
      if (!v || (built > 0 && summed != partial.summed)) {
        for (Operation *op : llvm::reverse(recorder.created)) {
          op->dropAllUses();
          op->erase();
        }
        return failure();
      }
      partial.summed = summed;
      if (!summed)
        partial.rows[k] = v;
      else
        partial.sum = partial.sum ? AddOp::create(b, loc, partial.sum, v) : v;
    }
    chunkOps.emplace_back(recorder.created.begin() + first,
                          recorder.created.end());
  }
  size_t tail = recorder.created.size();
  SmallVector<Operation *> wholes;
  for (auto [use, partial] : llvm::zip(c.readers, partials)) {
    Operation *reader = use->getOwner();
    Value whole = partial.sum;
    if (!partial.summed) {
      auto concat = ConcatOp::create(b, loc, reader->getResult(0).getType(),
                                     partial.rows, b.getI64IntegerAttr(0));
      wholes.push_back(concat);
      whole = concat;
    }
    reader->getResult(0).replaceAllUsesWith(whole);
  }
  // loss = Σ terms / R.
  Value all = ConcatOp::create(b, loc, f32.clone({c.rows}), terms,
                               b.getI64IntegerAttr(0));
  Value sum =
      ReduceSumOp::create(b, loc, f32, all, b.getDenseI64ArrayAttr({0}));
  if (!count)
    count = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(f32,
                               b.getFloatAttr(f32.getElementType(), c.rows)));
  Value loss = DivOp::create(b, loc, sum, count);
  SmallVector<Operation *> lossOps(
      recorder.created.begin() + tail + wholes.size(), recorder.created.end());
  b.setListener(nullptr);

  // The unchunked layer, loss and gradient are left without readers.
  int64_t elementBytes =
      getTensorBytes(cast<RankedTensorType>(c.grad.getType()).clone({1, 1}));
  c.loss.getResult().replaceAllUsesWith(loss);
  SmallVector<Operation *> dead;
  for (OpOperand *use : c.readers)
    dead.push_back(use->getOwner());
  llvm::append_range(dead, llvm::reverse(c.through));
  dead.push_back(c.grad);
  dead.push_back(c.loss);
  if (Operation *outer = c.loss.getLogits().getDefiningOp();
      outer && c.loss.getLogits() != lookThroughReshapes(c.loss.getLogits())) {
    dead.push_back(outer);
    dead.push_back(outer->getOperand(0).getDefiningOp());
  }
  llvm::append_range(dead, llvm::reverse(c.layer));
  for (Operation *op : dead) {
    assert(op->use_empty() && "a chunked op still read");
    op->erase();
  }

  // A chunk's rows of the input (a decoder step's output) and of the input
  // gradient (read one step at a time) are the parts of their
  // concatenations: the slices go, and so do the concatenations nothing
  // reads then.
  DenseSet<Operation *> erased;
  auto eraseIfUnread = [&](Operation *op) {
    if (op && op->use_empty() && isa<ConcatOp>(op)) {
      erased.insert(op);
      op->erase();
    }
  };
  for (ArrayRef<Operation *> ops : chunkOps)
    for (Operation *op : ops)
      if (auto slice = dyn_cast<SliceOp>(op))
        if (Value part = partOfConcat(slice)) {
          slice.getResult().replaceAllUsesWith(part);
          erased.insert(slice);
          slice->erase();
        }
  bool placeChunks = place && !wholes.empty();
  for (Operation *whole : wholes) {
    for (Operation *user : llvm::make_early_inc_range(whole->getUsers()))
      if (auto slice = dyn_cast<SliceOp>(user))
        if (Value part = partOfConcat(slice)) {
          slice.getResult().replaceAllUsesWith(part);
          slice->erase();
        }
    placeChunks &= whole->use_empty();
    eraseIfUnread(whole);
  }
  eraseIfUnread(c.x.getDefiningOp());
  for (SmallVector<Operation *> &ops : chunkOps)
    llvm::erase_if(ops, [&](Operation *op) { return erased.contains(op); });

  // The backward pass begins at the first chunk (which stays where the
  // logits gradient was formed).
  assert(!chunkOps.front().empty() && "a chunk always makes its logits");
  chunkOps.front().front()->setAttr(EchoDialect::getBackwardBeginAttrName(),
                                    b.getUnitAttr());

  // Where every chunk's input gradient is read as its own rows, each later
  // chunk runs where its values are first read (the loss where it is
  // read): the whole input gradient is never live at once.
  if (placed)
    *placed = placeChunks;
  if (placeChunks) {
    DenseMap<Operation *, Operation *> groupOf;
    for (ArrayRef<Operation *> ops : chunkOps)
      for (Operation *op : ops)
        groupOf[op] = ops.front();
    sinkToFirstReader(lossOps, groupOf);
    for (ArrayRef<Operation *> ops : llvm::reverse(llvm::drop_begin(chunkOps)))
      sinkToFirstReader(ops, groupOf);
  }

  Builder attrs(func.getContext());
  func->setAttr(
      EchoDialect::getChunkedLossAttrName(),
      attrs.getDictionaryAttr({
          attrs.getNamedAttr("chunks", attrs.getI64IntegerAttr(parts.size())),
          attrs.getNamedAttr("rows", attrs.getI64IntegerAttr(c.rows)),
          attrs.getNamedAttr("chunk_rows", attrs.getI64IntegerAttr(size)),
          attrs.getNamedAttr("logits_bytes_saved",
                             attrs.getI64IntegerAttr((c.rows - size) *
                                                     c.classes * elementBytes)),
      }));
  return success();
}

int64_t mlir::echo::chooseLossChunks(func::FuncOp func, int64_t minChunkRows) {
  std::optional<ChunkableLoss> found = findChunkableLoss(func);
  if (!found)
    return 0;
  int64_t base = computePeakLiveBytes(func);
  int64_t rows = found->rows;
  SmallVector<int64_t> candidates;
  // No chunk of fewer than minChunkRows rows (kMinLossChunkRows: its GEMMs
  // would run well below the whole layer's throughput).
  for (int64_t chunks = 2;
       chunks <= kMaxLossChunks && chunks <= rows &&
       static_cast<int64_t>(llvm::divideCeil(rows, chunks)) >= minChunkRows;
       chunks *= 2)
    candidates.push_back(chunks);
  SmallVector<std::pair<int64_t, int64_t>> peaks; // (chunks, peak)
  // Whether chunking pays, on chunks that stay where the logits gradient
  // is formed.
  for (int64_t chunks : candidates) {
    auto clone = cast<func::FuncOp>(func->clone());
    if (succeeded(chunkLoss(clone, chunks, nullptr, /*place=*/false)))
      peaks.push_back({chunks, computePeakLiveBytes(clone)});
    clone.erase();
  }
  if (peaks.empty())
    return 0;
  int64_t best = llvm::min_element(peaks, [](auto &a, auto &b) {
                   return a.second < b.second;
                 })->second;
  if (best >= base)
    return 0;
  // The fewest chunks (the largest GEMMs) that get 99% of what chunking
  // can save.
  int64_t enough = best + (base - best) / 100;
  int64_t chosen = 0;
  for (auto [chunks, peak] : peaks)
    if (peak <= enough) {
      chosen = chunks;
      break;
    }
  // Where chunking pays: a chunk per block of rows the input is
  // concatenated from (a decoder's steps) if the backward reads the input
  // gradient block by block: each chunk runs where its block is read, so
  // neither the whole input nor its gradient is ever live. (The estimate
  // here, every forward value stashed, peaks before the backward, not where
  // echo's plan does: inside the decoder's backward.)
  if (int64_t blocks = concatenatedRowBlocks(found->x);
      chosen && blocks >= 2 && blocks <= kMaxAlignedLossChunks &&
      rows / blocks >= minChunkRows) {
    auto clone = cast<func::FuncOp>(func->clone());
    bool placed = false;
    bool better = succeeded(chunkLoss(clone, blocks, &placed)) && placed &&
                  computePeakLiveBytes(clone) < base;
    clone.erase();
    if (better)
      return blocks;
  }
  return chosen;
}
