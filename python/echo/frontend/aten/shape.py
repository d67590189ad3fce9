"""Shape ops: views (``echo.reshape``), expand (``echo.broadcast``),
cat/stack (``echo.concat``), split/unbind/select/slice (``echo.slice``),
zero padding (``echo.concat`` with constants) and the scatters
functionalization writes for slice assignment.

Every view reads the elements in row-major order, whatever strides
PyTorch chose, so it is a reshape of the value; result shapes come from
the trace.
"""

from echo.frontend.aten import aten, normalize_dim, overload
from echo.frontend.aten.gather import gather


@aten(overload("view"))
def _view(ctx, self, size):
    return ctx.g.reshape(ctx.tensor(self), ctx.out_shape())


@aten(overload("expand"))
def _expand(ctx, self, size, implicit=False):
    return ctx.broadcast_to(ctx.tensor(self), ctx.out_shape())


@aten(overload("unsqueeze"))
def _unsqueeze(ctx, self, dim):
    return ctx.g.reshape(ctx.tensor(self), ctx.out_shape())


@aten(overload("squeeze", "dim"), overload("squeeze"),
      overload("squeeze", "dims"))
def _squeeze(ctx, self, dim=None):
    return ctx.g.reshape(ctx.tensor(self), ctx.out_shape())


def _concat(ctx, values, dim):
    values = [ctx.tensor(v, "f32") for v in values]
    values = [v for v in values if v.shape[dim] > 0]
    if len(values) == 1:
        return values[0]
    return ctx.g.concat(values, dim)


@aten(overload("cat"))
def _cat(ctx, tensors, dim=0):
    dim = normalize_dim(dim, len(ctx.out_shape()))
    return _concat(ctx, [t for t in tensors if len(t.shape) > dim], dim)


def _with(shape, dim, size):
    shape = list(shape)
    shape[dim] = size
    return shape


@aten(overload("stack"))
def _stack(ctx, tensors, dim=0):
    shape = ctx.out_shape()
    dim = normalize_dim(dim, len(shape))
    parts = [ctx.g.reshape(ctx.tensor(t, "f32"), _with(shape, dim, 1))
             for t in tensors]
    return parts[0] if len(parts) == 1 else ctx.g.concat(parts, dim)


def slice_dim(ctx, x, dim, start, length):
    """``length`` elements of ``x`` along ``dim`` from ``start``."""
    if start == 0 and length == x.shape[dim]:
        return x
    offsets = [0] * x.rank
    offsets[dim] = start
    return ctx.g.slice(x, offsets, _with(x.shape, dim, length))


def _split_sizes(ctx, x, sizes, dim):
    dim = normalize_dim(dim, x.rank)
    parts, start = [], 0
    for size in sizes:
        parts.append(slice_dim(ctx, x, dim, start, size))
        start += size
    return tuple(parts)


@aten(overload("split", "Tensor"))
def _split(ctx, self, split_size, dim=0):
    x = ctx.tensor(self)
    total = x.shape[normalize_dim(dim, x.rank)]
    sizes = [min(split_size, total - s) for s in range(0, total, split_size)]
    return _split_sizes(ctx, x, sizes, dim)


@aten(overload("split_with_sizes"))
def _split_with_sizes(ctx, self, split_sizes, dim=0):
    return _split_sizes(ctx, ctx.tensor(self), split_sizes, dim)


@aten(overload("unbind", "int"))
def _unbind(ctx, self, dim=0):
    x = ctx.tensor(self)
    dim = normalize_dim(dim, x.rank)
    shape = [s for i, s in enumerate(x.shape) if i != dim]
    return tuple(ctx.g.reshape(slice_dim(ctx, x, dim, i, 1), shape)
                 for i in range(x.shape[dim]))


@aten(overload("select", "int"))
def _select(ctx, self, dim, index):
    x = ctx.tensor(self)
    dim = normalize_dim(dim, x.rank)
    index = index + x.shape[dim] if index < 0 else index
    return ctx.g.reshape(slice_dim(ctx, x, dim, index, 1), ctx.out_shape())


def _bounds(size, start, end):
    start = 0 if start is None else start
    end = size if end is None else end
    start = max(0, min(size, start + size if start < 0 else start))
    end = max(start, min(size, end + size if end < 0 else end))
    return start, end


@aten(overload("slice", "Tensor"))
def _slice(ctx, self, dim=0, start=None, end=None, step=1):
    x = ctx.tensor(self)
    dim = normalize_dim(dim, x.rank)
    start, end = _bounds(x.shape[dim], start, end)
    if step == 1:
        return slice_dim(ctx, x, dim, start, end - start)
    return gather(ctx, x, lambda t: t[(slice(None),) * dim +
                                      (slice(start, end, step),)])


@aten(overload("constant_pad_nd"))
def _pad(ctx, self, pad, value=0):
    """Zero (or ``value``) padding: constants concatenated on each side;
    negative padding crops."""
    g = ctx.g
    x = ctx.tensor(self, "f32")
    for i in range(len(pad) // 2):
        dim = x.rank - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if before < 0 or after < 0:
            start = -min(before, 0)
            x = slice_dim(ctx, x, dim, start,
                          x.shape[dim] - start + min(after, 0))
            before, after = max(before, 0), max(after, 0)
        parts = []
        if before:
            parts.append(g.constant(value, _with(x.shape, dim, before)))
        parts.append(x)
        if after:
            parts.append(g.constant(value, _with(x.shape, dim, after)))
        x = parts[0] if len(parts) == 1 else g.concat(parts, dim)
    return x


@aten(overload("slice_scatter"))
def _slice_scatter(ctx, self, src, dim=0, start=None, end=None, step=1):
    """``self`` with ``src`` written into ``self[start:end]`` along dim."""
    x = ctx.tensor(self, "f32")
    dim = normalize_dim(dim, x.rank)
    start, end = _bounds(x.shape[dim], start, end)
    ctx.require(step == 1, "a strided slice assignment")
    src = ctx.operand(src, _with(x.shape, dim, end - start))
    parts = [slice_dim(ctx, x, dim, 0, start)] if start else []
    parts.append(src)
    if end < x.shape[dim]:
        parts.append(slice_dim(ctx, x, dim, end, x.shape[dim] - end))
    return parts[0] if len(parts) == 1 else ctx.g.concat(parts, dim)


@aten(overload("select_scatter"))
def _select_scatter(ctx, self, src, dim, index):
    x = ctx.tensor(self, "f32")
    dim = normalize_dim(dim, x.rank)
    index = index + x.shape[dim] if index < 0 else index
    src = ctx.g.reshape(ctx.operand(src, [s for i, s in enumerate(x.shape)
                                          if i != dim]),
                        _with(x.shape, dim, 1))
    return _slice_scatter(ctx, x, src, dim, index, index + 1)
