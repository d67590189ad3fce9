//===- ExpandBF16.cpp - bf16 conversions as integer arithmetic ------------===//
//
// Part of the Echo project.
//
// echo-expand-bf16 (see Passes.td): upstream's bf16 expansion, plus f64 to
// bf16 through an f32 rounded to odd.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOEXPANDBF16
#include "echo/Target/CPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;

namespace {

/// The element type of a scalar or vector type.
Type elementOf(Type t) { return getElementTypeOrSelf(t); }

/// `t` (a scalar or vector type) with element type `e`.
Type withElement(Type t, Type e) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.clone(e);
  return e;
}

/// truncf f64 → bf16 as truncf f64 → f32 rounded to odd, then f32 → bf16
/// (which the upstream patterns expand). Rounding to odd keeps the sticky
/// information a second rounding needs: the result is the bf16 nearest the
/// f64, ties to even.
struct TruncF64ToBF16 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type from = op.getIn().getType();
    if (!elementOf(from).isF64() || !elementOf(op.getType()).isBF16())
      return failure();
    Location loc = op.getLoc();
    Type f32 = withElement(from, rewriter.getF32Type());
    Type i32 = withElement(from, rewriter.getI32Type());
    auto splat = [&](Type t, TypedAttr scalar) -> Value {
      if (auto v = dyn_cast<VectorType>(t))
        return arith::ConstantOp::create(rewriter, loc,
                                         DenseElementsAttr::get(v, scalar));
      return arith::ConstantOp::create(rewriter, loc, scalar);
    };
    Value x = op.getIn();
    // t: x rounded to nearest f32.
    Value t = arith::TruncFOp::create(rewriter, loc, f32, x);
    Value back = arith::ExtFOp::create(rewriter, loc, from, t);
    // Inexact (an ordered difference: a NaN stays as it is).
    Value inexact = arith::CmpFOp::create(rewriter, loc,
                                          arith::CmpFPredicate::ONE, back, x);
    Value absBack = math::AbsFOp::create(rewriter, loc, back);
    Value absX = math::AbsFOp::create(rewriter, loc, x);
    Value above = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OGT, absBack, absX);
    Value bits = arith::BitcastOp::create(rewriter, loc, i32, t);
    Value one = splat(i32, rewriter.getI32IntegerAttr(1));
    // Toward zero: one step down in magnitude where t rounded away.
    Value down = arith::SubIOp::create(rewriter, loc, bits, one);
    Value towardZero =
        arith::SelectOp::create(rewriter, loc, above, down, bits);
    Value odd = arith::OrIOp::create(rewriter, loc, towardZero, one);
    Value rounded = arith::SelectOp::create(rewriter, loc, inexact, odd, bits);
    Value f = arith::BitcastOp::create(rewriter, loc, f32, rounded);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), f);
    return success();
  }
};

/// extf bf16 → f64 as bf16 → f32 (which the upstream patterns expand) →
/// f64: both exact.
struct ExtBF16ToF64 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type from = op.getIn().getType();
    if (!elementOf(from).isBF16() || !elementOf(op.getType()).isF64())
      return failure();
    Value f = arith::ExtFOp::create(rewriter, op.getLoc(),
                                    withElement(from, rewriter.getF32Type()),
                                    op.getIn());
    rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), f);
    return success();
  }
};

struct EchoExpandBF16Pass
    : public echo::impl::EchoExpandBF16Base<EchoExpandBF16Pass> {
  void runOnOperation() override {
    // Only the bf16 conversions and what their rewrites create: a greedy
    // rewrite of the whole module would also fold every other op.
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op) &&
          (elementOf(op->getOperand(0).getType()).isBF16() ||
           elementOf(op->getResult(0).getType()).isBF16()))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<TruncF64ToBF16, ExtBF16ToF64>(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    config.enableFolding(false);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace
