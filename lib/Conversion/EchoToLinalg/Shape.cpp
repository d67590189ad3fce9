//===- Shape.cpp - Shape ops, reductions and embedding --------------------===//
//
// Part of the Echo project.
//
// Broadcast and transpose use the named linalg ops; reductions are generics
// whose output map drops the reduced dims; slice, concat and reshape are
// tensor ops. embedding gathers rows with `tensor.extract` in a generic, and
// its gradient adds each token's row into the table gradient in an `scf.for`,
// since several tokens may share a row.
//
//===----------------------------------------------------------------------===//

#include "../Accumulation.h"
#include "Builders.h"
#include "Patterns.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

namespace {

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// A `linalg.generic` that reads x without the added dims: elementwise
/// fusion folds it into its consumers (an attention's query broadcast over
/// the keys is never a tensor of its own), where `linalg.broadcast` would
/// always be materialized.
struct BroadcastLowering : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = op.getContext();
    unsigned rank = type.getRank();
    Value result = buildGeneric(
        rewriter, op.getLoc(), op.getX(),
        {dropDimsMap(ctx, rank, op.getDimensions()),
         AffineMap::getMultiDimIdentityMap(rank, ctx)},
        emptyTensor(rewriter, op.getLoc(), type),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy, bool isMax>
struct ReduceLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value r =
        isMax ? maxDims(rewriter, op.getLoc(), op.getX(), op.getDimensions())
              : sumDims(rewriter, op.getLoc(), op.getX(), op.getDimensions());
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct ReduceMaxGradLowering : OpRewritePattern<ReduceMaxGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceMaxGradOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced =
        dropDimsMap(rewriter.getContext(), rank, op.getDimensions());
    AffineMap maps[] = {id, reduced, reduced, id};
    Value r = buildGeneric(
        rewriter, op.getLoc(), ValueRange{op.getX(), op.getY(), op.getDy()},
        maps, emptyTensor(rewriter, op.getLoc(), type),
        [](OpBuilder &b, Location loc, ValueRange a) -> Value {
          Value isMax = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                              a[0], a[1]);
          return arith::SelectOp::create(
              b, loc, isMax, a[2], floatConst(b, loc, a[2].getType(), 0.0));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> strides(op.getOffsets().size(), 1);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), op.getX(), ValueRange{}, ValueRange{}, ValueRange{},
        op.getOffsets(), op.getSizes(), strides);
    return success();
  }
};

/// `part` written into `into` at `offsets` (unit strides).
Value insertAt(OpBuilder &b, Location loc, Value part, Value into,
               ArrayRef<int64_t> offsets) {
  auto type = cast<RankedTensorType>(part.getType());
  SmallVector<int64_t> strides(type.getRank(), 1);
  return tensor::InsertSliceOp::create(b, loc, part, into, ValueRange{},
                                       ValueRange{}, ValueRange{}, offsets,
                                       type.getShape(), strides);
}

struct SliceGradLowering : OpRewritePattern<SliceGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceGradOp op,
                                PatternRewriter &rewriter) const override {
    Value full =
        zeros(rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()));
    rewriter.replaceOp(
        op, insertAt(rewriter, op.getLoc(), op.getDy(), full, op.getOffsets()));
    return success();
  }
};

/// `echo.add(acc, echo.slice_grad(dy))` where the slice gradient has no
/// other user (a gradient summed over the slices of one tensor: an
/// embedding read one time step at a time) and acc may be written in place
/// (canAccumulateInPlace) adds dy into acc's buffer: a `linalg.generic` on
/// the slice's subview of `to_buffer(acc)`, the sum named by `to_tensor
/// restrict writable`. The zero-filled full-size gradient of the slice is
/// never made and the add touches the slice only. Each sum is a new tensor
/// of its own (no chain of tensor.insert_slice ops, one per slice, on one
/// buffer, for which one-shot bufferization's analysis grows with the cube
/// of the chain: DeepSpeech2 at paper size).
struct AddSliceGradInPlace : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto grad = op->getOperand(i).getDefiningOp<SliceGradOp>();
      OpOperand &acc = op->getOpOperand(1 - i);
      if (!grad || !grad->hasOneUse() || acc.get() == grad.getResult() ||
          !canAccumulateInPlace(acc))
        continue;
      Location loc = op.getLoc();
      auto accType = cast<RankedTensorType>(acc.get().getType());
      auto dyType = cast<RankedTensorType>(grad.getDy().getType());
      Type element = accType.getElementType();
      Value buffer = bufferization::ToBufferOp::create(
          rewriter, loc, MemRefType::get(accType.getShape(), element),
          acc.get(), /*read_only=*/false);
      Value dy = bufferization::ToBufferOp::create(
          rewriter, loc, stridedType(dyType.getShape(), element), grad.getDy(),
          /*read_only=*/true);
      SmallVector<int64_t> strides(dyType.getRank(), 1);
      Value part = memref::SubViewOp::create(
          rewriter, loc, buffer, grad.getOffsets(), dyType.getShape(), strides);
      AffineMap id = rewriter.getMultiDimIdentityMap(dyType.getRank());
      SmallVector<utils::IteratorType> parallel(dyType.getRank(),
                                                utils::IteratorType::parallel);
      // The add's operand order (the sum is the same either way).
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{}, ValueRange{dy}, ValueRange{part},
          SmallVector<AffineMap>(2, id), parallel,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value sum = i == 0 ? arith::AddFOp::create(b, l, args[0], args[1])
                               : arith::AddFOp::create(b, l, args[1], args[0]);
            linalg::YieldOp::create(b, l, sum);
          });
      rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
          op, accType, buffer, /*restrict=*/true, /*writable=*/true);
      rewriter.eraseOp(grad);
      return success();
    }
    return failure();
  }
};

