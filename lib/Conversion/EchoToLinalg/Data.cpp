//===- Data.cpp - Masks, conversions and indexing -------------------------===//
//
// Part of the Echo project.
//
// The ops of EchoDataOps.td as `linalg.generic`s on tensors, none with a
// data-dependent store, so that every target runs them as it runs the other
// generics (no atomics, the same bits everywhere):
// - comparisons, logical ops, conversions and one_hot are elementwise;
// - gather reads x with `tensor.extract` at the computed position;
// - scatter and scatter_add compute each element of the result from the M
//   entries of the indices along the axis that may reach it (a reduction over
//   M starting from x), in their row-major order;
// - topk ranks every entry of a row against the others (a reduction over the
//   row), takes the position ranked k for each output k (a reduction over the
//   row), and gathers the values there.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"
#include "Patterns.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

namespace {

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

/// `x <predicate> y`: floats compared in their arithmetic type (ordered, but
/// `ne` unordered: true with a NaN), `i32` signed, `i1` unsigned.
Value compareScalars(OpBuilder &b, Location loc, ComparePredicate predicate,
                     Value x, Value y) {
  Type type = x.getType();
  auto index = static_cast<unsigned>(predicate);
  if (isa<FloatType>(type)) {
    static constexpr arith::CmpFPredicate floats[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    Type wide = widenedFloatType(type);
    Value a = convertFloat(b, loc, x, wide);
    Value c = convertFloat(b, loc, y, wide);
    return arith::CmpFOp::create(b, loc, floats[index], a, c);
  }
  static constexpr arith::CmpIPredicate signedInts[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
  static constexpr arith::CmpIPredicate unsignedInts[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::ult, arith::CmpIPredicate::ule,
      arith::CmpIPredicate::ugt, arith::CmpIPredicate::uge};
  return arith::CmpIOp::create(
      b, loc, type.isInteger(1) ? unsignedInts[index] : signedInts[index], x,
      y);
}

/// The scalar constant `value` of the integer type `type`.
Value intConst(OpBuilder &b, Location loc, Type type, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

/// `x` converted to the element type `to` (echo.convert's rules).
Value convertScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  if (from.isInteger(1)) {
    if (isa<FloatType>(to))
      return arith::SelectOp::create(b, loc, x, floatConst(b, loc, to, 1.0),
                                     floatConst(b, loc, to, 0.0));
    return arith::ExtUIOp::create(b, loc, to, x);
  }
  if (from.isInteger(32)) {
    if (to.isInteger(1))
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                   intConst(b, loc, from, 0));
    // Through f32 (or f64), as PyTorch converts an integer to a 16-bit
    // float.
    Type wide = widenedFloatType(to);
    Value f = arith::SIToFPOp::create(b, loc, wide, x);
    return convertFloat(b, loc, f, to);
  }
  Type wide = widenedFloatType(from);
  Value f = convertFloat(b, loc, x, wide);
  if (to.isInteger(1))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, f,
                                 floatConst(b, loc, wide, 0.0));
  // Toward zero, saturating at the i32 range (2^31 - 128 is f32's largest
  // value below 2^31), NaN to 0: arith.fptosi of anything else is poison.
  double high = wide.isF64() ? 2147483647.0 : 2147483520.0;
  Value low = arith::MaximumFOp::create(
      b, loc, f, floatConst(b, loc, wide, -2147483648.0));
  Value clamped =
      arith::MinimumFOp::create(b, loc, low, floatConst(b, loc, wide, high));
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, f, f);
  Value finite = arith::SelectOp::create(
      b, loc, isNan, floatConst(b, loc, wide, 0.0), clamped);
  return arith::FPToSIOp::create(b, loc, to, finite);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

struct CompareLowering : OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CompareOp op,
                                PatternRewriter &rewriter) const override {
    ComparePredicate predicate = op.getPredicate();
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
                ValueRange{op.getLhs(), op.getRhs()},
                [&](OpBuilder &b, Location loc, ValueRange a) {
                  return compareScalars(b, loc, predicate, a[0], a[1]);
                }));
    return success();
  }
};

/// A logical op on masks: one `arith` op on the two operands' elements.
template <typename OpTy, typename ArithOp>
struct LogicalLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(),
                             cast<RankedTensorType>(op.getType()),
                             ValueRange{op.getLhs(), op.getRhs()},
                             [](OpBuilder &b, Location loc, ValueRange a) {
                               return ArithOp::create(b, loc, a[0], a[1]);
                             }));
    return success();
  }
};

struct LogicalNotLowering : OpRewritePattern<LogicalNotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogicalNotOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(),
                             cast<RankedTensorType>(op.getType()),
                             ValueRange{op.getX()},
                             [](OpBuilder &b, Location loc, ValueRange a) {
                               Value one = intConst(b, loc, b.getI1Type(), 1);
                               return arith::XOrIOp::create(b, loc, a[0], one);
                             }));
    return success();
  }
};

