"""Elementwise ops: arithmetic with broadcasting and numbers, activations,
clamps, select (where / masked_fill) and aliases (dtype conversions are
in :mod:`.masks`).

Operands are broadcast to the result's shape as PyTorch does
(``ctx.operand``); a number or a one-element constant becomes a splat
``arith.constant``. Activations Echo has as ops map one to one (relu, tanh,
sigmoid, exp, log, sqrt, neg, erf, silu, hardswish, hardsigmoid, mish,
gelu, clamp); a few more are written with them (rsqrt, reciprocal, pow by
small integers and halves, leaky_relu, elu, abs).
"""

import math

import torch

from echo.frontend.aten import aten, overload
from echo.frontend.literals import Const
from echo.models import f64_attr

_BINARY = {"add": "add", "sub": "sub", "mul": "mul", "div": "div"}


def _number(v):
    """``v`` as a Python number when it is one (or a one-element
    constant), else None."""
    if isinstance(v, Const) and v.tensor.numel() == 1:
        return v.tensor.reshape(()).item()
    if isinstance(v, (bool, int, float)):
        return v
    return None


def _f32(ctx, what="result"):
    meta = ctx.out_meta()
    ctx.require(meta.dtype.is_floating_point,
                "the %s is %s (Echo computes in f32; integer and boolean "
                "tensors are only ids, masks and constants)" % (
                    what, str(meta.dtype).replace("torch.", "")))


# x + 0, x - 0, x * 1, x / 1: x itself.
_NEUTRAL = {"add": 0, "sub": 0, "mul": 1, "div": 1}


def binary(ctx, name, lhs, rhs):
    _f32(ctx)
    shape = ctx.out_shape()
    if _number(rhs) == _NEUTRAL[name] and tuple(getattr(lhs, "shape", ())) \
            == shape and not isinstance(rhs, Const):
        return ctx.tensor(lhs, "f32")
    return getattr(ctx.g, name)(ctx.operand(lhs, shape),
                                ctx.operand(rhs, shape))


def _scaled(ctx, value, alpha):
    """``value * alpha`` (alpha a number)."""
    if alpha == 1:
        return value
    number = _number(value)
    if number is not None:
        return number * alpha
    shape = ctx.out_shape()
    return ctx.g.mul(ctx.operand(value, shape), ctx.g.constant(alpha, shape))


@aten(overload("add", "Tensor"))
def _add(ctx, self, other, alpha=1):
    return binary(ctx, "add", self, _scaled(ctx, other, alpha))


@aten(overload("sub", "Tensor"))
def _sub(ctx, self, other, alpha=1):
    return binary(ctx, "sub", self, _scaled(ctx, other, alpha))


@aten(overload("rsub", "Tensor"))
def _rsub(ctx, self, other, alpha=1):
    return binary(ctx, "sub", other, _scaled(ctx, self, alpha))


@aten(overload("mul", "Tensor"))
def _mul(ctx, self, other):
    return binary(ctx, "mul", self, other)


@aten(overload("div", "Tensor"))
def _div(ctx, self, other):
    return binary(ctx, "div", self, other)


@aten(overload("div", "Tensor_mode"))
def _div_mode(ctx, self, other, rounding_mode=None):
    ctx.require(rounding_mode is None,
                "division with rounding_mode='%s' of a tensor that depends "
                "on the inputs" % rounding_mode)
    return binary(ctx, "div", self, other)


def unary(ctx, name, x, attrs=None):
    """``echo.<name>`` of ``x`` (generic op form)."""
    _f32(ctx)
    x = ctx.tensor(x, "f32")
    return ctx.g.op(name, [x], [(x.shape, x.dtype)], attrs)[0]


def _register_unary(aten_name, echo_name):
    @aten(overload(aten_name))
    def handler(ctx, self):
        return unary(ctx, echo_name, self)
    return handler


for _name in ("relu", "tanh", "sigmoid", "exp", "log", "sqrt", "neg", "erf",
              "silu", "hardswish", "hardsigmoid", "mish"):
    _register_unary(_name, _name)


@aten(overload("gelu"))
def _gelu(ctx, self, approximate="none"):
    ctx.require(approximate in ("none", "tanh"),
                "gelu with approximate='%s'" % approximate)
    attrs = {"tanh_approximation": "true"} if approximate == "tanh" else None
    return unary(ctx, "gelu", self, attrs)


