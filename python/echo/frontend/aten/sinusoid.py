"""Sinusoids of computed values: ``sin`` and ``cos`` (sinusoidal timestep
embeddings of diffusion models, rotary tables built in forward) are
``echo.sin`` and ``echo.cos``. Of known values they fold.
"""

from echo.frontend.aten import aten, overload
from echo.frontend.aten.elementwise import unary


@aten(overload("sin"))
def _sin(ctx, self):
    return unary(ctx, "sin", self)


@aten(overload("cos"))
def _cos(ctx, self):
    return unary(ctx, "cos", self)
