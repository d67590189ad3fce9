//===- Contraction.cpp - Matmul family, linear and convolution ------------===//
//
// Part of the Echo project.
//
// The matmul family uses the named `linalg.matmul`/`linalg.batch_matmul` with
// transposed indexing maps, so that later tiling and vectorization recognise
// them. conv2d and its filter gradient are one generic contraction each with
// strided input maps; the input gradient scatters, so it is a sum over kernel
// offsets of strided `tensor.insert_slice`s, which keeps it in linalg/tensor
// without data-dependent indexing. A grouped convolution splits the channel
// dims into [groups, channels per group] with `tensor.expand_shape` (a view)
// and adds the group as a parallel loop, so every map stays a projection.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"
#include "Patterns.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

namespace {

//===----------------------------------------------------------------------===//
// Matmul family
//===----------------------------------------------------------------------===//

/// The indexing maps of a (batched) matmul with optional transposes.
SmallVector<AffineMap> matmulMaps(MLIRContext *ctx, bool batched, bool ta,
                                  bool tb) {
  unsigned nd = batched ? 4 : 3;
  SmallVector<AffineExpr> d;
  for (unsigned i = 0; i < nd; ++i)
    d.push_back(getAffineDimExpr(i, ctx));
  // Loops: [batch,] m, n, k.
  ArrayRef<AffineExpr> batch =
      batched ? ArrayRef(d).take_front(1) : ArrayRef<AffineExpr>{};
  unsigned o = batched ? 1 : 0;
  AffineExpr m = d[o], n = d[o + 1], k = d[o + 2];
  auto map = [&](AffineExpr a, AffineExpr bb) {
    SmallVector<AffineExpr> e(batch);
    e.push_back(a);
    e.push_back(bb);
    return AffineMap::get(nd, 0, e, ctx);
  };
  return {ta ? map(k, m) : map(m, k), tb ? map(n, k) : map(k, n), map(m, n)};
}

/// Builds `init + op(a) * op(b)` as a named linalg matmul.
Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs, Value init,
                  bool batched, bool ta, bool tb) {
  SmallVector<AffineMap> maps = matmulMaps(b.getContext(), batched, ta, tb);
  SmallVector<Attribute> mapAttrs;
  for (AffineMap m : maps)
    mapAttrs.push_back(AffineMapAttr::get(m));
  NamedAttribute attr(b.getStringAttr("indexing_maps"),
                      b.getArrayAttr(mapAttrs));
  if (batched)
    return linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                         ValueRange{lhs, rhs}, ValueRange{init},
                                         ArrayRef<NamedAttribute>{attr})
        .getResult(0);
  return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{init},
                                  ArrayRef<NamedAttribute>{attr})
      .getResult(0);
}

/// `op(a) * op(b)` over a contraction of length 1 (an outer product: the
/// gradient of a product with a vector): an elementwise generic
/// `r[.., m, n] = a[.., m] * b[.., n]` on the operands with their unit dim
/// collapsed away, which elementwise fusion folds into the consumer. (Each
/// element is one product, as the GEMM's.)
Value buildOuterProduct(OpBuilder &b, Location loc, Value lhs, Value rhs,
                        RankedTensorType type, bool batched) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  auto collapse = [&](Value v) {
    auto vType = cast<RankedTensorType>(v.getType());
    SmallVector<ReassociationIndices> groups;
    if (batched)
      groups.push_back({0});
    groups.push_back({rank - 2, rank - 1});
    SmallVector<int64_t> shape;
    if (batched)
      shape.push_back(vType.getDimSize(0));
    shape.push_back(vType.getDimSize(rank - 2) * vType.getDimSize(rank - 1));
    return tensor::CollapseShapeOp::create(
               b, loc, RankedTensorType::get(shape, vType.getElementType()), v,
               groups)
        .getResult();
  };
  SmallVector<int64_t> dropN = {static_cast<int64_t>(rank - 1)};
  SmallVector<int64_t> dropM = {static_cast<int64_t>(rank - 2)};
  return buildGeneric(b, loc, ValueRange{collapse(lhs), collapse(rhs)},
                      {dropDimsMap(ctx, rank, dropN),
                       dropDimsMap(ctx, rank, dropM),
                       AffineMap::getMultiDimIdentityMap(rank, ctx)},
                      emptyTensor(b, loc, type),
                      [](OpBuilder &bb, Location l, ValueRange args) -> Value {
                        return arith::MulFOp::create(bb, l, args[0], args[1]);
                      });
}

