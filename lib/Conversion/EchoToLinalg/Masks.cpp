//===- Masks.cpp - Masks computed from positions --------------------------===//
//
// Part of the Echo project.
//
// The ops of EchoMaskOps.td as `linalg.generic`s without inputs whose body
// compares `linalg.index` of the last two dims: a causal mask costs a
// comparison per element at run time and no constant in the program, on
// every target.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"
#include "Patterns.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

namespace {

/// result[..., i, j] = (j - i <= diagonal) ? inside : outside (lower), or
/// with >= (upper).
struct TriangleLowering : OpRewritePattern<TriangleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TriangleOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    Type element = type.getElementType();
    auto scalar = [&](OpBuilder &b, Location loc, APFloat value) -> Value {
      if (element.isInteger(1))
        return arith::ConstantOp::create(b, loc,
                                         b.getBoolAttr(!value.isZero()));
      return floatConst(b, loc, element, value.convertToDouble());
    };
    Value r = buildGeneric(
        rewriter, op.getLoc(), ValueRange{},
        {rewriter.getMultiDimIdentityMap(rank)},
        emptyTensor(rewriter, op.getLoc(), type),
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value i = linalg::IndexOp::create(b, loc, rank - 2);
          Value j = linalg::IndexOp::create(b, loc, rank - 1);
          Value offset = arith::SubIOp::create(b, loc, j, i);
          Value diagonal =
              indexConst(b, loc, static_cast<int64_t>(op.getDiagonal()));
          Value inside = arith::CmpIOp::create(
              b, loc,
              op.getKind() == TriangleKind::lower ? arith::CmpIPredicate::sle
                                                  : arith::CmpIPredicate::sge,
              offset, diagonal);
          return arith::SelectOp::create(b, loc, inside,
                                         scalar(b, loc, op.getInside()),
                                         scalar(b, loc, op.getOutside()));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void linalg_lowering::populateMaskPatterns(RewritePatternSet &patterns) {
  patterns.add<TriangleLowering>(patterns.getContext());
}