def reciprocal(ctx, x):
    x = ctx.tensor(x, "f32")
    return ctx.g.div(ctx.g.constant(1.0, x.shape), x)


@aten(overload("reciprocal"))
def _reciprocal(ctx, self):
    _f32(ctx)
    return reciprocal(ctx, self)


@aten(overload("rsqrt"))
def _rsqrt(ctx, self):
    return reciprocal(ctx, unary(ctx, "sqrt", self))


@aten(overload("square"))
def _square(ctx, self):
    x = ctx.tensor(self, "f32")
    return ctx.g.mul(x, x)


@aten(overload("pow", "Tensor_Scalar"))
def _pow(ctx, self, exponent):
    _f32(ctx)
    x = ctx.tensor(self, "f32")
    e = float(exponent)
    if e == 0.5:
        return unary(ctx, "sqrt", x)
    if e == -0.5:
        return reciprocal(ctx, unary(ctx, "sqrt", x))
    ctx.require(e == int(e) and 1 <= abs(e) <= 8,
                "pow with the exponent %s (Echo writes integer powers up to "
                "8 and square roots)" % exponent)
    y = x
    for _ in range(int(abs(e)) - 1):
        y = ctx.g.mul(y, x)
    return reciprocal(ctx, y) if e < 0 else y


@aten(overload("pow", "Scalar"))
def _pow_scalar(ctx, self, exponent):
    """``base ** x`` = exp(x * log(base)) for a positive number base."""
    _f32(ctx)
    ctx.require(float(self) > 0, "pow of the base %s" % self)
    x = ctx.tensor(exponent, "f32")
    return unary(ctx, "exp", ctx.g.mul(x, ctx.g.constant(
        math.log(float(self)), x.shape)))


def clamp(ctx, x, low, high):
    x = ctx.tensor(x, "f32")
    if low is None and high is None:
        return x
    if low == 0 and high is None:
        return unary(ctx, "relu", x)
    low = -math.inf if low is None else float(low)
    high = math.inf if high is None else float(high)
    return ctx.g.op("clamp", [x], [(x.shape, x.dtype)],
                    {"min": f64_attr(low), "max": f64_attr(high)})[0]


@aten(overload("clamp"))
def _clamp(ctx, self, min=None, max=None):
    _f32(ctx)
    return clamp(ctx, self, min, max)


@aten(overload("clamp", "Tensor"))
def _clamp_tensor(ctx, self, min=None, max=None):
    _f32(ctx)
    low, high = _number(min), _number(max)
    ctx.require((min is None or low is not None) and
                (max is None or high is not None),
                "clamp with tensor bounds")
    return clamp(ctx, self, low, high)


@aten(overload("leaky_relu"))
def _leaky_relu(ctx, self, negative_slope=0.01):
    """relu(x) - slope * relu(-x)."""
    _f32(ctx)
    g = ctx.g
    x = ctx.tensor(self, "f32")
    negative = unary(ctx, "relu", unary(ctx, "neg", x))
    return g.sub(unary(ctx, "relu", x),
                 g.mul(negative, g.constant(negative_slope, x.shape)))


@aten(overload("elu"))
def _elu(ctx, self, alpha=1, scale=1, input_scale=1):
    """relu(x) + alpha * (exp(-relu(-x)) - 1)."""
    _f32(ctx)
    ctx.require(scale == 1 and input_scale == 1, "elu with a scale (selu)")
    g = ctx.g
    x = ctx.tensor(self, "f32")
    low = unary(ctx, "exp", unary(ctx, "neg", unary(ctx, "relu",
                                                    unary(ctx, "neg", x))))
    low = g.sub(low, g.constant(1.0, x.shape))
    return g.add(unary(ctx, "relu", x),
                 g.mul(low, g.constant(alpha, x.shape)))


@aten(overload("abs"))
def _abs(ctx, self):
    """relu(x) + relu(-x) (gradient 0 at 0, as PyTorch's sign)."""
    _f32(ctx)
    x = ctx.tensor(self, "f32")
    return ctx.g.add(unary(ctx, "relu", x),
                     unary(ctx, "relu", unary(ctx, "neg", x)))


