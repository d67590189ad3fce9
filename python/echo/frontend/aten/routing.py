"""Ops that pick, place and encode by indices computed in the step: the
top-k routing of mixture-of-experts layers (softmax, ``topk``, the weights
gathered or scattered, ``one_hot`` of the chosen experts).

``topk`` is ``echo.topk`` along the last dim (another dim is transposed
there and back); ``gather``, ``scatter`` (of a tensor or a number) and
``scatter_add`` are the Echo ops of the same names; ``F.one_hot``, which
the trace keeps as one node (``echo_trace::one_hot``), is ``echo.one_hot``
with PyTorch's int64 result as ``i32``. Indices are ``i32`` (PyTorch's
int64). The float operands get PyTorch's gradients (topk's values scatter
theirs to their indices, gather's is a scatter_add); indices get none.
"""

from echo.frontend.aten import aten, normalize_dim, overload
from echo.frontend.literals import Const
from echo.frontend.trace import ONE_HOT
from echo.models import i64_attr


def _last_dim_perm(rank, dim):
    """The permutation that swaps ``dim`` with the last dim (its own
    inverse)."""
    perm = list(range(rank))
    perm[dim], perm[-1] = perm[-1], perm[dim]
    return perm


@aten(overload("topk"))
def _topk(ctx, self, k, dim=-1, largest=True, sorted=True):
    """The k largest (smallest) entries along ``dim`` and their positions;
    ``sorted=False`` gets them sorted too (PyTorch leaves the order
    unspecified)."""
    x = ctx.tensor(self, "f32")
    ctx.require(x.rank >= 1, "topk of a 0-d tensor")
    dim = normalize_dim(dim, x.rank)
    perm = _last_dim_perm(x.rank, dim)
    x = ctx.transpose(x, perm)
    shape = list(x.shape[:-1]) + [int(k)]
    ctx.require(1 <= int(k) <= x.shape[-1], "topk with k = %s of %d "
                "entries" % (k, x.shape[-1]))
    attrs = None if largest else {"smallest": "true"}
    values, indices = ctx.g.op("topk", [x], [(shape, "f32"), (shape, "i32")],
                               attrs)
    return ctx.transpose(values, perm), ctx.transpose(indices, perm)


def _indexed(ctx, x, idx, dim, what):
    """Checks ``idx`` indexes ``x`` along ``dim`` (the same rank)."""
    ctx.require(idx.rank == x.rank and x.rank >= 1,
                "%s with an index of rank %d into a tensor of rank %d" % (
                    what, idx.rank, x.rank))


@aten(overload("gather"))
def _gather(ctx, self, dim, index, sparse_grad=False):
    """``x.gather(dim, index)``; PyTorch's index may be shorter than x
    along the other dims: x is sliced to it."""
    x = ctx.tensor(self)
    idx = ctx.tensor(index, "i32", "index")
    dim = normalize_dim(dim, x.rank)
    _indexed(ctx, x, idx, dim, "gather")
    sizes = [x.shape[d] if d == dim else idx.shape[d] for d in range(x.rank)]
    if tuple(sizes) != x.shape:
        x = ctx.g.slice(x, [0] * x.rank, sizes)
    return ctx.g.op("gather", [x, idx], [(idx.shape, x.dtype)],
                    {"axis": i64_attr(dim)})[0]


def _scatter(ctx, name, self, dim, index, src):
    x = ctx.tensor(self, "f32")
    idx = ctx.tensor(index, "i32", "index")
    dim = normalize_dim(dim, x.rank)
    _indexed(ctx, x, idx, dim, name)
    ctx.require(all(idx.shape[d] == x.shape[d] for d in range(x.rank)
                    if d != dim),
                "%s with an index %s shorter than self %s outside dim %d" % (
                    name, idx.type, x.type, dim))
    if isinstance(src, Const) and src.tensor.numel() == 1:
        src = src.tensor.reshape(()).item()
    if isinstance(src, (bool, int, float)):
        values = ctx.g.constant(float(src), idx.shape)
    else:
        values = ctx.tensor(src, "f32", "src")
        ctx.require(values.rank == idx.rank and all(
            s >= i for s, i in zip(values.shape, idx.shape)),
            "%s with src %s smaller than its index %s" % (
                name, values.type, idx.type))
        if values.shape != idx.shape:
            values = ctx.g.slice(values, [0] * idx.rank, list(idx.shape))
    return ctx.g.op(name, [x, idx, values], [(x.shape, "f32")],
                    {"axis": i64_attr(dim)})[0]


@aten(overload("scatter", "src"))
def _scatter_src(ctx, self, dim, index, src):
    return _scatter(ctx, "scatter", self, dim, index, src)


@aten(overload("scatter", "value"))
def _scatter_value(ctx, self, dim, index, value):
    return _scatter(ctx, "scatter", self, dim, index, value)


@aten(overload("scatter_add"))
def _scatter_add(ctx, self, dim, index, src):
    return _scatter(ctx, "scatter_add", self, dim, index, src)


@aten(ONE_HOT)
def _one_hot(ctx, ids, num_classes):
    x = ctx.tensor(ids, "i32", "ids")
    return ctx.g.op("one_hot", [x], [(list(x.shape) + [int(num_classes)],
                                      "i32")])[0]
