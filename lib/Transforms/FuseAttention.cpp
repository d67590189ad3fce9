//===- FuseAttention.cpp - Materialized attention to echo.attention -------===//
//
// Part of the Echo project.
//
// echo-fuse-attention (see Passes.td): finds scaled dot-product attention
// written with materialized ops and replaces it with echo.attention, whose
// gradient keeps no S×Sk tensor. A match must be exact: every S×Sk
// intermediate has one use, the softmax runs over the keys, and a mask
// (an echo.triangle, maybe negated or compared with a splat, or a constant)
// becomes `causal` only when it is exactly a top-left causal mask. A bias
// broadcast along non-leading dims (a key-padding mask [B, 1, 1, Sk]) is
// passed unbroadcast, q, k and v then seen as [B, H, ..]; a bias computed
// from a parameter is left materialized (echo.attention gives it no
// gradient). nn.MultiheadAttention's merge of a causal and a key-padding
// mask is `causal` with the padding mask as the bias; so is Hugging Face's
// combined 4-D mask (a causal triangle plus a part that depends only on the
// batch and the key, rebuilt without its query dim), and a floor at
// finfo.min (torch.max) under a causal mask is dropped.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <limits>
#include <optional>

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOFUSEATTENTION
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// The value of a splat float constant.
std::optional<double> splatValue(Value v) {
  DenseFPElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// Whether `b` adds only leading dims (the batch, the heads) to an
/// [S, Sk] (or [.., S, Sk]) value.
bool isLeadingBroadcast(BroadcastOp b) {
  ArrayRef<int64_t> dims = b.getDimensions();
  int64_t rank = cast<RankedTensorType>(b.getType()).getRank();
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != static_cast<int64_t>(i) || d >= rank - 2)
      return false;
  return !dims.empty();
}

/// Whether `r` only merges or splits the leading dims of its operand
/// ([B, H, S, Sk] and [B·H, S, Sk]): a view the fused op does not need.
bool isLeadingReshape(ReshapeOp r) {
  auto from = cast<RankedTensorType>(r.getX().getType());
  auto to = cast<RankedTensorType>(r.getType());
  if (from.getRank() < 2 || to.getRank() < 2)
    return false;
  return from.getShape().take_back(2) == to.getShape().take_back(2);
}

/// The constant [S, Sk] (or [.., S, Sk]) a mask value is, looking through
/// a broadcast along the leading dims.
DenseElementsAttr maskConstant(Value v) {
  if (auto b = v.getDefiningOp<BroadcastOp>())
    if (isLeadingBroadcast(b))
      v = b.getX();
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return {};
  return attr;
}

/// Whether `attr` (the last two dims S × Sk) is exactly the top-left
/// causal mask: `allowed` where j <= i, `masked` elsewhere.
template <typename T>
bool isCausal(DenseElementsAttr attr, T allowed, T masked) {
  auto shape = cast<ShapedType>(attr.getType()).getShape();
  int64_t rank = shape.size();
  if (rank < 2)
    return false;
  int64_t s = shape[rank - 2], sk = shape[rank - 1];
  int64_t index = 0;
  for (T value : attr.getValues<T>()) {
    int64_t i = (index / sk) % s, j = index % sk;
    ++index;
    if (value != (j <= i ? allowed : masked))
      return false;
  }
  return true;
}

bool isCausalAdditive(DenseElementsAttr attr) {
  if (!isa<FloatType>(attr.getElementType()) || attr.isSplat())
    return false;
  double inf = std::numeric_limits<double>::infinity();
  auto shape = cast<ShapedType>(attr.getType()).getShape();
  int64_t s = shape[shape.size() - 2], sk = shape.back(), index = 0;
  for (APFloat value : attr.getValues<APFloat>()) {
    int64_t i = (index / sk) % s, j = index % sk;
    ++index;
    if (value.convertToDouble() != (j <= i ? 0.0 : -inf))
      return false;
  }
  return true;
}

/// A mask over the last two dims [i, j]: `inside` where j − i <= diagonal,
/// `outside` elsewhere (booleans as 0 and 1).
struct Triangle {
  int64_t diagonal;
  double inside, outside;
};

/// Peels broadcasts along the leading dims and views of them off `v`.
Value throughLeadingViews(Value v) {
  while (true) {
    if (auto b = v.getDefiningOp<BroadcastOp>(); b && isLeadingBroadcast(b))
      v = b.getX();
    else if (auto r = v.getDefiningOp<ReshapeOp>(); r && isLeadingReshape(r))
      v = r.getX();
    else
      return v;
  }
}

