"""Complex tensors as pairs of real ones: the rotary embeddings of Meta's
reference LLaMA (``torch.view_as_complex(x.float().reshape(..., -1, 2))``
times ``freqs_cis``, a complex buffer made with ``torch.polar``, then
``torch.view_as_real(...).flatten(3)``).

A complex value that depends on the inputs or parameters is a
:class:`Complex`: its real and imaginary parts, each an Echo value or a
constant of the complex value's shape. A complex value the importer knows
(a buffer, ``freqs_cis`` sliced and viewed) stays a :class:`Const` of a
complex tensor until an op meets it with a :class:`Complex`, where it is
split into two real constants. The ops:

* ``view_as_complex`` of [..., 2] gives the parts [...] (two slices of
  the last dim); ``view_as_real`` stacks them back along a new last dim;
* products are ``(ac − bd) + (ad + bc)i`` (by a real factor: each part
  times it), sums and differences part by part, ``polar(r, θ)`` is
  ``r·cos θ + r·sin θ i``;
* views, slices, expands, transposes and concatenations apply to both
  parts (the real handler run on each).

Every other op that meets a :class:`Complex` refuses it (it is an
:class:`Unusable` to them). Gradients flow through the real ops.
"""

from echo.frontend.aten import OPS, aten, overload
# The handlers this module wraps are registered before it wraps them.
from echo.frontend.aten import elementwise as _elementwise  # noqa: F401
from echo.frontend.aten import linear as _linear  # noqa: F401
from echo.frontend.aten import shape as _shape  # noqa: F401
from echo.frontend.aten.elementwise import unary
from echo.frontend.literals import Const, Unusable

__all__ = ["Complex"]


class Complex(Unusable):
    """A complex tensor as its real and imaginary parts (Echo values or
    :class:`Const` real tensors) of one shape. Handlers that know complex
    values take it; to the others it is unusable."""

    __slots__ = ("re", "im")

    def __init__(self, re, im):
        Unusable.__init__(self, "a complex tensor (Echo maps complex values "
                                "through view_as_complex, products, sums "
                                "and views, and view_as_real)")
        self.re = re
        self.im = im

    def __repr__(self):
        return "Complex(%r, %r)" % (self.re, self.im)


def _is_complex(v):
    return isinstance(v, Complex) or (
        isinstance(v, Const) and v.tensor.is_complex())


def _parts(ctx, v):
    """``(re, im)`` of a complex argument; a real one is ``(v, None)``. A
    constant's parts are made once, so that each is one constant."""
    if isinstance(v, Complex):
        return v.re, v.im
    if isinstance(v, Const) and v.tensor.is_complex():
        key = ("complex parts", id(v.tensor))
        if key not in ctx.memo:
            t = v.tensor.resolve_conj()
            # The tensor kept alive with its parts: its id stays unique.
            ctx.memo[key] = (v.tensor, Const(t.real.contiguous()),
                             Const(t.imag.contiguous()))
        return ctx.memo[key][1:]
    return v, None


# -- entering and leaving -----------------------------------------------------

@aten(overload("view_as_complex"))
def _view_as_complex(ctx, self):
    x = ctx.tensor(self, "f32")
    ctx.require(x.rank >= 1 and x.shape[-1] == 2,
                "view_as_complex of %s (the last dim must be 2)" % x.type)
    shape = list(x.shape[:-1])
    parts = []
    for k in range(2):
        part = ctx.g.slice(x, [0] * x.rank, shape + [1]) if k == 0 else \
            ctx.g.slice(x, [0] * (x.rank - 1) + [1], shape + [1])
        parts.append(ctx.g.reshape(part, shape))
    return Complex(parts[0], parts[1])


@aten(overload("view_as_real"))
def _view_as_real(ctx, self):
    ctx.require(_is_complex(self), "view_as_real of a real tensor")
    shape = list(ctx.out_shape())
    re, im = _parts(ctx, self)
    parts = [ctx.g.reshape(ctx.operand(p, shape[:-1]), shape[:-1] + [1])
             for p in (re, im)]
    return ctx.g.concat(parts, len(shape) - 1)


