"""Dropout: the importer's ``echo_trace::dropout`` node (see
:mod:`echo.frontend.trace`) and ``native_dropout`` are ``echo.dropout``,
each with a fresh seed, so that recomputing its mask gives the same bits,
and reading the step's seed argument (``echo.rng_seed``), so that every
step draws fresh masks.

A mask shared along dims (Dropout2d, torchvision's stochastic depth) is
``broadcast_dims``. Alpha dropout keeps the SELU statistics:
``a * select(mask, x, alpha') + b`` with ``alpha' = -scale * alpha`` of
SELU, ``a = ((1 - p) (1 + p alpha'^2))^-1/2`` and ``b = -a alpha' p``.
"""

from echo.frontend.aten import aten, overload
from echo.frontend.trace import DROPOUT
from echo.models import f64_attr, i64_array_attr, i64_attr


def dropout(ctx, x, p, shared_dims=()):
    """``(y, mask)`` of ``echo.dropout`` with ratio ``p``."""
    g = ctx.g
    x = ctx.tensor(x, "f32")
    ctx.require(0.0 <= p < 1.0, "dropout with p=%s (Echo takes ratios in "
                "[0, 1))" % p)
    shape = x.shape
    shared = sorted(set(shared_dims))
    if shared and len(shared) == x.rank:
        # One decision for the whole tensor: shared along the one dim of
        # [1, numel] that is not a unit dim.
        count = 1
        for d in shape:
            count *= d
        x, shared = g.reshape(x, [1, count]), [1]
    attrs = {"ratio": f64_attr(p), "seed": i64_attr(ctx.next_seed())}
    if shared:
        attrs["broadcast_dims"] = i64_array_attr(shared)
    # The step's seed too: fresh masks at every step.
    operands = [x] + ([g.seed_argument()] if g.step_seed else [])
    y, mask = g.op("dropout", operands, [(x.shape, "f32"), (x.shape, "i1")],
                   attrs)
    return g.reshape(y, shape), g.reshape(mask, shape)


@aten(DROPOUT)
def _dropout(ctx, x, p, shared_dims, alpha):
    if not alpha:
        return dropout(ctx, x, p, shared_dims)[0]
    g = ctx.g
    x = ctx.tensor(x, "f32")
    _, mask = dropout(ctx, x, p, shared_dims)
    a_prime = -1.7580993408473766
    a = ((1.0 - p) * (1.0 + p * a_prime ** 2)) ** -0.5
    kept = g.op("select", [mask, x, g.constant(a_prime, x.shape)],
                [(x.shape, "f32")])[0]
    return g.add(g.mul(kept, g.constant(a, x.shape)),
                 g.constant(-a * a_prime * p, x.shape))


@aten(overload("native_dropout"))
def _native_dropout(ctx, input, p, train=True):
    x = ctx.tensor(input, "f32")
    if train is False or p == 0:
        return x, ctx.g.constant(True, x.shape, "i1")
    return dropout(ctx, x, p)