/// Whether a part at `offsets` with `partShape` of a `whole` [ids...,
/// features] tensor takes whole rows of an embedding: every index of the
/// last (feature) dim, and at least one id dim.
bool takesWholeRows(ArrayRef<int64_t> offsets, ArrayRef<int64_t> partShape,
                    RankedTensorType whole) {
  return whole.getRank() >= 2 && offsets.back() == 0 &&
         partShape.back() == whole.getShape().back();
}
bool takesWholeRows(SliceOp op) {
  return takesWholeRows(op.getOffsets(), op.getSizes(),
                        cast<RankedTensorType>(op.getX().getType()));
}
bool takesWholeRows(SliceGradOp op) {
  return takesWholeRows(op.getOffsets(),
                        cast<RankedTensorType>(op.getDy().getType()).getShape(),
                        cast<RankedTensorType>(op.getType()));
}

/// `echo.slice(echo.embedding(ids, table))` where every user of the
/// embedding takes whole rows is the embedding of the sliced ids (the same
/// values: a gather copies rows). A decoder that reads its input
/// embeddings one time step at a time, forward and where echo-recompute
/// re-runs them for the backward, gathers each step's rows where it needs
/// them, and the whole [batch, steps, features] tensor is never made. Run
/// after echo-autodiff (it is part of the lowering), so the gradient stays
/// one scatter over all ids.
struct SliceOfEmbedding : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto embedding = op.getX().getDefiningOp<EmbeddingOp>();
    if (!embedding || !llvm::all_of(embedding->getUsers(), [](Operation *u) {
          auto slice = dyn_cast<SliceOp>(u);
          return slice && takesWholeRows(slice);
        }))
      return failure();
    auto idsType = cast<RankedTensorType>(embedding.getIds().getType());
    ArrayRef<int64_t> offsets = op.getOffsets().drop_back();
    ArrayRef<int64_t> sizes = op.getSizes().drop_back();
    Value ids = SliceOp::create(rewriter, op.getLoc(), idsType.clone(sizes),
                                embedding.getIds(),
                                rewriter.getDenseI64ArrayAttr(offsets),
                                rewriter.getDenseI64ArrayAttr(sizes));
    rewriter.replaceOpWithNewOp<EmbeddingOp>(op, op.getType(), ids,
                                             embedding.getTable(),
                                             embedding.getPaddingIdxAttr());
    if (embedding->use_empty())
      rewriter.eraseOp(embedding);
    return success();
  }
};

/// One `tensor.concat`: its bufferization copies each input into its slice
/// of one allocation. (A chain of insert_slice ops, one per input, made
/// one-shot bufferization's conflict analysis quadratic in the chain: 18 s
/// of DeepSpeech2's 25 s at paper size.)
struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(
        op, op.getType(), static_cast<int64_t>(op.getAxis()), op.getInputs());
    return success();
  }
};