@aten(overload("polar"))
def _polar(ctx, abs, angle):
    shape = ctx.out_shape()
    r, theta = ctx.operand(abs, shape), ctx.operand(angle, shape)
    return Complex(ctx.g.mul(r, unary(ctx, "cos", theta)),
                   ctx.g.mul(r, unary(ctx, "sin", theta)))


# -- arithmetic ---------------------------------------------------------------

def _arithmetic(real_handler, combine):
    """The handler of a binary op: ``combine`` when an operand is complex,
    else the real one."""
    def handler(ctx, self, other, **rest):
        if not (_is_complex(self) or _is_complex(other)):
            return real_handler(ctx, self, other, **rest)
        ctx.require(rest.get("alpha", 1) == 1, "a complex sum with alpha")
        shape = ctx.out_shape()
        (a, b), (c, d) = _parts(ctx, self), _parts(ctx, other)

        def operand(v):
            return None if v is None else ctx.operand(v, shape)
        return combine(ctx.g, operand(a), operand(b), operand(c),
                       operand(d))
    return handler


def _product(g, a, b, c, d):
    if b is None:
        return Complex(g.mul(a, c), g.mul(a, d))
    if d is None:
        return Complex(g.mul(a, c), g.mul(b, c))
    return Complex(g.sub(g.mul(a, c), g.mul(b, d)),
                   g.add(g.mul(a, d), g.mul(b, c)))


def _sum(sign):
    def combine(g, a, b, c, d):
        re = g.add(a, c) if sign > 0 else g.sub(a, c)
        if b is None:
            im = d if sign > 0 else g.neg(d)
        elif d is None:
            im = b
        else:
            im = g.add(b, d) if sign > 0 else g.sub(b, d)
        return Complex(re, im)
    return combine


for _name, _combine in (("mul", _product), ("add", _sum(1)),
                        ("sub", _sum(-1))):
    _op = overload(_name, "Tensor")
    if _op in OPS:
        OPS[_op] = _arithmetic(OPS[_op], _combine)


# -- views on both parts ------------------------------------------------------

def _on_parts(real_handler):
    """The handler of a view-like op: run on each part of a complex
    ``self`` (or of the complex tensors of a list), else the real one."""
    def handler(ctx, **args):
        args = dict(args)
        key = "self" if "self" in args else "tensors"
        value = args[key]
        values = value if isinstance(value, (list, tuple)) else [value]
        if not any(_is_complex(v) for v in values):
            return real_handler(ctx, **args)
        parts = []
        for k in range(2):
            picked = [_parts(ctx, v)[k] for v in values]
            ctx.require(all(p is not None for p in picked),
                        "a real tensor where complex ones are expected")
            args[key] = picked if value is values else picked[0]
            parts.append(real_handler(ctx, **args))
        if isinstance(parts[0], tuple):
            return tuple(Complex(re, im) for re, im in zip(*parts))
        return Complex(parts[0], parts[1])
    return handler


_VIEWS = [("view", "default"), ("expand", "default"),
          ("unsqueeze", "default"), ("squeeze", "dim"),
          ("squeeze", "default"), ("squeeze", "dims"), ("cat", "default"),
          ("stack", "default"), ("split", "Tensor"),
          ("split_with_sizes", "default"), ("unbind", "int"),
          ("select", "int"), ("slice", "Tensor"), ("transpose", "int"),
          ("t", "default"), ("permute", "default"), ("alias", "default")]
for _name, _variant in _VIEWS:
    _op = overload(_name, _variant)
    if _op in OPS:
        OPS[_op] = _on_parts(OPS[_op])


@aten(overload("_conj"), overload("conj_physical"), overload("conj"))
def _conj(ctx, self):
    ctx.require(_is_complex(self), "conj of a real tensor")
    re, im = _parts(ctx, self)
    shape = ctx.out_shape()
    return Complex(re, ctx.g.neg(ctx.operand(im, shape)))



@aten(overload("complex"))
def _complex(ctx, real, imag):
    shape = ctx.out_shape()
    return Complex(ctx.operand(real, shape), ctx.operand(imag, shape))
