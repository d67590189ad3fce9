//===- EchoGradients.cpp - Vector-Jacobian products of Echo ops -*- C++ -*-===//
//
// Part of the Echo project.
//
// DifferentiableOpInterface::buildGradient for every forward op. Each builder
// reads exactly the forward values the op lists in `gradientReadsOperands` /
// `gradientReadsResults` (EchoOps.td); echo-recompute relies on that.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::echo;

/// Fills `grads` with null values, one per operand of `op`, and returns the
/// adjoint of result `index` (null when there is none).
static Value prepare(Operation *op, ValueRange resultGrads,
                     SmallVectorImpl<Value> &grads, unsigned index = 0) {
  grads.assign(op->getNumOperands(), Value());
  return index < resultGrads.size() ? resultGrads[index] : Value();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult AddOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = grads[1] = dy;
  return success();
}

LogicalResult SubOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads)) {
    grads[0] = dy;
    grads[1] = NegOp::create(b, getLoc(), dy);
  }
  return success();
}

LogicalResult MulOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads)) {
    grads[0] = MulOp::create(b, getLoc(), dy, getRhs());
    grads[1] = MulOp::create(b, getLoc(), dy, getLhs());
  }
  return success();
}

LogicalResult DivOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads)) {
    // d(a/b) = da / b - db * (a/b) / b
    grads[0] = DivOp::create(b, getLoc(), dy, getRhs());
    Value scaled = MulOp::create(b, getLoc(), dy, getResult());
    grads[1] = NegOp::create(b, getLoc(),
                             DivOp::create(b, getLoc(), scaled, getRhs()));
  }
  return success();
}

LogicalResult NegOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = NegOp::create(b, getLoc(), dy);
  return success();
}

LogicalResult ExpOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = MulOp::create(b, getLoc(), dy, getResult());
  return success();
}

LogicalResult LogOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = DivOp::create(b, getLoc(), dy, getX());
  return success();
}

LogicalResult TanhOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                    SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = TanhGradOp::create(b, getLoc(), getResult(), dy);
  return success();
}

LogicalResult SigmoidOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                       SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = SigmoidGradOp::create(b, getLoc(), getResult(), dy);
  return success();
}

LogicalResult ReluOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                    SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = ReluGradOp::create(b, getLoc(), dy.getType(), getX(), dy);
  return success();
}

LogicalResult SqrtOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                    SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads)) {
    // d sqrt(x) = dy / (2 sqrt(x))
    Value twiceY = AddOp::create(b, getLoc(), getResult(), getResult());
    grads[0] = DivOp::create(b, getLoc(), dy, twiceY);
  }
  return success();
}

/// The adjoint of an activation whose gradient op reads the forward input
/// (`GradOp(x, dy, attrs...)`).
template <typename GradOp, typename OpTy, typename... Attrs>
static LogicalResult
buildInputActivationGradient(OpTy op, OpBuilder &b, ValueRange resultGrads,
                             SmallVectorImpl<Value> &grads, Attrs... attrs) {
  if (Value dy = prepare(op, resultGrads, grads))
    grads[0] = GradOp::create(b, op.getLoc(), op.getX(), dy, attrs...);
  return success();
}

LogicalResult ErfOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  return buildInputActivationGradient<ErfGradOp>(*this, b, resultGrads, grads);
}

LogicalResult SiluOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                    SmallVectorImpl<Value> &grads) {
  return buildInputActivationGradient<SiluGradOp>(*this, b, resultGrads, grads);
}

LogicalResult HardswishOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  return buildInputActivationGradient<HardswishGradOp>(*this, b, resultGrads,
                                                       grads);
}

LogicalResult HardsigmoidOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                           SmallVectorImpl<Value> &grads) {
  return buildInputActivationGradient<HardsigmoidGradOp>(*this, b, resultGrads,
                                                         grads);
}

LogicalResult MishOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                    SmallVectorImpl<Value> &grads) {
  return buildInputActivationGradient<MishGradOp>(*this, b, resultGrads, grads);
}

LogicalResult GeluOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                    SmallVectorImpl<Value> &grads) {
  return buildInputActivationGradient<GeluGradOp>(*this, b, resultGrads, grads,
                                                  getTanhApproximationAttr());
}

LogicalResult ClampOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                     SmallVectorImpl<Value> &grads) {
  // clamp_grad also takes a mask for x, so its result type is not inferred.
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = ClampGradOp::create(b, getLoc(), dy.getType(), getX(), dy,
                                   getMinAttr(), getMaxAttr());
  return success();
}

LogicalResult SelectOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                      SmallVectorImpl<Value> &grads) {
  Value dy = prepare(*this, resultGrads, grads);
  if (!dy)
    return success();
  // The mask routes dy to the operand it chose and zero to the other, as
  // torch.where's backward does; the mask itself gets no adjoint.
  Location loc = getLoc();
  auto type = cast<RankedTensorType>(dy.getType());
  Value zero = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  grads[1] = SelectOp::create(b, loc, type, getCond(), dy, zero);
  grads[2] = SelectOp::create(b, loc, type, getCond(), zero, dy);
  return success();
}