template <typename OpTy, bool batched>
struct MatmulLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (op.getContractionSize() == 1) {
      rewriter.replaceOp(op, buildOuterProduct(rewriter, op.getLoc(), op.getA(),
                                               op.getB(), type, batched));
      return success();
    }
    Value init = zeros(rewriter, op.getLoc(), type);
    rewriter.replaceOp(op, buildMatmul(rewriter, op.getLoc(), op.getA(),
                                       op.getB(), init, batched,
                                       op.getTransposeA(), op.getTransposeB()));
    return success();
  }
};

struct LinearLowering : OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value bias = linalg::BroadcastOp::create(rewriter, loc, op.getB(),
                                             emptyTensor(rewriter, loc, type),
                                             ArrayRef<int64_t>{0})
                     ->getResult(0);
    rewriter.replaceOp(op, buildMatmul(rewriter, loc, op.getX(), op.getW(),
                                       bias, /*batched=*/false, false, true));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// The body of a contraction: out + in0 * in1.
Value multiplyAccumulate(OpBuilder &b, Location l, ValueRange a) {
  return arith::AddFOp::create(b, l, a[2],
                               arith::MulFOp::create(b, l, a[0], a[1]));
}

/// The type of `type` with dim `dim` split into [groups, size / groups].
RankedTensorType groupedType(RankedTensorType type, int64_t dim,
                             int64_t groups) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= groups;
  shape.insert(shape.begin() + dim, groups);
  return RankedTensorType::get(shape, type.getElementType());
}

/// The reassociation that merges dims `dim` and `dim + 1` of a tensor of
/// rank `rank + 1` into one (the inverse of groupedType).
SmallVector<ReassociationIndices> groupReassociation(int64_t rank,
                                                     int64_t dim) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0, src = 0; d < rank; ++d) {
    groups.push_back({src++});
    if (d == dim)
      groups.back().push_back(src++);
  }
  return groups;
}

/// Views dim `dim` of `v` as [groups, size / groups] (no copy).
Value splitGroups(OpBuilder &b, Location loc, Value v, int64_t dim,
                  int64_t groups) {
  auto type = cast<RankedTensorType>(v.getType());
  return tensor::ExpandShapeOp::create(b, loc, groupedType(type, dim, groups),
                                       v,
                                       groupReassociation(type.getRank(), dim));
}

/// Merges dims `dim` and `dim + 1` of `v` into `type` (no copy).
Value mergeGroups(OpBuilder &b, Location loc, Value v, RankedTensorType type,
                  int64_t dim) {
  return tensor::CollapseShapeOp::create(
      b, loc, type, v, groupReassociation(type.getRank(), dim));
}

/// conv2d (y = x ⋆ w) and conv2d_grad_filter (dw = x ⋆ dy): one
/// contraction of the zero-padded input with the op's second operand over
/// the loops n, f, oh, ow, c, kh, kw; with groups, over n, g, f, oh, ow, c,
/// kh, kw on the grouped views x [N, G, C/G, H, W], w [G, F/G, C/G, KH, KW]
/// and y [N, G, F/G, OH, OW] (c and f then count within the group).
template <typename OpTy, bool filterGrad>
struct ConvContractionLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> s = op.getStrides();
    auto groups = static_cast<int64_t>(op.getGroups());
    Value x = padSpatial(rewriter, loc, op.getX(), op.getPadding(), 0.0);
    Value other = op->getOperand(1);
    if (groups == 1) {
      AffineExpr n, f, oh, ow, c, kh, kw;
      bindDims(ctx, n, f, oh, ow, c, kh, kw);
      AffineMap xMap =
          AffineMap::get(7, 0, {n, c, oh * s[0] + kh, ow * s[1] + kw}, ctx);
      AffineMap filterMap = AffineMap::get(7, 0, {f, c, kh, kw}, ctx);
      AffineMap outMap = AffineMap::get(7, 0, {n, f, oh, ow}, ctx);
      SmallVector<AffineMap> maps = {xMap, filterGrad ? outMap : filterMap,
                                     filterGrad ? filterMap : outMap};
      Value r = buildGeneric(rewriter, loc, ValueRange{x, other}, maps,
                             zeros(rewriter, loc, type), multiplyAccumulate);
      rewriter.replaceOp(op, r);
      return success();
    }
    // The filter splits along dim 0 (F), x and y along dim 1 (C, F).
    int64_t resultDim = filterGrad ? 0 : 1, otherDim = filterGrad ? 1 : 0;
    Value xg = splitGroups(rewriter, loc, x, 1, groups);
    Value otherGroups = splitGroups(rewriter, loc, other, otherDim, groups);
    RankedTensorType initType = groupedType(type, resultDim, groups);
    AffineExpr n, g, f, oh, ow, c, kh, kw;
    bindDims(ctx, n, g, f, oh, ow, c, kh, kw);
    AffineMap xMap =
        AffineMap::get(8, 0, {n, g, c, oh * s[0] + kh, ow * s[1] + kw}, ctx);
    AffineMap filterMap = AffineMap::get(8, 0, {g, f, c, kh, kw}, ctx);
    AffineMap outMap = AffineMap::get(8, 0, {n, g, f, oh, ow}, ctx);
    SmallVector<AffineMap> maps = {xMap, filterGrad ? outMap : filterMap,
                                   filterGrad ? filterMap : outMap};
    Value r = buildGeneric(rewriter, loc, ValueRange{xg, otherGroups}, maps,
                           zeros(rewriter, loc, initType), multiplyAccumulate);
    rewriter.replaceOp(op, mergeGroups(rewriter, loc, r, type, resultDim));
    return success();
  }
};