/// `lhs <predicate> rhs` as 0 or 1.
double compareValues(ComparePredicate predicate, double lhs, double rhs) {
  switch (predicate) {
  case ComparePredicate::eq:
    return lhs == rhs;
  case ComparePredicate::ne:
    return lhs != rhs;
  case ComparePredicate::lt:
    return lhs < rhs;
  case ComparePredicate::le:
    return lhs <= rhs;
  case ComparePredicate::gt:
    return lhs > rhs;
  case ComparePredicate::ge:
    return lhs >= rhs;
  }
  llvm_unreachable("unknown predicate");
}

/// The triangle `v` is: an echo.triangle (through leading broadcasts and
/// views), its logical negation, or its comparison with a splat constant.
std::optional<Triangle> triangleOf(Value v) {
  v = throughLeadingViews(v);
  if (auto t = v.getDefiningOp<TriangleOp>()) {
    double inside = t.getInside().convertToDouble();
    double outside = t.getOutside().convertToDouble();
    auto diagonal = static_cast<int64_t>(t.getDiagonal());
    // upper: j − i >= d is the complement of j − i <= d − 1.
    if (t.getKind() == TriangleKind::upper)
      return Triangle{diagonal - 1, outside, inside};
    return Triangle{diagonal, inside, outside};
  }
  if (auto n = v.getDefiningOp<LogicalNotOp>()) {
    std::optional<Triangle> t = triangleOf(n.getX());
    if (t)
      return Triangle{t->diagonal, 1.0 - t->inside, 1.0 - t->outside};
    return std::nullopt;
  }
  if (auto c = v.getDefiningOp<CompareOp>()) {
    std::optional<double> rhs = splatValue(c.getRhs());
    std::optional<Triangle> t = triangleOf(c.getLhs());
    if (!rhs || !t)
      return std::nullopt;
    return Triangle{t->diagonal,
                    compareValues(c.getPredicate(), t->inside, *rhs),
                    compareValues(c.getPredicate(), t->outside, *rhs)};
  }
  return std::nullopt;
}

/// Whether `t` is the top-left causal mask: `allowed` where j <= i,
/// `masked` elsewhere.
bool isCausal(const std::optional<Triangle> &t, double allowed, double masked) {
  return t && t->diagonal == 0 && t->inside == allowed && t->outside == masked;
}

/// Whether a score masked with `value` (added, or filled in) counts for
/// nothing in the softmax: −inf, or a finite value no larger than −1e30
/// (`torch.finfo(torch.float32).min`, Hugging Face's mask value). A causal
/// mask keeps every row's diagonal, so the row's maximum is a score and
/// exp(−1e30 + score − maximum) is 0 in f32 as exp(−inf) is, and so is its
/// gradient.
bool isMaskingValue(double value) { return value <= -1e30; }

/// Whether `t` is the top-left causal additive mask: 0 where j <= i, a
/// masking value elsewhere.
bool isCausalAdditive(const std::optional<Triangle> &t) {
  return t && t->diagonal == 0 && t->inside == 0.0 &&
         isMaskingValue(t->outside);
}

/// Whether `v` is computed from a trained parameter (an `echo.param`
/// argument).
bool dependsOnParam(Value root) {
  llvm::SmallPtrSet<Value, 32> seen;
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
      if (func &&
          func.getArgAttr(arg.getArgNumber(), EchoDialect::getParamAttrName()))
        return true;
      continue;
    }
    llvm::append_range(worklist, v.getDefiningOp()->getOperands());
  }
  return false;
}

/// Whether `x` is the scores: a product, a quotient or the GEMM itself (or
/// a view of it), maybe under a causal select with a masking value (Hugging
/// Face GPT-2's torch.where(causal, scores, finfo.min) before its padding
/// mask is added).
bool isScores(Value x) {
  Operation *def = x.getDefiningOp();
  if (isa_and_nonnull<MulOp, DivOp, BatchMatmulOp, ReshapeOp>(def))
    return true;
  auto select = dyn_cast_or_null<SelectOp>(def);
  if (!select)
    return false;
  std::optional<double> a = splatValue(select.getA());
  std::optional<double> b = splatValue(select.getB());
  if (b && isMaskingValue(*b))
    return isScores(select.getA());
  if (a && isMaskingValue(*a))
    return isScores(select.getB());
  return false;
}

