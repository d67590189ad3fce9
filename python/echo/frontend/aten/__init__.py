"""The ATen op table: ``OpOverload -> handler``, one module per op family.

A handler is ``handler(ctx, **args)``: ``ctx`` is the
:class:`echo.frontend.importer.NodeImporter` (its ``g`` is the
:class:`echo.models.GraphBuilder`), ``args`` the op's arguments by their
schema names, defaults applied (``self``, ``other``, ``dim``, ...), each an
Echo value, a known constant or a Python value (:mod:`..literals`). It
returns the node's value (a tuple for ops with several results).

Families: ``elementwise`` (arithmetic with broadcasting, activations,
select), ``linear`` (mm, addmm, bmm, baddbmm, transposes), ``conv_pool``
(convolution, pooling), ``norm`` (batch and layer norm), ``shape`` (views,
expand, cat/stack/split, slicing, padding), ``gather`` (embedding and ops
that pick elements at constant positions), ``reduction`` (sum, mean, max,
softmax, var_mean), ``dropout``, ``loss`` (losses computed in forward:
cross-entropy and NLL as echo.cross_entropy, the others from elementwise
ops), ``masks`` (comparisons, logical ops, dtype conversions), ``routing``
(topk, gather, scatter, one_hot by computed indices).
"""

__all__ = ["OPS", "aten", "pair", "normalize_dim"]

# OpOverload -> handler
OPS = {}


def aten(*ops):
    """Registers the decorated handler for the given ``OpOverload``s (ops
    this torch does not have are skipped)."""
    def register(handler):
        for op in ops:
            if op is not None:
                OPS[op] = handler
        return handler
    return register


def overload(name, variant="default"):
    """``torch.ops.aten.<name>.<variant>``, or None where this torch has
    no such op."""
    import torch
    try:
        return getattr(getattr(torch.ops.aten, name), variant)
    except (AttributeError, RuntimeError):
        return None


def pair(v, n=2):
    """An int or a list of ints as a list of ``n``."""
    if isinstance(v, int):
        return [v] * n
    v = [int(x) for x in v]
    return v * n if len(v) == 1 else v


def normalize_dim(dim, rank):
    dim = int(dim)
    return dim + rank if dim < 0 else dim


from echo.frontend.aten import (conv_pool, dropout, elementwise,  # noqa
                                gather, linear, loss, masks, norm,
                                reduction, routing, shape, sinusoid,
                                stop_gradient, upsample)
# Last: it wraps the handlers of views and arithmetic above.
from echo.frontend.aten import complex  # noqa: E402,F401
