"""The decompositions the ATen importer traces with: an explicit, small list.

torch 1.13 has no ``core_aten_decompositions()``, and its whole table (916
entries) goes down to ``prims.*`` (mobilenet: 2482 nodes, 429 of them
``prims.broadcast_in_dim``). Ops Echo has whole stay whole, so each maps
onto one Echo op (log-softmax stays whole too: its handler remembers it, so
that an nll_loss of it is a cross-entropy): batch and layer norm (1.13 would decompose them into
``var_mean`` and ``prims.convert_element_type``), convolution, embedding,
softmax, gelu/silu/hardswish/hardsigmoid/mish/hardtanh. Listed are only ops
Echo has no op for whose 1.13 decomposition stays within the ops the
importer maps (measured on torch 1.13), each with what it becomes.
"""

import torch

__all__ = ["decompositions"]

_WANTED = [
    # var: mean, sub, mul, sum, div; std: var, sqrt.
    ("var", "correction"),
    ("std", "correction"),
    # GroupNorm: view, var, mean, add, rsqrt, sub, mul (and the affine).
    ("native_group_norm", "default"),
    # roll: two slices and a cat.
    ("roll", "default"),
    # glu: two slices, sigmoid, mul.
    ("glu", "default"),
    # repeat: expand, clone, permute, reshape.
    ("repeat", "default"),
]


def decompositions():
    """``{OpOverload: decomposition}`` for the listed ops that this torch
    has a decomposition of."""
    from torch._decomp import decomposition_table
    table = {}
    for name, overload in _WANTED:
        op = getattr(getattr(torch.ops.aten, name, None), overload, None)
        if op is not None and op in decomposition_table:
            table[op] = decomposition_table[op]
    return table