struct ConvertLowering : OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type to = type.getElementType();
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(), type, ValueRange{op.getX()},
                             [&](OpBuilder &b, Location loc, ValueRange a) {
                               return convertScalar(b, loc, a[0], to);
                             }));
    return success();
  }
};

/// result[i..., c] = ids[i...] == c (and ids[i...] != ignore_index): a
/// generic over the result reading the ids without the class dim.
struct OneHotLowering : OpRewritePattern<OneHotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(OneHotOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    Type element = type.getElementType();
    AffineMap maps[] = {
        dropDimsMap(getContext(), rank, {static_cast<int64_t>(rank) - 1}),
        rewriter.getMultiDimIdentityMap(rank)};
    Value r = buildGeneric(
        rewriter, op.getLoc(), ValueRange{op.getIds()}, maps,
        emptyTensor(rewriter, op.getLoc(), type),
        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          Value c = linalg::IndexOp::create(b, loc, rank - 1);
          Value c32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), c);
          Value hit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            a[0], c32);
          if (std::optional<int64_t> ignored = op.getIgnoreIndex()) {
            Value kept = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ne, a[0],
                intConst(b, loc, b.getI32Type(), *ignored));
            hit = arith::AndIOp::create(b, loc, hit, kept);
          }
          return convertScalar(b, loc, hit, element);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

/// `index` (i32) clamped into [0, size) as an `index` value.
Value clampedIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  Type i32 = index.getType();
  Value low = arith::MaxSIOp::create(b, loc, index, intConst(b, loc, i32, 0));
  Value inRange = arith::MinSIOp::create(
      b, loc, low, intConst(b, loc, i32, std::max<int64_t>(size - 1, 0)));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), inRange);
}

/// `x[i with i[axis] replaced by index]` where `i` are the current loop
/// indices of the enclosing generic (the first `rank` of them).
Value extractAlong(OpBuilder &b, Location loc, Value x, unsigned axis,
                   Value index) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<Value> position;
  for (unsigned d = 0, rank = type.getRank(); d < rank; ++d)
    position.push_back(d == axis
                           ? clampedIndex(b, loc, index, type.getDimSize(axis))
                           : linalg::IndexOp::create(b, loc, d));
  return tensor::ExtractOp::create(b, loc, x, position);
}

struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value x = op.getX();
    unsigned axis = op.getAxis();
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(), type,
                             ValueRange{op.getIndices()},
                             [&](OpBuilder &b, Location loc, ValueRange a) {
                               return extractAlong(b, loc, x, axis, a[0]);
                             }));
    return success();
  }
};

/// The tensor a scatter starts from: `x`, or a fill of its value when it is
/// a splat constant (a gradient's zeros), which no buffer needs to hold.
Value scatterInit(OpBuilder &b, Location loc, Value x) {
  DenseElementsAttr splat;
  auto type = cast<RankedTensorType>(x.getType());
  if (matchPattern(x, m_Constant(&splat)) && splat.isSplat())
    return filledTensor(b, loc, type, splat.getSplatValue<TypedAttr>());
  return x;
}

/// out[p] from x[p] and the entries m of `indices` and `src` along `axis`
/// whose index is p[axis]: a generic over the result's dims and m (the
/// reduction), in increasing m, with `combine(hit, src, acc)`.
template <typename OpTy>
Value buildScatter(
    OpBuilder &b, OpTy op,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> combine) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  unsigned rank = cast<RankedTensorType>(op.getType()).getRank();
  unsigned axis = op.getAxis();
  // Loops: the result's dims, then m.
  SmallVector<AffineExpr> read;
  for (unsigned d = 0; d < rank; ++d)
    read.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
  AffineMap entries = AffineMap::get(rank + 1, 0, read, ctx);
  AffineMap out =
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank);
  AffineMap maps[] = {entries, entries, out};
  return buildGeneric(
      b, loc, ValueRange{op.getIndices(), op.getSrc()}, maps,
      scatterInit(b, loc, op.getX()),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value p = linalg::IndexOp::create(nb, l, axis);
        Value p32 = arith::IndexCastOp::create(nb, l, nb.getI32Type(), p);
        Value hit =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a[0], p32);
        return combine(nb, l, hit, a[1], a[2]);
      });
}

struct ScatterLowering : OpRewritePattern<ScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildScatter(rewriter, op,
                                    [](OpBuilder &b, Location loc, Value hit,
                                       Value src, Value acc) -> Value {
                                      return arith::SelectOp::create(
                                          b, loc, hit, src, acc);
                                    }));
    return success();
  }
};

struct ScatterAddLowering : OpRewritePattern<ScatterAddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterAddOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildScatter(rewriter, op,
                         [](OpBuilder &b, Location loc, Value hit, Value src,
                            Value acc) -> Value {
                           // Only where an entry lands: an element nothing
                           // reaches keeps its bits (-0 stays -0).
                           Value sum = arith::AddFOp::create(b, loc, acc, src);
                           return arith::SelectOp::create(b, loc, hit, sum,
                                                          acc);
                         }));
    return success();
  }
};