Value keyOnlyUncached(OpBuilder &b, Value v, IRMapping &built);

/// `v` [.., S, Sk] with its query dim (-2) as 1, rebuilt where `v` depends
/// only on the leading dims and the key: splat constants, broadcasts along
/// the query dim (and leading dims) and elementwise ops of those. Null
/// where `v` depends on the query otherwise (a triangle, a value broadcast
/// along the keys). Ops are built at `b`; `built` maps what is built.
Value keyOnly(OpBuilder &b, Value v, IRMapping &built) {
  if (Value done = built.lookupOrNull(v))
    return done;
  Value result = keyOnlyUncached(b, v, built);
  if (result)
    built.map(v, result);
  return result;
}

Value keyOnlyUncached(OpBuilder &b, Value v, IRMapping &built) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() < 2)
    return {};
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  if (shape[rank - 2] == 1)
    return v;
  shape[rank - 2] = 1;
  RankedTensorType reduced = type.clone(shape);
  Location loc = v.getLoc();
  DenseElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.isSplat()
               ? arith::ConstantOp::create(b, loc, attr.resizeSplat(reduced))
                     .getResult()
               : Value();
  Operation *def = v.getDefiningOp();
  if (!def)
    return {};
  if (auto bc = dyn_cast<BroadcastOp>(def)) {
    ArrayRef<int64_t> dims = bc.getDimensions();
    if (!llvm::is_contained(dims, rank - 2) ||
        llvm::is_contained(dims, rank - 1))
      return {};
    // The operand lacks the query dim: broadcast it along the other added
    // dims (the result without the query dim), then view it with a 1 there.
    SmallVector<int64_t> rest, noQuery(type.getShape());
    noQuery.erase(noQuery.begin() + rank - 2);
    for (int64_t d : dims)
      if (d != rank - 2)
        rest.push_back(d < rank - 2 ? d : d - 1);
    Value x = bc.getX();
    if (!rest.empty())
      x = BroadcastOp::create(b, loc, type.clone(noQuery), x,
                              b.getDenseI64ArrayAttr(rest));
    return ReshapeOp::create(
        b, loc, cast<RankedTensorType>(x.getType()).clone(shape), x);
  }
  if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1 ||
      def->getNumRegions() != 0 || isa<DropoutOp>(def) ||
      !isMemoryEffectFree(def))
    return {};
  IRMapping mapping;
  for (Value operand : def->getOperands()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.getType());
    if (!operandType || operandType.getShape() != type.getShape())
      return {};
    Value mapped = keyOnly(b, operand, built);
    if (!mapped)
      return {};
    mapping.map(operand, mapped);
  }
  Operation *clone = b.clone(*def, mapping);
  clone->getResult(0).setType(
      cast<RankedTensorType>(def->getResult(0).getType()).clone(shape));
  return clone->getResult(0);
}

/// Whether keyOnly(v) would succeed, building nothing.
bool isKeyOnly(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() < 2)
    return false;
  int64_t rank = type.getRank();
  if (type.getDimSize(rank - 2) == 1)
    return true;
  DenseElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.isSplat();
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto bc = dyn_cast<BroadcastOp>(def)) {
    ArrayRef<int64_t> dims = bc.getDimensions();
    return llvm::is_contained(dims, rank - 2) &&
           !llvm::is_contained(dims, rank - 1);
  }
  if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1 ||
      def->getNumRegions() != 0 || isa<DropoutOp>(def) ||
      !isMemoryEffectFree(def))
    return false;
  for (Value operand : def->getOperands()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.getType());
    if (!operandType || operandType.getShape() != type.getShape() ||
        !isKeyOnly(operand))
      return false;
  }
  return true;
}

/// Everything a match found.
struct Match {
  Value q, k, v, bias, stepSeed;
  /// The scores' shape where `bias` is broadcast to it along the dims
  /// `biasAdded`, not all leading (empty otherwise).
  SmallVector<int64_t> biasAdded, scoresShape;
  /// A causal mask filled with `padFill` where `padMask` (a key-padding
  /// mask, broadcast to the scores along `biasAdded`) is true: the bias is
  /// select(padMask, padFill, 0), built when the match is replaced.
  Value padMask;
  double padFill = 0.0;
  /// A combined 4-D mask `padding + causal` (Hugging Face's
  /// _prepare_4d_causal_attention_mask): the padding part [.., S, Sk], a
  /// function of the leading dims and the key only, rebuilt with the query
  /// dim 1 as the bias [B, 1, 1, Sk] when the match is replaced.
  Value keyMask;
  double scale = 1.0;
  bool causal = false;
  double ratio = 0.0;
  int64_t seed = 0;
  SmallVector<Operation *> dead; // The matched ops, consumer first.
  /// `k` is [.., Sk, D] with more leading dims than q's one.
  bool kNeedsView = false;
};

