"""Reductions: sum and mean over dims (``echo.reduce_sum``, scaled),
amax / max over dims (``echo.reduce_max``; max's indices are not
computed), softmax (``echo.softmax``) and ``var_mean``."""

from echo.frontend.aten import aten, normalize_dim, overload
from echo.frontend.literals import Unusable


def _dims(x, dim):
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return list(range(x.rank))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted(set(normalize_dim(d, x.rank) for d in dims))


def _keep(ctx, y, x, dims, keepdim):
    if not keepdim:
        return y
    return ctx.g.reshape(y, [1 if i in dims else d
                             for i, d in enumerate(x.shape)])


def reduce(ctx, self, dim, keepdim, kind):
    """``kind`` "sum", "mean" or "max" of ``self`` over ``dim``."""
    g = ctx.g
    x = ctx.tensor(self, "f32")
    dims = _dims(x, dim)
    if not dims or x.rank == 0:
        return x
    if kind == "max":
        y = g.reduce_max(x, dims)
    else:
        y = g.reduce_sum(x, dims)
    if kind == "mean":
        # Divided by the count, as PyTorch does: 1/count as an f32
        # constant would be rounded (1/9 by 3e-9), the count is exact.
        count = 1
        for d in dims:
            count *= x.shape[d]
        y = g.div(y, g.constant(float(count), y.shape))
    return _keep(ctx, y, x, dims, keepdim)


def _no_dtype(ctx, dtype):
    ctx.require(dtype is None or str(dtype) == "torch.float32",
                "a reduction to %s" % dtype)


@aten(overload("sum", "dim_IntList"))
def _sum(ctx, self, dim, keepdim=False, dtype=None):
    _no_dtype(ctx, dtype)
    return reduce(ctx, self, dim, keepdim, "sum")


@aten(overload("sum"))
def _sum_all(ctx, self, dtype=None):
    _no_dtype(ctx, dtype)
    return reduce(ctx, self, None, False, "sum")


@aten(overload("mean", "dim"))
def _mean(ctx, self, dim, keepdim=False, dtype=None):
    _no_dtype(ctx, dtype)
    return reduce(ctx, self, dim, keepdim, "mean")


@aten(overload("mean"))
def _mean_all(ctx, self, dtype=None):
    _no_dtype(ctx, dtype)
    return reduce(ctx, self, None, False, "mean")


@aten(overload("amax"))
def _amax(ctx, self, dim=(), keepdim=False):
    return reduce(ctx, self, dim, keepdim, "max")


@aten(overload("max", "dim"))
def _max_dim(ctx, self, dim, keepdim=False):
    return (reduce(ctx, self, dim, keepdim, "max"),
            Unusable("max's indices"))


@aten(overload("max"))
def _max_all(ctx, self):
    return reduce(ctx, self, None, False, "max")


@aten(overload("_softmax"))
def _softmax(ctx, self, dim, half_to_float=False):
    x = ctx.tensor(self, "f32")
    if x.rank == 0:
        return ctx.g.constant(1.0, [])
    return ctx.g.softmax(x, normalize_dim(dim, x.rank))


@aten(overload("var_mean", "correction"))
def _var_mean(ctx, self, dim=None, correction=None, keepdim=False):
    """(sum((x - mean)^2) / (n - correction), mean); correction defaults
    to 1."""
    g = ctx.g
    x = ctx.tensor(self, "f32")
    dims = _dims(x, dim)
    correction = 1 if correction is None else correction
    count = 1
    for d in dims:
        count *= x.shape[d]
    ctx.require(count > correction, "the variance of %d values with "
                "correction %s" % (count, correction))
    mean = reduce(ctx, x, dims, True, "mean")
    centered = g.sub(x, ctx.broadcast_to(mean, x.shape))
    var = g.reduce_sum(g.mul(centered, centered), dims)
    var = g.div(var, g.constant(float(count - correction), var.shape))
    out = ctx.out_shape(0)
    return g.reshape(var, out), g.reshape(mean, out)


@aten(overload("amin"))
def _amin(ctx, self, dim=(), keepdim=False):
    """-max(-x)."""
    x = ctx.tensor(self, "f32")
    neg = ctx.g.op("neg", [x], [(x.shape, "f32")])[0]
    y = reduce(ctx, neg, dim, keepdim, "max")
    return ctx.g.op("neg", [y], [(y.shape, "f32")])[0]


@aten(overload("min", "dim"))
def _min_dim(ctx, self, dim, keepdim=False):
    return _amin(ctx, self, dim, keepdim), Unusable("min's indices")


@aten(overload("logsumexp"))
def _logsumexp(ctx, self, dim, keepdim=False):
    """m + log(sum(exp(x - m))), m the max over ``dim`` (its gradient
    cancels: the result's is softmax)."""
    g = ctx.g
    x = ctx.tensor(self, "f32")
    dims = _dims(x, dim)
    m = reduce(ctx, x, dims, True, "max")
    shifted = g.sub(x, ctx.broadcast_to(m, x.shape))
    e = g.op("exp", [shifted], [(x.shape, "f32")])[0]
    s = reduce(ctx, e, dims, True, "sum")
    y = g.add(g.op("log", [s], [(s.shape, "f32")])[0], m)
    return _keep(ctx, g.reshape(y, [d for i, d in enumerate(x.shape)
                                    if i not in dims]), x, dims, keepdim)


@aten(overload("linalg_vector_norm"))
def _vector_norm(ctx, self, ord=2, dim=None, keepdim=False, dtype=None):
    """The 2-norm: sqrt(sum(x^2))."""
    _no_dtype(ctx, dtype)
    ctx.require(ord == 2, "a vector norm of order %s (Echo writes the "
                "2-norm)" % ord)
    g = ctx.g
    x = ctx.tensor(self, "f32")
    s = reduce(ctx, g.mul(x, x), dim, keepdim, "sum")
    return g.op("sqrt", [s], [(s.shape, "f32")])[0]


@aten(overload("norm", "ScalarOpt_dim"))
def _norm(ctx, self, p, dim, keepdim=False):
    return _vector_norm(ctx, self, 2 if p is None else p, dim, keepdim)