/// Whether entry `j` (value `xj`) of a row comes before entry `i` (`xi`) in
/// topk's order: larger first (smaller with `smallest`), NaN larger than
/// every number, equal entries by position.
Value comesFirst(OpBuilder &b, Location loc, Value xj, Value xi, Value j,
                 Value i, bool smallest) {
  Type wide = widenedFloatType(xj.getType());
  xj = convertFloat(b, loc, xj, wide);
  xi = convertFloat(b, loc, xi, wide);
  auto cmp = [&](arith::CmpFPredicate p, Value u, Value v) -> Value {
    return arith::CmpFOp::create(b, loc, p, u, v);
  };
  Value nanJ = cmp(arith::CmpFPredicate::UNO, xj, xj);
  Value nanI = cmp(arith::CmpFPredicate::UNO, xi, xi);
  Value one = intConst(b, loc, b.getI1Type(), 1);
  Value numberJ = arith::XOrIOp::create(b, loc, nanJ, one);
  Value numberI = arith::XOrIOp::create(b, loc, nanI, one);
  Value better =
      smallest
          ? arith::OrIOp::create(b, loc, cmp(arith::CmpFPredicate::OLT, xj, xi),
                                 arith::AndIOp::create(b, loc, nanI, numberJ))
          : arith::OrIOp::create(b, loc, cmp(arith::CmpFPredicate::OGT, xj, xi),
                                 arith::AndIOp::create(b, loc, nanJ, numberI));
  Value same =
      arith::OrIOp::create(b, loc, cmp(arith::CmpFPredicate::OEQ, xj, xi),
                           arith::AndIOp::create(b, loc, nanJ, nanI));
  Value before = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, i);
  return arith::OrIOp::create(b, loc, better,
                              arith::AndIOp::create(b, loc, same, before));
}

struct TopkLowering : OpRewritePattern<TopkOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopkOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value x = op.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    auto idType = cast<RankedTensorType>(op.getIndices().getType());
    unsigned rank = xType.getRank();
    unsigned last = rank - 1;
    bool smallest = op.getSmallest();
    Type i32 = rewriter.getI32Type();

    // Loops: the row dims, then (a, b). `pair(d)` maps them to the row dims
    // and loop d.
    auto pair = [&](unsigned d) {
      SmallVector<AffineExpr> exprs;
      for (unsigned r = 0; r < last; ++r)
        exprs.push_back(getAffineDimExpr(r, ctx));
      exprs.push_back(getAffineDimExpr(d, ctx));
      return AffineMap::get(rank + 1, 0, exprs, ctx);
    };

    // rank[row, i] = the entries j of the row that come before entry i.
    auto rankType = xType.clone(i32);
    AffineMap rankMaps[] = {pair(last), pair(last + 1), pair(last)};
    Value ranks =
        buildGeneric(rewriter, loc, ValueRange{x, x}, rankMaps,
                     zeros(rewriter, loc, rankType),
                     [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                       Value i = linalg::IndexOp::create(b, l, last);
                       Value j = linalg::IndexOp::create(b, l, last + 1);
                       Value first =
                           comesFirst(b, l, a[1], a[0], j, i, smallest);
                       Value count = arith::ExtUIOp::create(b, l, i32, first);
                       return arith::AddIOp::create(b, l, a[2], count);
                     });

    // indices[row, k] = the entry i ranked k (exactly one per row).
    AffineMap pickMaps[] = {pair(last + 1), pair(last)};
    Value indices = buildGeneric(
        rewriter, loc, ValueRange{ranks}, pickMaps,
        zeros(rewriter, loc, idType),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value k = linalg::IndexOp::create(b, l, last);
          Value i = linalg::IndexOp::create(b, l, last + 1);
          Value k32 = arith::IndexCastOp::create(b, l, i32, k);
          Value i32Value = arith::IndexCastOp::create(b, l, i32, i);
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[0], k32);
          return arith::SelectOp::create(b, l, hit, i32Value, a[1]);
        });

    // values[row, k] = x[row, indices[row, k]].
    Value values = buildElementwise(
        rewriter, loc, cast<RankedTensorType>(op.getValues().getType()),
        ValueRange{indices}, [&](OpBuilder &b, Location l, ValueRange a) {
          return extractAlong(b, l, x, last, a[0]);
        });
    rewriter.replaceOp(op, ValueRange{values, indices});
    return success();
  }
};

} // namespace

void linalg_lowering::populateDataPatterns(RewritePatternSet &patterns) {
  patterns.add<CompareLowering, LogicalLowering<LogicalAndOp, arith::AndIOp>,
               LogicalLowering<LogicalOrOp, arith::OrIOp>,
               LogicalLowering<LogicalXorOp, arith::XOrIOp>, LogicalNotLowering,
               ConvertLowering, OneHotLowering, GatherLowering, ScatterLowering,
               ScatterAddLowering, TopkLowering>(patterns.getContext());
}
