"""Upsampling: ``F.interpolate`` on NCHW with ``mode='nearest'``
(``upsample_nearest2d``) and ``mode='bilinear'`` (``upsample_bilinear2d``,
with or without ``align_corners``) is ``echo.upsample_nearest2d`` /
``echo.upsample_bilinear2d``: the result's extents are the traced ones,
and a ``scale_factor`` PyTorch passes on to the kernel (which then reads
the source coordinates with 1 / scale instead of the ratio of the
extents) becomes ``scales_h``/``scales_w``. Their gradients are the ops'
own (a fixed linear map), not the scatter-adds of a gather.
"""

from echo.frontend.aten import aten, overload
from echo.models import bool_attr, f64_attr


def _upsample(ctx, name, input, scales_h, scales_w, align_corners=False):
    x = ctx.tensor(input, "f32")
    ctx.require(x.rank == 4, "%s of %s (Echo upsamples NCHW)" % (name,
                                                                 x.type))
    shape = ctx.out_shape()
    if shape == x.shape:
        return x  # PyTorch copies, whatever the mode
    attrs = {}
    if align_corners:
        attrs["align_corners"] = bool_attr(True)
    else:
        # PyTorch's kernels ignore a scale that is not positive.
        for key, scale in (("scales_h", scales_h), ("scales_w", scales_w)):
            if scale is not None and float(scale) > 0:
                attrs[key] = f64_attr(float(scale))
    return ctx.g.op(name, [x], [(shape, "f32")], attrs)[0]


def _scales(output_size, scale_factors):
    """The per-dim scales the ``.vec`` overloads pass to the kernel."""
    if output_size is not None or scale_factors is None:
        return None, None
    return scale_factors[0], scale_factors[1]


@aten(overload("upsample_nearest2d", "vec"))
def _upsample_nearest(ctx, input, output_size, scale_factors):
    return _upsample(ctx, "upsample_nearest2d", input,
                     *_scales(output_size, scale_factors))


@aten(overload("upsample_nearest2d"))
def _upsample_nearest_sizes(ctx, self, output_size, scales_h=None,
                            scales_w=None):
    return _upsample(ctx, "upsample_nearest2d", self, scales_h, scales_w)


@aten(overload("upsample_bilinear2d", "vec"))
def _upsample_bilinear(ctx, input, output_size, align_corners,
                       scale_factors):
    return _upsample(ctx, "upsample_bilinear2d", input,
                     *_scales(output_size, scale_factors),
                     align_corners=align_corners)


@aten(overload("upsample_bilinear2d"))
def _upsample_bilinear_sizes(ctx, self, output_size, align_corners,
                             scales_h=None, scales_w=None):
    return _upsample(ctx, "upsample_bilinear2d", self, scales_h, scales_w,
                     align_corners)
