"""Convolution and pooling.

``convolution`` is ``echo.conv2d`` (``groups`` as its attribute; a 1-D
convolution gets a unit height, a bias is added over the channel dim;
a transposed one is :mod:`.conv_transpose`'s);
``max_pool2d_with_indices`` is ``echo.max_pool2d`` (the indices are not
computed), ``avg_pool2d`` is ``echo.avg_pool2d`` with PyTorch's
``ceil_mode`` and ``count_include_pad`` spelled out, and
``_adaptive_avg_pool2d`` an ``echo.avg_pool2d`` when the windows are even,
else ``echo.adaptive_avg_pool2d`` (PyTorch's uneven windows). Result
shapes are PyTorch's (``ceil_mode`` included).
"""

from echo.frontend.aten import aten, overload, pair
from echo.frontend.aten.conv_transpose import conv_transpose
from echo.frontend.literals import Unusable
from echo.models import bool_attr, i64_array_attr, i64_attr


def _unit_height(ctx, x):
    return ctx.g.reshape(x, [x.shape[0], x.shape[1], 1, x.shape[2]])


@aten(overload("convolution"))
def _convolution(ctx, input, weight, bias, stride, padding, dilation,
                 transposed, output_padding, groups):
    if transposed:
        return conv_transpose(ctx, input, weight, bias, stride, padding,
                              dilation, output_padding, groups)
    g = ctx.g
    x, w = ctx.tensor(input, "f32"), ctx.tensor(weight, "f32", "weight")
    ctx.require(x.rank in (3, 4) and w.rank == x.rank,
                "a convolution of %s by %s (Echo convolves NCHW by FCHW, "
                "or NCL by FCL)" % (x.type, w.type))
    n = x.rank - 2
    ctx.require(pair(dilation, n) == [1] * n,
                "a dilated convolution (dilation %s; Echo's conv2d has "
                "none)" % (list(dilation),))
    stride, padding = pair(stride, n), pair(padding, n)
    out_shape = ctx.out_shape()
    if n == 1:
        x, w = _unit_height(ctx, x), _unit_height(ctx, w)
        stride, padding = [1] + stride, [0] + padding
    shape4 = [x.shape[0], w.shape[0]] + (
        list(out_shape[2:]) if n == 2 else [1, out_shape[2]])
    attrs = {"strides": i64_array_attr(stride),
             "padding": i64_array_attr(padding)}
    if groups != 1:
        attrs["groups"] = i64_attr(groups)
    y = g.op("conv2d", [x, w], [(shape4, "f32")], attrs)[0]
    if bias is not None:
        b = ctx.tensor(bias, "f32", "bias")
        y = g.add(y, g.broadcast(b, y.shape, [0, 2, 3]))
    return g.reshape(y, out_shape)


def _pool(ctx, name, self, kernel_size, stride, padding, ceil_mode,
          count_include_pad=None):
    x = ctx.tensor(self, "f32")
    ctx.require(x.rank == 4, "%s of %s (Echo pools NCHW)" % (name, x.type))
    kernel = pair(kernel_size)
    stride = pair(stride) if stride else kernel
    padding = pair(padding)
    attrs = {"kernel": i64_array_attr(kernel),
             "strides": i64_array_attr(stride),
             "padding": i64_array_attr(padding)}
    if ceil_mode:
        attrs["ceil_mode"] = bool_attr(True)
    if count_include_pad and (any(padding) or ceil_mode):
        attrs["count_include_pad"] = bool_attr(True)
    return ctx.g.op(name, [x], [(ctx.out_shape(0), "f32")], attrs)[0]


@aten(overload("max_pool2d_with_indices"))
def _max_pool(ctx, self, kernel_size, stride, padding, dilation, ceil_mode):
    ctx.require(pair(dilation) == [1, 1], "max pooling with dilation %s "
                "(Echo's max_pool2d has none)" % (list(dilation),))
    y = _pool(ctx, "max_pool2d", self, kernel_size, stride, padding,
              ceil_mode)
    return y, Unusable("max pooling's indices")


@aten(overload("avg_pool2d"))
def _avg_pool(ctx, self, kernel_size, stride, padding, ceil_mode,
              count_include_pad, divisor_override=None):
    ctx.require(divisor_override is None, "avg_pool2d with "
                "divisor_override")
    return _pool(ctx, "avg_pool2d", self, kernel_size, stride, padding,
                 ceil_mode, count_include_pad)


@aten(overload("_adaptive_avg_pool2d"))
def _adaptive_avg_pool(ctx, self, output_size):
    x = ctx.tensor(self, "f32")
    ctx.require(x.rank == 4, "adaptive pooling of %s" % x.type)
    oh, ow = ctx.out_shape()[2:]
    h, w = x.shape[2:]
    if (h, w) == (oh, ow):
        return x
    if h % oh == 0 and w % ow == 0:
        k = [h // oh, w // ow]
        return ctx.g.avg_pool2d(x, k, k)
    return ctx.g.op("adaptive_avg_pool2d", [x], [(ctx.out_shape(), "f32")],
                    {"output_size": i64_array_attr([oh, ow])})[0]
