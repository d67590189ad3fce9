"""Matrix products: mm, addmm, bmm, baddbmm, and the transposes (t,
transpose, permute) they fold into their flags.

``addmm(b, x, t(w))`` with a [N] bias — what ``nn.Linear`` is on 2-D and
contiguous 3-D inputs — is ``echo.linear(x, w, b)``; a transpose of the
last two dims that feeds ``mm``/``bmm`` becomes ``transpose_a`` /
``transpose_b``.
"""

from echo.frontend.aten import aten, normalize_dim, overload


def _source(ctx, x, rank):
    """(value, transposed): the value whose transpose ``x`` is, if it is a
    last-two-dims swap of a rank-``rank`` value."""
    src = ctx.swapped.get(x.name)
    if src is not None and src.rank == rank:
        return src, True
    return x, False


def _product(ctx, a, b, rank):
    a, b = ctx.tensor(a, "f32"), ctx.tensor(b, "f32")
    ctx.require(a.rank == rank and b.rank == rank,
                "a product of %s and %s" % (a.type, b.type))
    a, ta = _source(ctx, a, rank)
    b, tb = _source(ctx, b, rank)
    if rank == 2:
        return ctx.g.matmul(a, b, transpose_a=ta, transpose_b=tb)
    return ctx.g.batch_matmul(a, b, transpose_a=ta, transpose_b=tb)


def _scale(ctx, x, factor):
    if factor == 1:
        return x
    return ctx.g.mul(x, ctx.g.constant(factor, x.shape))


@aten(overload("t"))
def _t(ctx, self):
    x = ctx.tensor(self)
    return x if x.rank < 2 else ctx.transpose(x, [1, 0])


@aten(overload("transpose", "int"))
def _transpose(ctx, self, dim0, dim1):
    x = ctx.tensor(self)
    if x.rank < 2:
        return x
    perm = list(range(x.rank))
    d0, d1 = normalize_dim(dim0, x.rank), normalize_dim(dim1, x.rank)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return ctx.transpose(x, perm)


@aten(overload("permute"))
def _permute(ctx, self, dims):
    x = ctx.tensor(self)
    return ctx.transpose(x, [normalize_dim(d, x.rank) for d in dims])


@aten(overload("mm"))
def _mm(ctx, self, mat2):
    return _product(ctx, self, mat2, 2)


@aten(overload("bmm"))
def _bmm(ctx, self, mat2):
    return _product(ctx, self, mat2, 3)


@aten(overload("addmm"))
def _addmm(ctx, self, mat1, mat2, beta=1, alpha=1):
    g = ctx.g
    shape = ctx.out_shape()
    w = ctx.tensor(mat2, "f32")
    src, transposed = _source(ctx, w, 2)
    bias_shape = getattr(self, "shape", None)
    if transposed and beta == 1 and alpha == 1 and \
            bias_shape is not None and tuple(bias_shape) == (shape[1],):
        x = ctx.tensor(mat1, "f32")
        return g.linear(x, src, ctx.tensor(self, "f32"))
    y = _scale(ctx, _product(ctx, mat1, mat2, 2), alpha)
    if beta == 0:
        return y
    return g.add(y, _scale(ctx, ctx.operand(self, shape), beta))


@aten(overload("baddbmm"))
def _baddbmm(ctx, self, batch1, batch2, beta=1, alpha=1):
    y = _scale(ctx, _product(ctx, batch1, batch2, 3), alpha)
    if beta == 0:
        return y
    return ctx.g.add(y, _scale(ctx, ctx.operand(self, y.shape), beta))


@aten(overload("mv"))
def _mv(ctx, self, vec):
    v = ctx.tensor(vec, "f32")
    y = _product(ctx, self, ctx.g.reshape(v, [v.shape[0], 1]), 2)
    return ctx.g.reshape(y, [y.shape[0]])
