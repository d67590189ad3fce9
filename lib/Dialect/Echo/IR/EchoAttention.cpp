//===- EchoAttention.cpp - Fused attention ops ------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// Verifiers, FLOP counts and the gradient of echo.attention and
// echo.attention_grad (EchoAttentionOps.td).
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "EchoOpUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

/// The query·key pairs (i, j) of an S×Sk attention that `causal` (top-left
/// aligned: j <= i) leaves, or all S·Sk of them.
static int64_t unmaskedPairs(int64_t s, int64_t sk, bool causal) {
  if (!causal)
    return s * sk;
  int64_t m = std::min(s, sk);
  return m * (m + 1) / 2 + (s - m) * sk;
}

/// The rules both ops check: q [B,H,S,D], k [B,Hkv,Sk,D], v [B,Hkv,Sk,Dv]
/// with H a multiple of Hkv, one element type, a bias broadcastable to
/// [B,H,S,Sk], the scale finite and the dropout ratio in [0, 1); `out`
/// [B,H,S,Dv] and `lse` [B,H,S] of f32 (as results or as the gradient's
/// operands).
template <typename OpT>
static LogicalResult verifyAttention(OpT op, Value out, Value lse,
                                     StringRef outName, StringRef lseName) {
  ArrayRef<int64_t> q = shapeOf(op.getQ()), k = shapeOf(op.getK()),
                    v = shapeOf(op.getV());
  Type et = getElementTypeOrSelf(op.getQ().getType());
  auto sameType = [&](Value value, StringRef name) -> LogicalResult {
    if (getElementTypeOrSelf(value.getType()) == et)
      return success();
    return op.emitOpError()
           << "'" << name << "' has element type "
           << getElementTypeOrSelf(value.getType()) << " but 'q' has " << et;
  };
  if (failed(sameType(op.getK(), "k")) || failed(sameType(op.getV(), "v")) ||
      failed(sameType(out, outName)))
    return failure();
  if (k[0] != q[0] || v[0] != q[0])
    return op.emitOpError()
           << "'q', 'k' and 'v' must have the same batch "
           << "size, got " << q[0] << ", " << k[0] << " and " << v[0];
  if (v[1] != k[1])
    return op.emitOpError()
           << "'v' has " << v[1] << " heads but 'k' has " << k[1];
  if (q[1] % k[1] != 0)
    return op.emitOpError()
           << "'q' has " << q[1] << " heads, not a multiple of the " << k[1]
           << " heads of 'k' and 'v'";
  if (v[2] != k[2])
    return op.emitOpError()
           << "'v' has " << v[2] << " keys but 'k' has " << k[2];
  if (k[3] != q[3])
    return op.emitOpError()
           << "'k' has head dim " << k[3] << " but 'q' has " << q[3];
  if (Value bias = op.getBias()) {
    if (failed(sameType(bias, "bias")))
      return failure();
    ArrayRef<int64_t> b = shapeOf(bias);
    int64_t full[] = {q[0], q[1], q[2], k[2]};
    for (int d = 0; d < 4; ++d)
      if (b[d] != 1 && b[d] != full[d])
        return op.emitOpError()
               << "'bias' of shape " << formatShape(b)
               << " does not broadcast to " << formatShape(full);
  }
  double scale = op.getScale().convertToDouble();
  if (!std::isfinite(scale))
    return op.emitOpError()
           << "'scale' must be finite, got " << llvm::formatv("{0}", scale);
  double ratio = op.getDropoutRatio().convertToDouble();
  if (!(ratio >= 0.0 && ratio < 1.0))
    return op.emitOpError() << "'dropout_ratio' must be in [0, 1), got "
                            << llvm::formatv("{0}", ratio);
  if (failed(verifyResultShape(op, out, {q[0], q[1], q[2], v[3]},
                               ("'" + outName + "'").str())) ||
      failed(verifyResultShape(op, lse, {q[0], q[1], q[2]},
                               ("'" + lseName + "'").str())))
    return failure();
  if (!getElementTypeOrSelf(lse.getType()).isF32())
    return op.emitOpError() << "'" << lseName << "' must be f32, not "
                            << getElementTypeOrSelf(lse.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// echo.attention
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::verify() {
  return verifyAttention(*this, getOut(), getLse(), "out", "lse");
}

int64_t AttentionOp::getUnmaskedPairs() {
  return unmaskedPairs(getQueryLength(), getKeyLength(), getCausal());
}

/// q·kᵀ (2·D per pair) and p·v (2·Dv per pair).
int64_t AttentionOp::estimateFlops() {
  return getBatch() * getHeads() * getUnmaskedPairs() *
         (2 * getHeadDim() + 2 * getValueDim());
}

SmallVector<unsigned> AttentionOp::getGradientReadOperands() {
  // q, k, v, and the bias and step seed where present: every operand.
  SmallVector<unsigned> reads;
  for (unsigned i = 0, e = getNumOperands(); i < e; ++i)
    reads.push_back(i);
  return reads;
}

SmallVector<unsigned> AttentionOp::getGradientReadResults() { return {0, 1}; }

Value AttentionOp::buildGradientReadMask(OpBuilder &, Location, Value) {
  return {};
}

bool AttentionOp::isStochasticMaskResult(unsigned) { return false; }

/// q, k and v get gradients; the bias is data and the seed an integer.
bool AttentionOp::isDifferentiableOperand(unsigned index) { return index < 3; }

LogicalResult AttentionOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                         SmallVectorImpl<Value> &grads) {
  grads.assign(getNumOperands(), Value());
  if (resultGrads.size() > 1 && resultGrads[1])
    return emitOpError() << "cannot be differentiated through its 'lse' "
                            "result (only 'out' has a gradient)";
  Value dout = resultGrads.empty() ? Value() : resultGrads[0];
  if (!dout)
    return success();
  auto grad = AttentionGradOp::create(
      b, getLoc(),
      TypeRange{getQ().getType(), getK().getType(), getV().getType()}, getQ(),
      getK(), getV(), getOut(), getLse(), dout, getBias(), getStepSeed(),
      getScaleAttr(), getCausalAttr(), getDropoutRatioAttr(), getSeedAttr());
  grads[0] = grad.getDq();
  grads[1] = grad.getDk();
  grads[2] = grad.getDv();
  return success();
}

//===----------------------------------------------------------------------===//
// echo.attention_grad
//===----------------------------------------------------------------------===//

LogicalResult AttentionGradOp::verify() {
  if (failed(verifyAttention(*this, getOut(), getLse(), "out", "lse")))
    return failure();
  if (getDout().getType() != getOut().getType())
    return emitOpError() << "'dout' has type " << getDout().getType()
                         << " but 'out' has " << getOut().getType();
  if (getDq().getType() != getQ().getType() ||
      getDk().getType() != getK().getType() ||
      getDv().getType() != getV().getType())
    return emitOpError() << "results 'dq', 'dk', 'dv' must have the types of "
                            "'q', 'k', 'v'";
  return success();
}

int64_t AttentionGradOp::getUnmaskedPairs() {
  return unmaskedPairs(getQueryLength(), getKeyLength(), getCausal());
}

/// The CPU runtime's deterministic backward in two sweeps (dq by query
/// blocks, dk and dv by key blocks) recomputes q·kᵀ and dout·vᵀ in each:
/// 2·(2·D + 2·Dv) per pair, plus ds·k and dsᵀ·q (2·D each) and pᵀ·dout
/// (2·Dv), about 3.5 times the forward.
int64_t AttentionGradOp::estimateFlops() {
  return getBatch() * getHeads() * getUnmaskedPairs() *
         (8 * getHeadDim() + 6 * getValueDim());
}
