"""Transposed convolution: ``convolution`` with ``transposed=True``
(``nn.ConvTranspose2d``, ``nn.ConvTranspose1d``, ``F.conv_transpose2d``;
UNet decoders, GAN and VAE generators) is ``echo.conv_transpose2d``, with
PyTorch's weight layout [in, out/groups, KH, KW], ``output_padding`` and
``groups`` as its attributes (a 1-D one gets a unit height); a bias is
added over the channel dim.
"""

from echo.frontend.aten import pair
from echo.models import i64_array_attr, i64_attr

__all__ = ["conv_transpose"]


def conv_transpose(ctx, input, weight, bias, stride, padding, dilation,
                   output_padding, groups):
    """The handler of ``convolution`` when ``transposed`` is set (its
    arguments but ``transposed``)."""
    g = ctx.g
    x, w = ctx.tensor(input, "f32"), ctx.tensor(weight, "f32", "weight")
    ctx.require(x.rank in (3, 4) and w.rank == x.rank,
                "a transposed convolution of %s by %s (Echo convolves NCHW "
                "by CFHW, or NCL by CFL)" % (x.type, w.type))
    n = x.rank - 2
    ctx.require(pair(dilation, n) == [1] * n,
                "a dilated transposed convolution (dilation %s; Echo's "
                "conv_transpose2d has none)" % (list(dilation),))
    stride, padding = pair(stride, n), pair(padding, n)
    output_padding = pair(output_padding, n)
    out_shape = ctx.out_shape()
    if n == 1:
        x = g.reshape(x, [x.shape[0], x.shape[1], 1, x.shape[2]])
        w = g.reshape(w, [w.shape[0], w.shape[1], 1, w.shape[2]])
        stride, padding = [1] + stride, [0] + padding
        output_padding = [0] + output_padding
    shape4 = [out_shape[0], out_shape[1]] + (
        list(out_shape[2:]) if n == 2 else [1, out_shape[2]])
    attrs = {"strides": i64_array_attr(stride),
             "padding": i64_array_attr(padding)}
    if any(output_padding):
        attrs["output_padding"] = i64_array_attr(output_padding)
    if groups != 1:
        attrs["groups"] = i64_attr(groups)
    y = g.op("conv_transpose2d", [x, w], [(shape4, "f32")], attrs)[0]
    if bias is not None:
        b = ctx.tensor(bias, "f32", "bias")
        y = g.add(y, g.broadcast(b, y.shape, [0, 2, 3]))
    return g.reshape(y, out_shape)
