"""Normalizations: ``native_batch_norm`` (training mode) is
``echo.batch_norm``, ``native_layer_norm`` is ``echo.layer_norm``.

Batch norm in training mode normalizes with the batch's statistics; the
running statistics PyTorch updates in place are not imported. A 3-D
input ([N, C, L]) gets a unit width; without affine parameters gamma is
ones and beta zeros. Layer norm over several trailing dims normalizes them
flattened into one. The saved mean and inverse deviation these ops also
return are not computed (their use is an error).
"""

from echo.frontend.aten import aten, overload
from echo.frontend.literals import Unusable


def _affine(ctx, v, size, fill, what):
    if v is None:
        return ctx.g.constant(fill, [size])
    v = ctx.tensor(v, "f32", what)
    return ctx.g.reshape(v, [size])


@aten(overload("native_batch_norm"))
def _batch_norm(ctx, input, weight, bias, running_mean, running_var,
                training, momentum, eps):
    g = ctx.g
    ctx.require(training, "batch norm in evaluation mode (Echo's batch_norm "
                "uses the batch's statistics: the module is imported in "
                "training mode, but this one was set to eval)")
    x = ctx.tensor(input, "f32")
    ctx.require(x.rank in (2, 3, 4), "batch norm of %s" % x.type)
    c = x.shape[1]
    gamma = _affine(ctx, weight, c, 1.0, "weight")
    beta = _affine(ctx, bias, c, 0.0, "bias")
    flat = g.reshape(x, list(x.shape) + [1]) if x.rank == 3 else x
    y = g.reshape(g.batch_norm(flat, gamma, beta, eps), x.shape)
    return (y, Unusable("batch norm's saved mean"),
            Unusable("batch norm's saved inverse deviation"))


@aten(overload("native_layer_norm"))
def _layer_norm(ctx, input, normalized_shape, weight, bias, eps):
    g = ctx.g
    x = ctx.tensor(input, "f32")
    k = len(normalized_shape)
    ctx.require(1 <= k <= x.rank and list(x.shape[x.rank - k:]) == list(
        normalized_shape), "layer norm of %s over %s" % (
            x.type, list(normalized_shape)))
    d = 1
    for s in normalized_shape:
        d *= int(s)
    gamma = _affine(ctx, weight, d, 1.0, "weight")
    beta = _affine(ctx, bias, d, 0.0, "bias")
    flat = g.reshape(x, list(x.shape[:x.rank - k]) + [d])
    y = g.reshape(g.layer_norm(flat, gamma, beta, eps), x.shape)
    return (y, Unusable("layer norm's mean"),
            Unusable("layer norm's inverse deviation"))
