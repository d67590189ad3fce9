//===- Contraction.cpp - Matmul family, linear and convolution ------------===//
//
// Part of the Echo project.
//
// The matmul family uses the named `linalg.matmul`/`linalg.batch_matmul` with
// transposed indexing maps, so that later tiling and vectorization recognise
// them. conv2d and its filter gradient are one generic contraction each with
// strided input maps; the input gradient scatters, so it is a sum over kernel
// offsets of strided `tensor.insert_slice`s, which keeps it in linalg/tensor
// without data-dependent indexing.
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

template <typename OpTy, bool batched>
struct MatmulLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
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

/// conv2d (y = x ⋆ w) and conv2d_grad_filter (dw = x ⋆ dy): one
/// contraction of the zero-padded input with the op's second operand over
/// the loops n, f, oh, ow, c, kh, kw.
template <typename OpTy, bool filterGrad>
struct ConvContractionLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> s = op.getStrides();
    Value x = padSpatial(rewriter, loc, op.getX(), op.getPadding(), 0.0);
    AffineExpr n, f, oh, ow, c, kh, kw;
    bindDims(ctx, n, f, oh, ow, c, kh, kw);
    AffineMap xMap =
        AffineMap::get(7, 0, {n, c, oh * s[0] + kh, ow * s[1] + kw}, ctx);
    AffineMap filterMap = AffineMap::get(7, 0, {f, c, kh, kw}, ctx);
    AffineMap outMap = AffineMap::get(7, 0, {n, f, oh, ow}, ctx);
    SmallVector<AffineMap> maps = {xMap, filterGrad ? outMap : filterMap,
                                   filterGrad ? filterMap : outMap};
    Value r =
        buildGeneric(rewriter, loc, ValueRange{x, op->getOperand(1)}, maps,
                     zeros(rewriter, loc, type), multiplyAccumulate);
    rewriter.replaceOp(op, r);
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
    int64_t f = wType.getDimSize(0), c = wType.getDimSize(1);
    Value acc = zeros(rewriter, loc, paddedType(type, op.getPadding()));
    auto contribType = RankedTensorType::get(
        {dyType.getDimSize(0), c, dyType.getDimSize(2), dyType.getDimSize(3)},
        type.getElementType());
    auto wkType = RankedTensorType::get({f, c}, type.getElementType());
    // Loops: n, c, oh, ow, f.
    AffineExpr dn, dc, doh, dow, df;
    bindDims(ctx, dn, dc, doh, dow, df);
    AffineMap maps[] = {AffineMap::get(5, 0, {dn, df, doh, dow}, ctx),
                        AffineMap::get(5, 0, {df, dc}, ctx),
                        AffineMap::get(5, 0, {dn, dc, doh, dow}, ctx)};
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
        Value contrib =
            buildGeneric(rewriter, loc, ValueRange{op.getDy(), wk}, maps,
                         zeros(rewriter, loc, contribType), multiplyAccumulate);
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
