"""Literals of the ATen importer: what an argument is, and Echo constants.

An argument of a node is, after :func:`convert` (a converter map keyed by
type, following the subclass chain as torch-mlir's
``LITERAL_CONVERTER_MAP`` does):

* an Echo :class:`echo.models.Value` (a tensor that depends on the inputs
  or parameters);
* a :class:`Const`: a tensor whose value the importer knows (folded at
  import time, a buffer, a tensor constant of the graph);
* a Python number, bool, string, ``None``, a ``torch.dtype`` / device /
  layout / memory format (kept as they are), or a list / tuple of these.

:func:`materialize` writes a :class:`Const` as an ``arith.constant``: float
tensors as ``f32`` (non-finite values in MLIR's hexadecimal spelling),
bool tensors as ``i1``, integer tensors as ``i32`` where ids are wanted
(else, like bools in arithmetic, as ``f32``); a splat is one value, and the
same tensor asked twice is one constant. A tensor that is a triangle of
two values over its last two dims, repeated along the others (a causal
mask however it was built: ``tril``/``triu``, sliced, compared with 0,
negated) is not written out: it becomes ``echo.triangle`` (broadcast along
the leading dims), whatever its size.
"""

import torch

__all__ = ["Const", "Unusable", "convert", "materialize", "triangle",
           "MAX_CONSTANT_ELEMENTS"]

# Constants above this many elements are refused (the MLIR text would be
# tens of megabytes).
MAX_CONSTANT_ELEMENTS = 1 << 22


class Const(object):
    """A tensor whose value is known at import time."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    @property
    def shape(self):
        return tuple(self.tensor.shape)

    def __repr__(self):
        return "Const(%s %s)" % (self.tensor.dtype, list(self.tensor.shape))


class Unusable(object):
    """A result Echo does not compute (batch norm's saved statistics, max
    pooling's indices); using it is an error that says which."""

    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what


def _keep(value, node_value):
    return value


def _sequence(value, node_value):
    return type(value)(convert(v, node_value) for v in value)


def _tensor(value, node_value):
    return Const(value)


_CONVERTERS = {
    type(None): _keep, bool: _keep, int: _keep, float: _keep, str: _keep,
    torch.dtype: _keep, torch.device: _keep, torch.layout: _keep,
    torch.memory_format: _keep, list: _sequence, tuple: _sequence,
    torch.Tensor: _tensor,
}


def convert(value, node_value):
    """The importer's view of one argument; ``node_value(node)`` gives the
    value of an fx node argument."""
    import torch.fx
    if isinstance(value, torch.fx.Node):
        return node_value(value)
    for cls in type(value).__mro__:
        converter = _CONVERTERS.get(cls)
        if converter is not None:
            return converter(value, node_value)
    raise TypeError("an argument of type %s" % type(value).__name__)


def _element_type(tensor, ids):
    if tensor.dtype == torch.bool:
        return "i1"
    if not tensor.dtype.is_floating_point and not tensor.dtype.is_complex:
        return "i32" if ids else "f32"
    return "f32"


def triangle(tensor):
    """``(diagonal, inside, outside)`` when ``tensor`` (rank >= 2, bool or
    real) is ``inside`` where ``j - i <= diagonal`` and ``outside``
    elsewhere over its last two dims ``[i, j]``, the same for every index
    of the leading dims (``torch.where(ones(S, Sk).tril(diagonal), inside,
    outside)`` broadcast); else None."""
    if tensor.dim() < 2 or tensor.dtype.is_complex or tensor.numel() == 0:
        return None
    s, sk = tensor.shape[-2], tensor.shape[-1]
    stacked = tensor.detach().reshape(-1, s, sk)
    first = stacked[0]
    if stacked.shape[0] > 1 and not torch.equal(
            stacked, first.unsqueeze(0).expand_as(stacked)):
        return None
    inside, outside = first[-1, 0], first[0, -1]
    if tensor.dtype.is_floating_point and (bool(torch.isnan(inside)) or
                                           bool(torch.isnan(outside))):
        return None
    if bool(inside == outside):
        return None
    # Row i holds min(max(i + diagonal + 1, 0), Sk) inside values: one row
    # strictly between none and all of them gives the diagonal.
    counts = (first == inside).sum(dim=1)
    rows = ((counts > 0) & (counts < sk)).nonzero()
    if rows.numel() == 0:
        return None
    row = int(rows[0, 0])
    diagonal = int(counts[row]) - 1 - row
    keep = torch.ones(s, sk, dtype=torch.bool).tril(diagonal)
    if not torch.equal(first, torch.where(keep, inside, outside)):
        return None
    return diagonal, inside.item(), outside.item()


def _triangle_value(g, tensor, dtype):
    """``tensor`` as ``echo.triangle`` (broadcast along the leading dims
    unless they are all 1), or None when it is no triangle."""
    if dtype not in ("f32", "i1"):
        return None
    found = triangle(tensor)
    if found is None:
        return None
    diagonal, inside, outside = found
    if dtype == "i1":
        inside, outside = float(bool(inside)), float(bool(outside))
    shape = list(tensor.shape)
    leading = 1
    for d in shape[:-2]:
        leading *= d
    if leading == 1:
        return g.triangle(shape, dtype, diagonal, inside, outside)
    base = g.triangle(shape[-2:], dtype, diagonal, inside, outside)
    return g.broadcast(base, shape, list(range(len(shape) - 2)))


def materialize(g, const, cache, dtype=None):
    """The ``arith.constant`` of ``const`` (a :class:`Const`) with element
    type ``dtype`` (default: ``i1`` for bool, ``f32`` otherwise; ``i32``
    for ids). ``cache`` maps (tensor id, dtype) to the emitted value.
    Raises ValueError for what Echo cannot hold."""
    tensor = const.tensor
    if dtype is None:
        dtype = _element_type(tensor, False)
    key = (id(tensor), dtype)
    if key in cache:
        return cache[key][1]
    if tensor.dtype.is_complex:
        raise ValueError("a complex constant")
    value = _triangle_value(g, tensor, dtype)
    if value is not None:
        cache[key] = (tensor, value)
        return value
    if tensor.numel() > MAX_CONSTANT_ELEMENTS:
        raise ValueError("a constant of %d elements (Echo's importer writes "
                         "at most %d)" % (tensor.numel(),
                                          MAX_CONSTANT_ELEMENTS))
    flat = tensor.detach().reshape(-1)
    if dtype == "i32":
        if flat.numel() and (int(flat.min()) < -2 ** 31 or
                             int(flat.max()) >= 2 ** 31):
            raise ValueError("an integer constant beyond i32")
        values = flat.to(torch.int64).tolist()
    elif dtype == "i1":
        values = flat.to(torch.bool).tolist()
    else:
        values = flat.to(torch.float32).tolist()
    shape = list(tensor.shape)
    if not values:
        raise ValueError("an empty constant")
    value = g.dense_constant(values, shape, dtype)
    cache[key] = (tensor, value)  # the tensor kept alive: ids stay unique
    return value