struct Conv2DGradInputLowering : OpRewritePattern<Conv2DGradInputOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DGradInputOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = cast<RankedTensorType>(op.getType());
    auto wType = cast<RankedTensorType>(op.getW().getType());
    auto dyType = cast<RankedTensorType>(op.getDy().getType());
    auto groups = static_cast<int64_t>(op.getGroups());
    // c counts the input channels of a group (all of them without groups).
    int64_t f = wType.getDimSize(0), c = wType.getDimSize(1);
    Value acc = zeros(rewriter, loc, paddedType(type, op.getPadding()));
    auto contribType =
        RankedTensorType::get({dyType.getDimSize(0), c * groups,
                               dyType.getDimSize(2), dyType.getDimSize(3)},
                              type.getElementType());
    auto wkType = RankedTensorType::get({f, c}, type.getElementType());
    // Loops: n, c, oh, ow, f; with groups n, g, c, oh, ow, f on the grouped
    // views dy [N, G, F/G, OH, OW], w [G, F/G, C/G] and the contribution
    // [N, G, C/G, OH, OW].
    SmallVector<AffineMap> maps;
    Value dy = op.getDy();
    if (groups == 1) {
      AffineExpr dn, dc, doh, dow, df;
      bindDims(ctx, dn, dc, doh, dow, df);
      maps = {AffineMap::get(5, 0, {dn, df, doh, dow}, ctx),
              AffineMap::get(5, 0, {df, dc}, ctx),
              AffineMap::get(5, 0, {dn, dc, doh, dow}, ctx)};
    } else {
      AffineExpr dn, dg, dc, doh, dow, df;
      bindDims(ctx, dn, dg, dc, doh, dow, df);
      maps = {AffineMap::get(6, 0, {dn, dg, df, doh, dow}, ctx),
              AffineMap::get(6, 0, {dg, df, dc}, ctx),
              AffineMap::get(6, 0, {dn, dg, dc, doh, dow}, ctx)};
      dy = splitGroups(rewriter, loc, dy, 1, groups);
    }
    for (int64_t kh = 0; kh < wType.getDimSize(2); ++kh) {
      for (int64_t kw = 0; kw < wType.getDimSize(3); ++kw) {
        SmallVector<OpFoldResult> offsets = {
            rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
            rewriter.getIndexAttr(kh), rewriter.getIndexAttr(kw)};
        SmallVector<OpFoldResult> sizes = {
            rewriter.getIndexAttr(f), rewriter.getIndexAttr(c),
            rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)};
        SmallVector<OpFoldResult> strides(4, rewriter.getIndexAttr(1));
        Value wk = tensor::ExtractSliceOp::create(
            rewriter, loc, wkType, op.getW(), offsets, sizes, strides);
        Value contrib;
        if (groups == 1) {
          contrib = buildGeneric(rewriter, loc, ValueRange{dy, wk}, maps,
                                 zeros(rewriter, loc, contribType),
                                 multiplyAccumulate);
        } else {
          Value wg = splitGroups(rewriter, loc, wk, 0, groups);
          Value sum = buildGeneric(
              rewriter, loc, ValueRange{dy, wg}, maps,
              zeros(rewriter, loc, groupedType(contribType, 1, groups)),
              multiplyAccumulate);
          contrib = mergeGroups(rewriter, loc, sum, contribType, 1);
        }
        acc = accumulateWindow(rewriter, loc, acc, contrib, kh, kw,
                               op.getStrides());
      }
    }
    rewriter.replaceOp(op,
                       unpadSpatial(rewriter, loc, acc, type, op.getPadding()));
    return success();
  }
};

} // namespace

void linalg_lowering::populateContractionPatterns(RewritePatternSet &patterns) {
  patterns
      .add<MatmulLowering<MatmulOp, false>, MatmulLowering<BatchMatmulOp, true>,
           LinearLowering, ConvContractionLowering<Conv2DOp, false>,
           ConvContractionLowering<Conv2DGradFilterOp, true>,
           Conv2DGradInputLowering>(patterns.getContext());
}
