"""Masks and dtype conversions: comparisons (``echo.compare``), logical
ops on masks, ``_to_copy`` between f32, ids and masks (``echo.convert``),
and PyTorch's type promotion of an id or a mask used in float arithmetic.

A padding mask built from ids (``ids == pad``), a tokenizer's integer
attention mask made an additive float mask (``(1.0 - mask.to(float)) *
-1e4``), a timestep ``t.float()``, a threshold (``x > 0``): each is data,
computed inside the step; no gradient flows through a comparison or a
conversion from an integer (Echo's ``convert`` has none). PyTorch's int64
is Echo's ``i32`` and its bool ``i1``; a comparison runs in the type
PyTorch promotes its operands to (a bool mask compared with a number is
compared as an integer).
"""

import torch

from echo.frontend.aten import aten, overload
from echo.frontend.literals import Const
from echo.models import Value

__all__ = ["promoted", "to_dtype", "kind"]

# echo.compare's predicate attribute.
_PREDICATES = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}

# PyTorch dtype -> Echo element type.
_KINDS = {torch.float32: "f32", torch.int64: "i32", torch.int32: "i32",
          torch.bool: "i1"}
_RANK = {"i1": 0, "i32": 1, "f32": 2}


def _float_result(ctx):
    meta = ctx.node.meta.get("tensor_meta") if ctx.node is not None else None
    return hasattr(meta, "dtype") and meta.dtype.is_floating_point


def convert(ctx, x, dtype):
    """``echo.convert`` of the Echo value ``x`` to ``dtype`` (``x`` itself
    when it has it)."""
    if x.dtype == dtype:
        return x
    return ctx.g.op("convert", [x], [(x.shape, dtype)])[0]


def promoted(ctx, v, dtype):
    """``v`` (an ``i1`` mask or ``i32`` ids) as f32 where the node being
    mapped computes a float result from it (PyTorch's type promotion:
    ``w * one_hot``, ``where(mask, ids, x)``), else None."""
    if dtype == "f32" and v.dtype in ("i1", "i32") and _float_result(ctx):
        return convert(ctx, v, "f32")
    return None


def kind(v):
    """The Echo element type of an operand: a value's, a constant's, or a
    Python number's (float, int, bool)."""
    if isinstance(v, Value):
        return v.dtype
    if isinstance(v, Const):
        dtype = v.tensor.dtype
        return "f32" if dtype.is_floating_point else (
            "i1" if dtype == torch.bool else "i32")
    if isinstance(v, bool):
        return "i1"
    return "i32" if isinstance(v, int) else "f32"


def to_dtype(ctx, v, dtype, shape):
    """The operand ``v`` (a value, a constant or a number) as an Echo value
    of element type ``dtype`` broadcast to ``shape``."""
    if isinstance(v, Const) and v.tensor.numel() == 1:
        v = v.tensor.reshape(()).item()
    if isinstance(v, (bool, int, float)):
        return ctx.g.constant(v, shape, dtype)
    if isinstance(v, Const):
        v = ctx.tensor(v, "i32" if kind(v) == "i32" else kind(v))
    return ctx.broadcast_to(convert(ctx, ctx.tensor(v), dtype), shape)


def compare(ctx, predicate, a, b):
    """``echo.compare`` of ``a`` and ``b`` in the type PyTorch promotes them
    to, broadcast to the result's shape."""
    shape = ctx.out_shape()
    common = max(kind(a), kind(b), key=_RANK.get)
    lhs = to_dtype(ctx, a, common, shape)
    rhs = to_dtype(ctx, b, common, shape)
    return ctx.g.op("compare", [lhs, rhs], [(shape, "i1")],
                    {"predicate": "%d : i64" % _PREDICATES[predicate]})[0]


def _register_compare(name):
    @aten(overload(name, "Tensor"), overload(name, "Scalar"))
    def handler(ctx, self, other):
        return compare(ctx, name, self, other)
    return handler


for _name in _PREDICATES:
    _register_compare(_name)


def mask(ctx, v, shape):
    """``v`` as an ``i1`` mask of ``shape``: a bool as it is, anything else
    ``!= 0`` (PyTorch's logical ops)."""
    if kind(v) == "i1":
        return to_dtype(ctx, v, "i1", shape)
    value = to_dtype(ctx, v, kind(v), shape)
    return convert(ctx, value, "i1")


def _bool_result(ctx, op):
    ctx.require(ctx.out_meta().dtype == torch.bool,
                "%s of %s tensors (Echo's logical ops are on masks; integer "
                "bit operations are not data Echo computes)" % (
                    op, str(ctx.out_meta().dtype).replace("torch.", "")))


def _register_logical(echo_name, *ops):
    @aten(*ops)
    def handler(ctx, self, other):
        _bool_result(ctx, echo_name)
        shape = ctx.out_shape()
        a, b = mask(ctx, self, shape), mask(ctx, other, shape)
        return ctx.g.op(echo_name, [a, b], [(shape, "i1")])[0]
    return handler


_register_logical("logical_and", overload("logical_and"),
                  overload("bitwise_and", "Tensor"))
_register_logical("logical_or", overload("logical_or"),
                  overload("bitwise_or", "Tensor"))
_register_logical("logical_xor", overload("logical_xor"),
                  overload("bitwise_xor", "Tensor"))


@aten(overload("logical_not"), overload("bitwise_not"))
def _not(ctx, self):
    _bool_result(ctx, "logical_not")
    x = mask(ctx, self, ctx.out_shape())
    return ctx.g.op("logical_not", [x], [(x.shape, "i1")])[0]


@aten(overload("_to_copy"))
def _to_copy(ctx, self, dtype=None, **_):
    """``.to(dtype)``, ``.float()``, ``.long()``, ``.bool()``: the value
    itself, or ``echo.convert`` between f32, ids and masks (no gradient)."""
    x = ctx.tensor(self)
    if dtype is None:
        return x
    target = _KINDS.get(dtype)
    ctx.require(target is not None, "a conversion of %s to %s (Echo "
                "computes in f32; ids are i32 and masks i1)" % (
                    x.type, str(dtype).replace("torch.", "")))
    return convert(ctx, x, target)