bool singleUse(Value v) { return v.hasOneUse(); }

/// The padding part of a combined additive mask `other` = views and
/// broadcasts along the leading dims of `padding + causal`, causal an
/// additive triangle (0 on and below the diagonal, a masking value above)
/// and padding a function of the leading dims and the key only: on and
/// below the diagonal the sum is the padding, above it a masking value plus
/// a padding no larger than ~1e30 still masks. Records the scores' shape in
/// `m`; null when `other` is not such a mask.
Value combinedKeyMask(Value other, Match &m) {
  auto scores = cast<RankedTensorType>(other.getType());
  if (scores.getRank() != 4)
    return {};
  Value v = other;
  while (true) {
    if (auto bc = v.getDefiningOp<BroadcastOp>()) {
      int64_t rank = cast<RankedTensorType>(bc.getType()).getRank();
      ArrayRef<int64_t> dims = bc.getDimensions();
      // The batch (dim 0 of the scores) must come from the mask.
      if (llvm::any_of(dims, [&](int64_t d) { return d >= rank - 2; }) ||
          (llvm::is_contained(dims, 0) && scores.getDimSize(0) != 1))
        return {};
      v = bc.getX();
    } else if (auto r = v.getDefiningOp<ReshapeOp>();
               r && isLeadingReshape(r)) {
      v = r.getX();
    } else {
      break;
    }
  }
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return {};
  auto type = cast<RankedTensorType>(add.getType());
  // The mask's leading dims: the batch and ones.
  int64_t lead = 1;
  for (int64_t d : type.getShape().drop_back(2))
    lead *= d;
  if (lead != scores.getDimSize(0))
    return {};
  for (int side = 0; side < 2; ++side) {
    Value causal = add->getOperand(side), padding = add->getOperand(1 - side);
    if (isCausalAdditive(triangleOf(causal)) && isKeyOnly(padding) &&
        !dependsOnParam(padding)) {
      llvm::append_range(m.scoresShape, scores.getShape());
      return padding;
    }
  }
  return {};
}

