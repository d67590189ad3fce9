//===- Optimizer.cpp - The optimizer update ops ---------------------------===//
//
// Part of the Echo project.
//
// `echo.momentum_update` and `echo.adam_update` become one elementwise
// `linalg.generic` whose outputs are the parameter and state tensors
// themselves (destination-passing), so that one-shot bufferization writes
// the new values into the caller's buffers. The hyperparameters are 0-d
// inputs read by every iteration; Adam's per-step factors (1 - beta,
// lr / (1 - beta1^t), sqrt(1 - beta2^t), 1 - lr * wd) are computed once, in
// f64 and rounded to f32 as PyTorch computes them in Python, by a 0-d
// generic before it (a single-thread kernel on a GPU, where the host does
// not read device memory).
//
// The arithmetic follows PyTorch 1.13's CPU kernels rounding for rounding:
// where torch.optim calls `add(x, alpha=a)` (a vectorized fused multiply-
// add) the update uses `math.fma`, elsewhere separate f32 operations in
// PyTorch's order. f16/bf16 parameters are updated in f32 and rounded.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"
#include "Patterns.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::linalg_lowering;

namespace {

/// Scalar arithmetic in one float type inside a generic's body.
struct Arith {
  OpBuilder &b;
  Location loc;

  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value sqrt(Value x) { return math::SqrtOp::create(b, loc, x); }
  /// `x * y + z`, rounded once (PyTorch's `z.add(x, alpha=y)`).
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value constant(Type type, double value) {
    return floatConst(b, loc, type, value);
  }
  /// `x` converted to `type` (extended or rounded).
  Value convert(Value x, Type type) {
    unsigned from = x.getType().getIntOrFloatBitWidth();
    unsigned to = type.getIntOrFloatBitWidth();
    if (x.getType() == type)
      return x;
    if (from < to)
      return arith::ExtFOp::create(b, loc, type, x);
    return arith::TruncFOp::create(b, loc, type, x);
  }
};

/// Builds the elementwise update over `inputs` (the full-shape ones first,
/// then 0-d ones) into `outputs` (the parameter and its state, updated in
/// place). `body` gets the inputs and outputs as f32 scalars and returns the
/// new outputs in f32.
SmallVector<Value> buildUpdate(
    OpBuilder &b, Location loc, ValueRange fullInputs, ValueRange scalarInputs,
    ValueRange outputs,
    function_ref<SmallVector<Value>(Arith &, ValueRange, ValueRange)> body) {
  auto type = cast<RankedTensorType>(outputs.front().getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap scalar = AffineMap::get(rank, 0, ctx);
  SmallVector<AffineMap> maps(fullInputs.size(), id);
  maps.append(scalarInputs.size(), scalar);
  maps.append(outputs.size(), id);
  SmallVector<Value> inputs(fullInputs);
  llvm::append_range(inputs, scalarInputs);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, ValueRange(outputs).getTypes(), inputs, outputs, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Arith a{nb, nl};
        Type f32 = nb.getF32Type();
        SmallVector<Value> in, out;
        for (Value v : args.take_front(inputs.size()))
          in.push_back(a.convert(v, f32));
        for (Value v : args.drop_front(inputs.size()))
          out.push_back(a.convert(v, f32));
        SmallVector<Value> results;
        for (Value v : body(a, in, out))
          results.push_back(a.convert(v, type.getElementType()));
        linalg::YieldOp::create(nb, nl, results);
      });
  return generic.getResults();
}