struct ReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value flat = flatten(rewriter, op.getLoc(), op.getX());
    rewriter.replaceOp(op, unflatten(rewriter, op.getLoc(), flat, type));
    return success();
  }
};

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value init = emptyTensor(rewriter, op.getLoc(), type);
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), op.getX(), init,
                                         op.getPermutation());
    rewriter.replaceOp(op, t->getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

struct EmbeddingLowering : OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    Value table = op.getTable();
    SmallVector<int64_t> idDims;
    for (unsigned i = 0; i + 1 < rank; ++i)
      idDims.push_back(i);
    AffineMap maps[] = {keepDimsMap(ctx, rank, idDims),
                        rewriter.getMultiDimIdentityMap(rank)};
    Value r = buildGeneric(
        rewriter, loc, ValueRange{op.getIds()}, maps,
        emptyTensor(rewriter, loc, type),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          return tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Adds each token's row of `op`'s dy into its id's row of `table` (a
/// memref of the table's shape, written in place): an `scf.for` over the
/// tokens, a `linalg.generic` per row on subviews. The ids and dy are read
/// through read-only `to_buffer`s.
void scatterRows(OpBuilder &b, EmbeddingGradOp op, Value table) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getType());
  Type element = type.getElementType();
  int64_t h = type.getDimSize(1);
  Value idsTensor = flatten(b, loc, op.getIds());
  auto idsType = cast<RankedTensorType>(idsTensor.getType());
  int64_t tokens = idsType.getDimSize(0);
  Value dyTensor = op.getDy();
  auto dyType = cast<RankedTensorType>(dyTensor.getType());
  if (dyType.getRank() != 2) {
    SmallVector<ReassociationIndices> reassoc(2);
    for (int64_t i = 0; i + 1 < dyType.getRank(); ++i)
      reassoc[0].push_back(i);
    reassoc[1].push_back(dyType.getRank() - 1);
    dyTensor = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({tokens, h}, element), dyTensor, reassoc);
  }
  Value ids = bufferization::ToBufferOp::create(
      b, loc, stridedType(idsType.getShape(), idsType.getElementType()),
      idsTensor, /*read_only=*/true);
  Value dy = bufferization::ToBufferOp::create(
      b, loc, stridedType({tokens, h}, element), dyTensor,
      /*read_only=*/true);
  // One op per statement (argument evaluation order is unspecified).
  Value lower = indexConst(b, loc, 0);
  Value upper = indexConst(b, loc, tokens);
  Value step = indexConst(b, loc, 1);
  scf::ForOp::create(
      b, loc, lower, upper, step, ValueRange{},
      [&](OpBuilder &nb, Location l, Value t, ValueRange) {
        Value id = memref::LoadOp::create(nb, l, ids, ValueRange{t});
        Value row = arith::IndexCastOp::create(nb, l, nb.getIndexType(), id);
        SmallVector<OpFoldResult> sizes = {nb.getIndexAttr(1),
                                           nb.getIndexAttr(h)};
        SmallVector<OpFoldResult> strides(2, nb.getIndexAttr(1));
        Value from = memref::SubViewOp::create(
            nb, l, dy, SmallVector<OpFoldResult>{t, nb.getIndexAttr(0)}, sizes,
            strides);
        Value into = memref::SubViewOp::create(
            nb, l, table, SmallVector<OpFoldResult>{row, nb.getIndexAttr(0)},
            sizes, strides);
        AffineMap rowMap = nb.getMultiDimIdentityMap(2);
        SmallVector<utils::IteratorType> parallel(
            2, utils::IteratorType::parallel);
        linalg::GenericOp::create(
            nb, l, TypeRange{}, ValueRange{from}, ValueRange{into},
            SmallVector<AffineMap>(2, rowMap), parallel,
            [](OpBuilder &bb, Location bl, ValueRange args) {
              Value sum = arith::AddFOp::create(bb, bl, args[1], args[0]);
              linalg::YieldOp::create(bb, bl, sum);
            });
        scf::YieldOp::create(nb, l);
      });
}

/// dtable[ids[i], :] += dy[i, :] on a zero-filled table, one row per token
/// (scatterRows), named by `to_tensor restrict writable`: the table is the
/// fill's buffer, so a gradient that is the step's result is written in
/// the caller's buffer (no copy at the end).
struct EmbeddingGradLowering : OpRewritePattern<EmbeddingGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value table = bufferization::ToBufferOp::create(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
        zeros(rewriter, loc, type), /*read_only=*/false);
    scatterRows(rewriter, op, table);
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, type, table, /*restrict=*/true, /*writable=*/true);
    return success();
  }
};

/// `echo.add(acc, echo.embedding_grad(ids, dy))` where the embedding
/// gradient has no other user and acc may be written in place
/// (canAccumulateInPlace) adds each token's dy row into acc's buffer
/// (scatterRows on `to_buffer(acc)`), the sum named by `to_tensor restrict
/// writable`. No zero-filled table of its own per embedding gradient.
struct AddEmbeddingGradInPlace : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    // The sum's operand first (acc + g, as the split builds it), then g + acc.
    for (unsigned i : {1u, 0u}) {
      auto grad = op->getOperand(i).getDefiningOp<EmbeddingGradOp>();
      OpOperand &acc = op->getOpOperand(1 - i);
      if (!grad || !grad->hasOneUse() || acc.get() == grad.getResult() ||
          !canAccumulateInPlace(acc))
        continue;
      auto type = cast<RankedTensorType>(op.getType());
      Value table = bufferization::ToBufferOp::create(
          rewriter, op.getLoc(),
          MemRefType::get(type.getShape(), type.getElementType()), acc.get(),
          /*read_only=*/false);
      scatterRows(rewriter, grad, table);
      rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
          op, type, table, /*restrict=*/true, /*writable=*/true);
      rewriter.eraseOp(grad);
      return success();
    }
    return failure();
  }
};