LogicalResult CastOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                    SmallVectorImpl<Value> &grads) {
  // The adjoint of a conversion is the conversion back: a low-precision
  // adjoint reaches an f32 master weight in f32.
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = CastOp::create(b, getLoc(), getX().getType(), dy);
  return success();
}

//===----------------------------------------------------------------------===//
// Shape and reduction ops
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = ReduceSumOp::create(b, getLoc(), getX().getType(), dy,
                                   getDimensionsAttr());
  return success();
}

LogicalResult ReduceSumOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = BroadcastOp::create(b, getLoc(), getX().getType(), dy,
                                   getDimensionsAttr());
  return success();
}

LogicalResult ReduceMaxOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = ReduceMaxGradOp::create(b, getLoc(), getX().getType(), getX(),
                                       getResult(), dy, getDimensionsAttr());
  return success();
}

LogicalResult SliceOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                     SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = SliceGradOp::create(b, getLoc(), getX().getType(), dy,
                                   getOffsetsAttr());
  return success();
}

LogicalResult ConcatOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                      SmallVectorImpl<Value> &grads) {
  Value dy = prepare(*this, resultGrads, grads);
  if (!dy)
    return success();
  auto dyType = cast<RankedTensorType>(dy.getType());
  SmallVector<int64_t> offsets(dyType.getRank(), 0);
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    grads[i] =
        SliceOp::create(b, getLoc(), type, dy, b.getDenseI64ArrayAttr(offsets),
                        b.getDenseI64ArrayAttr(type.getShape()));
    offsets[getAxis()] += type.getDimSize(getAxis());
  }
  return success();
}

LogicalResult ReshapeOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                       SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = ReshapeOp::create(b, getLoc(), getX().getType(), dy);
  return success();
}

LogicalResult TransposeOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  Value dy = prepare(*this, resultGrads, grads);
  if (!dy)
    return success();
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  grads[0] = TransposeOp::create(b, getLoc(), getX().getType(), dy,
                                 b.getDenseI64ArrayAttr(inverse));
  return success();
}

//===----------------------------------------------------------------------===//
// Compute-heavy ops: gradients read the inputs, never the output.
//===----------------------------------------------------------------------===//

/// Adjoints of C = op(A) · op(B) for (batch_)matmul. With the transposes of
/// the forward op, each adjoint is one product of the output gradient and
/// the other input:
///   dA = dC·op(B)ᵀ  (stored as op(A) is: transposed when transpose_a)
///   dB = op(A)ᵀ·dC  (likewise for transpose_b)
template <typename MatmulLike>
static void buildMatmulGradients(OpBuilder &b, MatmulLike op, Value dc,
                                 SmallVectorImpl<Value> &grads) {
  Location loc = op.getLoc();
  Value a = op.getA(), bv = op.getB();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  auto product = [&](Type type, Value lhs, Value rhs, bool tl, bool tr) {
    return MatmulLike::create(b, loc, type, lhs, rhs, b.getBoolAttr(tl),
                              b.getBoolAttr(tr))
        .getResult();
  };
  if (!ta)
    grads[0] = product(a.getType(), dc, bv, false, !tb); // dC·op(B)ᵀ
  else
    grads[0] = product(a.getType(), bv, dc, tb, true); // op(B)·dCᵀ
  if (!tb)
    grads[1] = product(bv.getType(), a, dc, !ta, false); // op(A)ᵀ·dC
  else
    grads[1] = product(bv.getType(), dc, a, true, ta); // dCᵀ·op(A)
}

LogicalResult MatmulOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                      SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    buildMatmulGradients(b, *this, dy, grads);
  return success();
}

LogicalResult BatchMatmulOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                           SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    buildMatmulGradients(b, *this, dy, grads);
  return success();
}

LogicalResult LinearOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                      SmallVectorImpl<Value> &grads) {
  Value dy = prepare(*this, resultGrads, grads);
  if (!dy)
    return success();
  Location loc = getLoc();
  // Y = X·Wᵀ + b:  dX = dY·W,  dW = dYᵀ·X,  db = Σ_rows dY.
  grads[0] = MatmulOp::create(b, loc, getX().getType(), dy, getW(),
                              b.getBoolAttr(false), b.getBoolAttr(false));
  grads[1] = MatmulOp::create(b, loc, getW().getType(), dy, getX(),
                              b.getBoolAttr(true), b.getBoolAttr(false));
  grads[2] = ReduceSumOp::create(b, loc, getB().getType(), dy,
                                 b.getDenseI64ArrayAttr({0}));
  return success();
}

