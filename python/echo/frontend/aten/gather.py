"""Embedding and the ops that pick elements of a tensor at positions known
at import time: ``index.Tensor`` and ``index_select`` with constant
indices, ``as_strided`` of a contiguous value, strided slices, ``flip``, pixel
(un)shuffle.

:func:`gather` finds the positions by running the op in PyTorch on a
tensor of element numbers, then writes the cheapest Echo form: a reshape
when nothing moves; ``echo.embedding`` of rows when whole rows of dim 0
are picked (``table[idx]``, a relative position bias); otherwise an
``echo.embedding`` of single elements. Its gradient is embedding's
(scatter-add), so a position picked twice gets both gradients, as in
PyTorch.
"""

import torch

from echo.frontend.aten import aten, overload
from echo.frontend.literals import Const
from echo.models import i64_attr


def gather(ctx, x, pick):
    """The elements of ``x`` (an Echo value) at the positions ``pick``
    selects: ``pick(t)`` applies the op to a tensor ``t`` of ``x``'s
    shape."""
    g = ctx.g
    count = 1
    for d in x.shape:
        count *= d
    numbers = torch.arange(count, dtype=torch.float64).reshape(x.shape)
    picked = pick(numbers)
    shape = list(picked.shape)
    flat = picked.reshape(-1).to(torch.int64)
    if flat.numel() == count and torch.equal(flat, torch.arange(count)):
        return g.reshape(x, shape)
    rows = x.shape[0] if x.rank else 1
    width = count // max(rows, 1)
    if width > 1 and flat.numel() % width == 0:
        block = flat.reshape(-1, width)
        first = block[:, :1]
        if torch.equal(block, first + torch.arange(width)) and bool(
                (first % width == 0).all()):
            ids = Const((first.reshape(-1) // width).to(torch.int32))
            table = g.reshape(x, [rows, width])
            y = g.embedding(ctx.tensor(ids, "i32"), table)
            return g.reshape(y, shape)
    ids = Const(flat.to(torch.int32))
    y = g.embedding(ctx.tensor(ids, "i32"), g.reshape(x, [count, 1]))
    return g.reshape(y, shape)


@aten(overload("embedding"))
def _embedding(ctx, weight, indices, padding_idx=-1,
               scale_grad_by_freq=False, sparse=False):
    ctx.require(not scale_grad_by_freq, "embedding with "
                "scale_grad_by_freq")
    table = ctx.tensor(weight, "f32", "table")
    ctx.require(table.rank == 2, "an embedding table of %s" % table.type)
    ids = ctx.tensor(indices, "i32", "indices")
    if padding_idx is None or padding_idx < 0:
        return ctx.g.embedding(ids, table)
    # nn.Embedding(padding_idx=...): that row gets no gradient (nn.Embedding
    # and F.embedding have made a negative padding_idx a row already).
    return ctx.g.op("embedding", [ids, table],
                    [(list(ids.shape) + [table.shape[1]], table.dtype)],
                    {"padding_idx": i64_attr(int(padding_idx))})[0]


def _call(op, args, first):
    """``op`` on the known arguments, ``first`` as its first argument."""
    positional, keywords = [], {}
    for i, arg in enumerate(op._schema.arguments):
        value = first if i == 0 else _known(args[arg.name])
        if arg.kwarg_only:
            keywords[arg.name] = value
        else:
            positional.append(value)
    return op(*positional, **keywords)


def _known(v):
    if isinstance(v, Const):
        return v.tensor
    if isinstance(v, (list, tuple)):
        return type(v)(_known(u) for u in v)
    return v


def _dynamic(v):
    if isinstance(v, (list, tuple)):
        return any(_dynamic(u) for u in v)
    return not isinstance(v, Const) and hasattr(v, "shape")


def _register_gather(op):
    @aten(op)
    def handler(ctx, **args):
        names = [a.name for a in op._schema.arguments]
        x = ctx.tensor(args[names[0]])
        ctx.require(not any(_dynamic(args[n]) for n in names[1:]),
                    "%s at positions that depend on the inputs" % op)
        ctx.require(x.dtype == "f32", "%s of %s" % (op, x.type))
        return gather(ctx, x, lambda t: _call(op, args, t))
    return handler


for _op in (overload("index", "Tensor"), overload("index_select"),
            overload("flip"), overload("pixel_shuffle"),
            overload("pixel_unshuffle"), overload("diagonal"),
            overload("repeat_interleave", "self_int")):
    if _op is not None:
        _register_gather(_op)


@aten(overload("as_strided"))
def _as_strided(ctx, self, size, stride, storage_offset=None):
    """A restriding of a contiguous value (functionalization writes them
    for views of views): positions are row-major element numbers."""
    source = ctx.node.args[0]
    meta = source.meta.get("tensor_meta")
    shape = list(meta.shape)
    contiguous, step = [], 1
    for d in reversed(shape):
        contiguous.insert(0, step)
        step *= d
    ctx.require(all(s == c for s, c, d in zip(meta.stride, contiguous, shape)
                    if d != 1) and not storage_offset,
                "as_strided of a value that is not contiguous")
    x = ctx.tensor(self)
    return gather(ctx, x, lambda t: torch.as_strided(t.contiguous(), size,
                                                     stride, 0))