def select(ctx, condition, a, b):
    """``echo.select``: ``a`` where ``condition`` else ``b``, all
    broadcast to the result's shape."""
    _f32(ctx)
    shape = ctx.out_shape()
    if isinstance(condition, Const):
        # A known mask is a constant of the result's shape.
        condition = Const(condition.tensor.to(torch.bool).expand(
            shape).contiguous())
    cond = ctx.broadcast_to(ctx.tensor(condition, "i1", "condition"), shape)
    a, b = ctx.operand(a, shape), ctx.operand(b, shape)
    return ctx.g.op("select", [cond, a, b], [(shape, "f32")])[0]


@aten(overload("where", "self"))
def _where(ctx, condition, self, other):
    return select(ctx, condition, self, other)


@aten(overload("masked_fill", "Scalar"))
def _masked_fill(ctx, self, mask, value):
    return select(ctx, mask, value, self)


# -- dtypes and aliases ---------------------------------------------------------

@aten(overload("copy"))
def _copy(ctx, self, src, non_blocking=False):
    """Functionalization's ``x.copy_(src)``: src, broadcast to x's
    shape."""
    _f32(ctx)
    return ctx.operand(src, ctx.out_shape())


@aten(overload("alias"))
def _alias(ctx, self):
    return ctx.tensor(self)




# -- written with the ops above ---------------------------------------------

@aten(overload("softplus"))
def _softplus(ctx, self, beta=1, threshold=20):
    """log(1 + exp(beta x)) / beta = (relu(z) + log(1 + exp(-|z|))) / beta
    with z = beta x (PyTorch's threshold returns x where z > threshold; the
    two differ by less than exp(-threshold))."""
    _f32(ctx)
    g = ctx.g
    x = ctx.tensor(self, "f32")
    z = x if beta == 1 else g.mul(x, g.constant(beta, x.shape))
    magnitude = g.add(unary(ctx, "relu", z),
                      unary(ctx, "relu", unary(ctx, "neg", z)))
    tail = unary(ctx, "log", g.add(g.constant(1.0, x.shape), unary(
        ctx, "exp", unary(ctx, "neg", magnitude))))
    y = g.add(unary(ctx, "relu", z), tail)
    return y if beta == 1 else g.mul(y, g.constant(1.0 / beta, x.shape))


@aten(overload("prelu"))
def _prelu(ctx, self, weight):
    """relu(x) - w * relu(-x), w along the channel dim (dim 1)."""
    _f32(ctx)
    g = ctx.g
    x = ctx.tensor(self, "f32")
    w = ctx.tensor(weight, "f32", "weight")
    if w.shape[0] == 1 or x.rank < 2:
        w = ctx.broadcast_to(g.reshape(w, [1] * x.rank), x.shape)
    else:
        w = g.broadcast(w, x.shape, [d for d in range(x.rank) if d != 1])
    negative = unary(ctx, "relu", unary(ctx, "neg", x))
    return g.sub(unary(ctx, "relu", x), g.mul(w, negative))


@aten(overload("maximum"))
def _maximum(ctx, self, other):
    """other + relu(self - other); a clamp when one side is a one-element
    constant (torch.max(scores, torch.tensor(finfo.min)), older Hugging
    Face LLaMA): exact where other + (self - other) rounds, as it does
    for finfo.min."""
    _f32(ctx)
    shape = ctx.out_shape()
    for x, c in ((self, _number(other)), (other, _number(self))):
        if c is not None and _number(x) is None:
            return clamp(ctx, ctx.operand(x, shape), float(c), None)
    a, b = ctx.operand(self, shape), ctx.operand(other, shape)
    return ctx.g.add(b, unary(ctx, "relu", ctx.g.sub(a, b)))


@aten(overload("minimum"))
def _minimum(ctx, self, other):
    """self - relu(self - other); a clamp when one side is a one-element
    constant."""
    _f32(ctx)
    shape = ctx.out_shape()
    for x, c in ((self, _number(other)), (other, _number(self))):
        if c is not None and _number(x) is None:
            return clamp(ctx, ctx.operand(x, shape), None, float(c))
    a, b = ctx.operand(self, shape), ctx.operand(other, shape)
    return ctx.g.sub(a, unary(ctx, "relu", ctx.g.sub(a, b)))