LogicalResult Conv2DOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                      SmallVectorImpl<Value> &grads) {
  Value dy = prepare(*this, resultGrads, grads);
  if (!dy)
    return success();
  grads[0] = Conv2DGradInputOp::create(b, getLoc(), getX().getType(), getW(),
                                       dy, getStridesAttr(), getPaddingAttr(),
                                       getGroupsAttr());
  grads[1] = Conv2DGradFilterOp::create(b, getLoc(), getW().getType(), getX(),
                                        dy, getStridesAttr(), getPaddingAttr(),
                                        getGroupsAttr());
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling, normalization, dropout, embedding
//===----------------------------------------------------------------------===//

LogicalResult MaxPool2DOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = MaxPool2DGradOp::create(b, getLoc(), getX().getType(), getX(),
                                       dy, getKernelAttr(), getStridesAttr(),
                                       getPaddingAttr(), getCeilModeAttr());
  return success();
}

LogicalResult AvgPool2DOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = AvgPool2DGradOp::create(
        b, getLoc(), getX().getType(), dy, getKernelAttr(), getStridesAttr(),
        getPaddingAttr(), getCeilModeAttr(), getCountIncludePadAttr());
  return success();
}

LogicalResult
AdaptiveAvgPool2DOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] =
        AdaptiveAvgPool2DGradOp::create(b, getLoc(), getX().getType(), dy);
  return success();
}

template <typename NormGradOp, typename NormOp>
static void buildNormGradients(OpBuilder &b, NormOp op, Value dy,
                               SmallVectorImpl<Value> &grads) {
  auto grad =
      NormGradOp::create(b, op.getLoc(),
                         TypeRange{op.getX().getType(), op.getGamma().getType(),
                                   op.getBeta().getType()},
                         op.getX(), op.getGamma(), dy, op.getEpsilonAttr());
  grads[0] = grad.getDx();
  grads[1] = grad.getDgamma();
  grads[2] = grad.getDbeta();
}

LogicalResult BatchNormOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    buildNormGradients<BatchNormGradOp>(b, *this, dy, grads);
  return success();
}

LogicalResult LayerNormOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    buildNormGradients<LayerNormGradOp>(b, *this, dy, grads);
  return success();
}

LogicalResult SoftmaxOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                       SmallVectorImpl<Value> &grads) {
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] =
        SoftmaxGradOp::create(b, getLoc(), getResult(), dy, getAxisAttr());
  return success();
}

LogicalResult DropoutOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                       SmallVectorImpl<Value> &grads) {
  // The mask result is not differentiable; only `result` carries a gradient.
  if (Value dy = prepare(*this, resultGrads, grads))
    grads[0] = DropoutGradOp::create(b, getLoc(), dy.getType(), getMask(), dy,
                                     getRatioAttr());
  return success();
}

LogicalResult EmbeddingOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  Value dy = prepare(*this, resultGrads, grads);
  if (!dy)
    return success();
  if (std::optional<uint64_t> pad = getPaddingIdx()) {
    // The row padding_idx gets nothing: the adjoints of the tokens with that
    // id are dropped before the scatter (PyTorch's embedding_backward).
    Location loc = getLoc();
    auto idsType = cast<RankedTensorType>(getIds().getType());
    auto dyType = cast<RankedTensorType>(dy.getType());
    Value padIds = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            idsType, b.getIntegerAttr(idsType.getElementType(), *pad)));
    Value isPad = CompareOp::create(b, loc, idsType.clone(b.getI1Type()),
                                    ComparePredicate::eq, getIds(), padIds);
    Value mask =
        BroadcastOp::create(b, loc, dyType.clone(b.getI1Type()), isPad,
                            b.getDenseI64ArrayAttr({dyType.getRank() - 1}));
    Value zero = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(dyType, b.getZeroAttr(dyType.getElementType())));
    dy = SelectOp::create(b, loc, dyType, mask, zero, dy);
  }
  grads[1] =
      EmbeddingGradOp::create(b, getLoc(), getTable().getType(), getIds(), dy);
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyOp::buildGradient(OpBuilder &b,
                                            ValueRange resultGrads,
                                            SmallVectorImpl<Value> &grads) {
  if (Value dloss = prepare(*this, resultGrads, grads))
    grads[0] = CrossEntropyGradOp::create(
        b, getLoc(), getLogits().getType(), getLogits(), getLabels(), dloss,
        /*count=*/Value(), /*total_rows=*/IntegerAttr(), getIgnoreIndexAttr(),
        getLabelSmoothingAttr());
  return success();
}

LogicalResult LabelCountOp::buildGradient(OpBuilder &,
                                          ValueRange /*resultGrads*/,
                                          SmallVectorImpl<Value> &grads) {
  // The labels are integers: nothing to differentiate.
  grads.assign(1, Value());
  return success();
}

LogicalResult MseLossOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                       SmallVectorImpl<Value> &grads) {
  Value dloss = prepare(*this, resultGrads, grads);
  if (!dloss)
    return success();
  grads[0] = MseLossGradOp::create(b, getLoc(), getPred().getType(), getPred(),
                                   getTarget(), dloss);
  grads[1] = NegOp::create(b, getLoc(), grads[0]);
  return success();
}