struct MomentumUpdateLowering : OpRewritePattern<MomentumUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MomentumUpdateOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> results = buildUpdate(
        rewriter, op.getLoc(), {op.getGrad()},
        {op.getLr(), op.getMomentum(), op.getWeightDecay()},
        {op.getParam(), op.getVelocity()},
        [](Arith &a, ValueRange in, ValueRange out) -> SmallVector<Value> {
          Value g = in[0], lr = in[1], mu = in[2], wd = in[3];
          Value p = out[0], v = out[1];
          // d_p = grad.add(param, alpha=weight_decay)
          Value d = a.fma(p, wd, g);
          // buf.mul_(momentum).add_(d_p)
          Value v1 = a.add(a.mul(v, mu), d);
          // param.add_(buf, alpha=-lr)
          Value p1 = a.fma(v1, a.neg(lr), p);
          return {p1, v1};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct AdamUpdateLowering : OpRewritePattern<AdamUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdamUpdateOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool decoupled = op.getDecoupledWeightDecay();
    // The step's scalar factors, once, in f64 (as Python computes them),
    // each rounded to f32 (as PyTorch passes a Python float to a kernel).
    auto scalarType = RankedTensorType::get({}, rewriter.getF32Type());
    SmallVector<Value> inits;
    for (int i = 0; i < 5; ++i)
      inits.push_back(emptyTensor(rewriter, loc, scalarType));
    AffineMap none = AffineMap::get(0, 0, getContext());
    auto factors = linalg::GenericOp::create(
        rewriter, loc, SmallVector<Type>(5, scalarType),
        ValueRange{op.getLr(), op.getBeta1(), op.getBeta2(),
                   op.getWeightDecay(), op.getStep()},
        inits, SmallVector<AffineMap>(10, none),
        ArrayRef<utils::IteratorType>{},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Arith a{nb, nl};
          Type f64 = nb.getF64Type(), f32 = nb.getF32Type();
          Value lr = a.convert(args[0], f64), b1 = a.convert(args[1], f64);
          Value b2 = a.convert(args[2], f64), wd = a.convert(args[3], f64);
          Value t = a.convert(args[4], f64), one = a.constant(f64, 1.0);
          Value bc1 = a.sub(one, math::PowFOp::create(nb, nl, b1, t));
          Value bc2 = a.sub(one, math::PowFOp::create(nb, nl, b2, t));
          SmallVector<Value> out = {
              a.sub(one, b1),            // 1 - beta1
              a.sub(one, b2),            // 1 - beta2
              a.div(lr, bc1),            // step_size
              a.sqrt(bc2),               // bias_correction2_sqrt
              a.sub(one, a.mul(lr, wd)), // AdamW's decay
          };
          for (Value &v : out)
            v = a.convert(v, f32);
          linalg::YieldOp::create(nb, nl, out);
        });
    Value oneMinusB1 = factors.getResult(0), oneMinusB2 = factors.getResult(1);
    Value stepSize = factors.getResult(2), bc2Sqrt = factors.getResult(3);
    Value decay = factors.getResult(4);

    SmallVector<Value> results = buildUpdate(
        rewriter, loc, {op.getGrad()},
        {op.getBeta1(), op.getBeta2(), op.getEps(), op.getWeightDecay(),
         oneMinusB1, oneMinusB2, stepSize, bc2Sqrt, decay},
        {op.getParam(), op.getExpAvg(), op.getExpAvgSq()},
        [&](Arith &a, ValueRange in, ValueRange out) -> SmallVector<Value> {
          Value g = in[0], b1 = in[1], b2 = in[2], eps = in[3], wd = in[4];
          Value a1 = in[5], a2 = in[6], step = in[7], bc2s = in[8];
          Value dec = in[9];
          Value p = out[0], m = out[1], v = out[2];
          if (decoupled) {
            // AdamW: param.mul_(1 - lr * weight_decay)
            p = a.mul(p, dec);
          } else {
            // Adam: grad = grad.add(param, alpha=weight_decay)
            g = a.fma(p, wd, g);
          }
          // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
          Value m1 = a.fma(g, a1, a.mul(m, b1));
          // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
          Value v1 = a.add(a.mul(v, b2), a.mul(a.mul(a2, g), g));
          // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
          Value denom = a.add(a.div(a.sqrt(v1), bc2s), eps);
          // param.addcdiv_(exp_avg, denom, value=-step_size)
          Value p1 = a.add(p, a.div(a.mul(a.neg(step), m1), denom));
          return {p1, m1, v1};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void linalg_lowering::populateOptimizerPatterns(RewritePatternSet &patterns) {
  patterns.add<MomentumUpdateLowering, AdamUpdateLowering>(
      patterns.getContext());
}