/// Matches batch_matmul(P', v) upwards; fills `m` and returns true on an
/// exact match.
bool matchAttention(BatchMatmulOp pv, Match &m) {
  if (pv.getTransposeA() || pv.getTransposeB())
    return false;
  m.dead.push_back(pv);
  m.v = pv.getB();
  // Peels a single-use reshape of the leading dims off `v` (an importer
  // computes the S×Sk intermediates as [B, H, S, Sk], the GEMMs on
  // [B·H, S, Sk] views).
  auto throughView = [&](Value &v) {
    if (auto r = v.getDefiningOp<ReshapeOp>();
        r && isLeadingReshape(r) && singleUse(v)) {
      m.dead.push_back(r);
      v = r.getX();
    }
  };
  Value p = pv.getA();
  throughView(p);
  if (!singleUse(p))
    return false;
  if (auto drop = p.getDefiningOp<DropoutOp>()) {
    if (drop.getBroadcastDims() || !drop.getMask().use_empty())
      return false;
    m.ratio = drop.getRatio().convertToDouble();
    m.seed = static_cast<int64_t>(drop.getSeed());
    m.stepSeed = drop.getStepSeed();
    m.dead.push_back(drop);
    p = drop.getX();
    if (!singleUse(p))
      return false;
  }
  auto softmax = p.getDefiningOp<SoftmaxOp>();
  if (!softmax || static_cast<int64_t>(softmax.getAxis()) !=
                      cast<RankedTensorType>(softmax.getType()).getRank() - 1)
    return false;
  m.dead.push_back(softmax);
  Value x = softmax.getX();
  if (!singleUse(x))
    return false;
  // torch.max(scores, finfo.min) (older Hugging Face LLaMA, after its
  // mask): with a causal mask every row keeps a score above the floor, and a
  // masked score, floored or not, counts for nothing.
  bool clamped = false;
  if (auto clamp = x.getDefiningOp<ClampOp>()) {
    if (!isMaskingValue(clamp.getMin().convertToDouble()) ||
        clamp.getMax().convertToDouble() !=
            std::numeric_limits<double>::infinity())
      return false;
    clamped = true;
    m.dead.push_back(clamp);
    x = clamp.getX();
    if (!singleUse(x))
      return false;
  }
  // The mask: an additive constant or bias, or a select against −inf.
  if (auto add = x.getDefiningOp<AddOp>()) {
    Value other;
    for (int side = 0; side < 2 && !other; ++side) {
      Value candidate = add->getOperand(side);
      Value rest = add->getOperand(1 - side);
      // The scores side is a product, a quotient or the GEMM itself.
      if (isScores(rest) && !isScores(candidate)) {
        other = candidate;
        x = rest;
      }
    }
    if (!other)
      return false;
    m.dead.push_back(add);
    auto padded = other.getDefiningOp<SelectOp>();
    std::optional<double> fill =
        padded ? splatValue(padded.getA()) : std::nullopt;
    if (isCausalAdditive(triangleOf(other))) {
      m.causal = true;
    } else if (padded && fill && isMaskingValue(*fill) && padded->hasOneUse() &&
               isCausalAdditive(triangleOf(padded.getB()))) {
      // masked_fill(causal, key_padding, −inf) (nn.MultiheadAttention with
      // both masks): causal, and the key-padding mask as a bias.
      m.causal = true;
      m.padFill = *fill;
      m.dead.push_back(padded);
      m.padMask = padded.getCond();
      if (auto b = m.padMask.getDefiningOp<BroadcastOp>()) {
        m.padMask = b.getX();
        llvm::append_range(m.biasAdded, b.getDimensions());
        llvm::append_range(m.scoresShape,
                           cast<RankedTensorType>(b.getType()).getShape());
      }
      if (m.biasAdded.empty())
        return false;
    } else if (DenseElementsAttr mask = maskConstant(other);
               mask && isCausalAdditive(mask)) {
      m.causal = true;
    } else if (Value key = combinedKeyMask(other, m)) {
      m.causal = true;
      m.keyMask = key;
    } else {
      // A bias shared by the batch is passed unbroadcast; one broadcast
      // along other dims (a key-padding mask) too, with 1 in those dims.
      auto b = other.getDefiningOp<BroadcastOp>();
      m.bias = b ? b.getX() : other;
      if (b && !isLeadingBroadcast(b)) {
        llvm::append_range(m.biasAdded, b.getDimensions());
        llvm::append_range(m.scoresShape,
                           cast<RankedTensorType>(b.getType()).getShape());
      }
      if (dependsOnParam(m.bias))
        return false;
    }
    if (!singleUse(x))
      return false;
  }
  if (auto select = x.getDefiningOp<SelectOp>();
      select && !m.causal && isScores(select)) {
    // select(keep, x, −inf) with keep true on and below the diagonal, or
    // select(drop, −inf, x) (PyTorch's masked_fill) with drop its negation
    // (−inf or a masking value: Hugging Face's torch.where(causal, x,
    // finfo.min)).
    DenseElementsAttr mask = maskConstant(select.getCond());
    auto isNegInf = [](Value v) {
      std::optional<double> fill = splatValue(v);
      return fill && isMaskingValue(*fill);
    };
    std::optional<Triangle> tri = triangleOf(select.getCond());
    bool keep =
        tri ? isCausal(tri, 1.0, 0.0)
            : mask && !mask.isSplat() && isCausal<bool>(mask, true, false);
    bool drop =
        tri ? isCausal(tri, 0.0, 1.0)
            : mask && !mask.isSplat() && isCausal<bool>(mask, false, true);
    if (isNegInf(select.getB()) && keep)
      x = select.getA();
    else if (isNegInf(select.getA()) && drop)
      x = select.getB();
    else
      return false;
    m.causal = true;
    m.dead.push_back(select);
    if (!singleUse(x))
      return false;
  }
  // The scale: a splat product or quotient (absent: q was scaled before).
  if (auto mul = x.getDefiningOp<MulOp>()) {
    std::optional<double> c = splatValue(mul.getRhs());
    Value rest = mul.getLhs();
    if (!c) {
      c = splatValue(mul.getLhs());
      rest = mul.getRhs();
    }
    if (!c)
      return false;
    m.scale = *c;
    m.dead.push_back(mul);
    x = rest;
  } else if (auto div = x.getDefiningOp<DivOp>()) {
    std::optional<double> c = splatValue(div.getRhs());
    if (!c || *c == 0.0)
      return false;
    m.scale = 1.0 / *c;
    m.dead.push_back(div);
    x = div.getLhs();
  }
  if (clamped && !m.causal)
    return false;
  if (!singleUse(x))
    return false;
  throughView(x);
  if (!singleUse(x))
    return false;
  auto qk = x.getDefiningOp<BatchMatmulOp>();
  if (!qk || qk.getTransposeA())
    return false;
  m.dead.push_back(qk);
  m.q = qk.getA();
  m.k = qk.getB();
  if (!qk.getTransposeB()) {
    // batch_matmul(q, transpose(k)), the transpose maybe of [B, H, Sk, D]
    // before a view as [B·H, D, Sk].
    Value kt = m.k;
    auto view = kt.getDefiningOp<ReshapeOp>();
    if (view && isLeadingReshape(view))
      kt = view.getX();
    auto t = kt.getDefiningOp<TransposeOp>();
    if (!t)
      return false;
    ArrayRef<int64_t> perm = t.getPermutation();
    int64_t rank = perm.size();
    for (int64_t d = 0; d < rank - 2; ++d)
      if (perm[d] != d)
        return false;
    if (rank < 3 || perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
      return false;
    m.k = t.getX();
    m.kNeedsView = rank != 3;
  }
  return true;
}

/// `x` [N, A, B] seen as [1, N, A, B].
Value asRank4(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(4 - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  return ReshapeOp::create(b, loc, type.clone(shape), x);
}

/// `x` [.., A, B] seen as [d0, d1, A, B].
Value viewAs(OpBuilder &b, Location loc, Value x, int64_t d0, int64_t d1) {
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = type.getShape();
  return ReshapeOp::create(
      b, loc,
      type.clone({d0, d1, shape[shape.size() - 2], shape[shape.size() - 1]}),
      x);
}

/// Erases what computed `v` (the scale, the mask and its broadcast, a
/// transpose of k, a view in the chain) once nothing reads it, recording
/// each erased op in `erased`. Takes the defining op (not the value): an
/// op reading one value twice, or through two paths, may see it erased.
void eraseIfDead(Operation *def, llvm::SmallPtrSetImpl<Operation *> &erased) {
  if (!def || erased.contains(def) || !def->use_empty() ||
      !(isa<arith::ConstantOp, BroadcastOp, TransposeOp, ReshapeOp, TriangleOp,
            LogicalNotOp, CompareOp>(def) ||
        (def->hasTrait<OpTrait::Elementwise>() && def->getNumRegions() == 0 &&
         !isa<DropoutOp>(def) && isMemoryEffectFree(def))))
    return;
  SmallVector<Operation *> operands;
  for (Value operand : def->getOperands())
    operands.push_back(operand.getDefiningOp());
  erased.insert(def);
  def->erase();
  for (Operation *operand : operands)
    eraseIfDead(operand, erased);
}

struct EchoFuseAttentionPass
    : public echo::impl::EchoFuseAttentionBase<EchoFuseAttentionPass> {
  void runOnOperation() override {
    SmallVector<BatchMatmulOp> candidates;
    getOperation().walk([&](BatchMatmulOp op) { candidates.push_back(op); });
    llvm::SmallPtrSet<Operation *, 16> erased;
    for (BatchMatmulOp pv : candidates) {
      if (erased.contains(pv))
        continue;
      Match m;
      if (!matchAttention(pv, m))
        continue;
      auto qShape = cast<RankedTensorType>(m.q.getType()).getShape();
      int64_t n = qShape[0], len = qShape[1];
      int64_t keys = cast<RankedTensorType>(m.v.getType()).getDimSize(1);
      // The bias as [1, 1, S, Sk] or [1, N, S, Sk]: [S, Sk], or the full
      // scores' shape ([N, S, Sk], [B, H, S, Sk]).
      SmallVector<int64_t> biasShape;
      // [B, H] of the attention: [1, N] unless a bias broadcast along
      // non-leading dims of [B, H, S, Sk] scores needs them apart.
      int64_t batch = 1, heads = n;
      if (m.keyMask) {
        if (m.scoresShape.size() != 4 ||
            m.scoresShape[0] * m.scoresShape[1] != n ||
            ArrayRef(m.scoresShape).take_back(2) != ArrayRef{len, keys})
          continue;
        batch = m.scoresShape[0];
        heads = m.scoresShape[1];
        biasShape = {batch, 1, 1, keys};
      } else if (!m.biasAdded.empty()) {
        ArrayRef<int64_t> full = m.scoresShape;
        if (full.size() != 3 && full.size() != 4)
          continue;
        biasShape.assign(full.begin(), full.end());
        for (int64_t d : m.biasAdded)
          biasShape[d] = 1;
        if (full.size() == 3) {
          biasShape.insert(biasShape.begin(), 1);
        } else {
          batch = full[0];
          heads = full[1];
        }
        if (batch * heads != n || full.take_back(2) != ArrayRef{len, keys})
          continue;
      } else if (m.bias) {
        auto shape = cast<RankedTensorType>(m.bias.getType()).getShape();
        int64_t lead = 1;
        for (int64_t d : shape.drop_back(2))
          lead *= d;
        if (shape.size() < 2 || shape.take_back(2) != ArrayRef{len, keys} ||
            (lead != 1 && lead != n))
          continue;
        biasShape = {1, lead, len, keys};
      }
      OpBuilder b(pv);
      Location loc = pv.getLoc();
      Operation *before = pv->getPrevNode();
      if (m.keyMask) {
        IRMapping built;
        m.bias = keyOnly(b, m.keyMask, built);
      }
      if (m.padMask) {
        auto type =
            cast<RankedTensorType>(m.padMask.getType())
                .clone(cast<RankedTensorType>(m.q.getType()).getElementType());
        auto splat = [&](double value) -> Value {
          return arith::ConstantOp::create(
              b, loc,
              DenseElementsAttr::get(
                  type, b.getFloatAttr(type.getElementType(), value)));
        };
        m.bias = SelectOp::create(b, loc, type, m.padMask, splat(m.padFill),
                                  splat(0.0));
      }
      if (m.kNeedsView) {
        auto kType = cast<RankedTensorType>(m.k.getType());
        m.k = ReshapeOp::create(
            b, loc, kType.clone({n, keys, kType.getShape().back()}), m.k);
      }
      Value q, k, v;
      if (batch == 1) {
        q = asRank4(b, loc, m.q), k = asRank4(b, loc, m.k),
        v = asRank4(b, loc, m.v);
      } else {
        q = viewAs(b, loc, m.q, batch, heads);
        k = viewAs(b, loc, m.k, batch, heads);
        v = viewAs(b, loc, m.v, batch, heads);
      }
      Value bias;
      if (m.bias)
        bias = ReshapeOp::create(
            b, loc, cast<RankedTensorType>(m.bias.getType()).clone(biasShape),
            m.bias);
      auto qType = cast<RankedTensorType>(q.getType());
      ArrayRef<int64_t> qs = qType.getShape();
      auto outType =
          qType.clone({qs[0], qs[1], qs[2],
                       cast<RankedTensorType>(v.getType()).getDimSize(3)});
      auto lseType =
          RankedTensorType::get({qs[0], qs[1], qs[2]}, b.getF32Type());
      auto attention = AttentionOp::create(
          b, loc, TypeRange{outType, lseType}, q, k, v, bias, m.stepSeed,
          b.getF64FloatAttr(m.scale), b.getBoolAttr(m.causal),
          b.getF64FloatAttr(m.ratio), b.getI64IntegerAttr(m.seed));
      Value out = ReshapeOp::create(b, loc, pv.getType(), attention.getOut());
      pv.getResult().replaceAllUsesWith(out);
      // The new ops stay in the checkpoint region of the chain they
      // replace.
      if (Attribute region =
              pv->getAttr(EchoDialect::getCheckpointRegionAttrName())) {
        Operation *first =
            before ? before->getNextNode() : &pv->getBlock()->front();
        for (Operation *op = first; op != pv.getOperation();
             op = op->getNextNode())
          op->setAttr(EchoDialect::getCheckpointRegionAttrName(), region);
      }
      // A view of the chain may have gone already with what read it.
      for (Operation *op : m.dead) {
        if (erased.contains(op))
          continue;
        SmallVector<Operation *> operands;
        for (Value operand : op->getOperands())
          operands.push_back(operand.getDefiningOp());
        erased.insert(op);
        op->erase();
        for (Operation *operand : operands)
          eraseIfDead(operand, erased);
      }
      ++numFused;
    }
  }
};

} // namespace