/// The slice gradients summed into `dy` (a tree of adds, each with one
/// user, down to slice gradients with one user that take whole rows), in
/// program order; empty where dy is anything else.
SmallVector<SliceGradOp> sliceGradLeaves(Value dy, Block *block) {
  SmallVector<SliceGradOp> leaves;
  SmallVector<Value> work = {dy};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || !v.hasOneUse())
      return {};
    if (auto add = dyn_cast<AddOp>(def)) {
      work.push_back(add.getRhs());
      work.push_back(add.getLhs());
      continue;
    }
    auto grad = dyn_cast<SliceGradOp>(def);
    if (!grad || !takesWholeRows(grad))
      return {};
    leaves.push_back(grad);
  }
  llvm::sort(leaves, [](SliceGradOp a, SliceGradOp b) {
    return a->isBeforeInBlock(b);
  });
  return leaves;
}

} // namespace

void linalg_lowering::scatterEmbeddingGradsBySlice(Operation *root) {
  SmallVector<EmbeddingGradOp> grads;
  root->walk([&](EmbeddingGradOp op) { grads.push_back(op); });
  for (EmbeddingGradOp op : grads) {
    // Only where the table's gradient costs no bytes of its own from the
    // first slice on: it is the step's result (the caller's buffer), or no
    // larger than the gradient of the rows it replaces.
    auto table = cast<RankedTensorType>(op.getType());
    auto rows = cast<RankedTensorType>(op.getDy().getType());
    bool result =
        op->hasOneUse() && op->user_begin()->hasTrait<OpTrait::ReturnLike>();
    if (!result && table.getNumElements() > rows.getNumElements())
      continue;
    SmallVector<SliceGradOp> leaves =
        sliceGradLeaves(op.getDy(), op->getBlock());
    // The ids must be there at the first slice's gradient (defined in an
    // enclosing block, or before it in this one).
    Value ids = op.getIds();
    Operation *idsDef = ids.getDefiningOp();
    if (leaves.size() < 2 || (idsDef && idsDef->getBlock() == op->getBlock() &&
                              !idsDef->isBeforeInBlock(leaves.front())))
      continue;
    auto idsType = cast<RankedTensorType>(ids.getType());
    OpBuilder b(op);
    Value sum;
    for (SliceGradOp leaf : leaves) {
      b.setInsertionPointAfter(leaf);
      Location loc = leaf.getLoc();
      auto part = cast<RankedTensorType>(leaf.getDy().getType());
      ArrayRef<int64_t> offsets = leaf.getOffsets().drop_back();
      ArrayRef<int64_t> sizes = part.getShape().drop_back();
      Value partIds = SliceOp::create(b, loc, idsType.clone(sizes), ids,
                                      b.getDenseI64ArrayAttr(offsets),
                                      b.getDenseI64ArrayAttr(sizes));
      Value g =
          EmbeddingGradOp::create(b, op.getLoc(), table, partIds, leaf.getDy());
      sum = sum ? AddOp::create(b, loc, sum, g).getResult() : g;
    }
    Value dy = op.getDy();
    op.replaceAllUsesWith(sum);
    op.erase();
    // The adds and slice gradients of the old sum, users first.
    SmallVector<Operation *> dead = {dy.getDefiningOp()};
    while (!dead.empty()) {
      Operation *d = dead.pop_back_val();
      SmallVector<Value> operands(d->getOperands());
      d->erase();
      for (Value v : operands)
        if (Operation *def = v.getDefiningOp();
            def && v.use_empty() && isa<AddOp, SliceGradOp>(def))
          dead.push_back(def);
    }
  }
}

void linalg_lowering::populateShapePatterns(RewritePatternSet &patterns) {
  patterns.add<BroadcastLowering, ReduceLowering<ReduceSumOp, false>,
               ReduceLowering<ReduceMaxOp, true>, ReduceMaxGradLowering,
               SliceLowering, SliceGradLowering, ConcatLowering,
               ReshapeLowering, TransposeLowering>(patterns.getContext());
}

void linalg_lowering::populatePreLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<AddSliceGradInPlace, AddEmbeddingGradInPlace, SliceOfEmbedding>(
      patterns.getContext());
}

void linalg_lowering::populateEmbeddingPatterns(RewritePatternSet &patterns) {
  patterns.add<EmbeddingLowering, EmbeddingGradLowering>(patterns.getContext());
}
