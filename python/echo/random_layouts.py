"""Random small graphs whose GEMM and convolution operands are views.

A sibling of ``echo.random_models`` for the layouts the library calls take:
``generate(seed)`` returns the text of one model whose ``matmul``,
``batch_matmul``, ``linear`` and ``conv2d`` operands come through random
chains of

* stacks: the operand is one part of a concat of reshapes along a new axis
  at a random position (``torch.stack(parts, axis)[..., j, ...]``);
* slices along a random dim of a larger value (columns, rows, channels, a
  crop of an image);
* transposes (a random permutation) and reshapes (dims merged or split);

and whose results are stacked the same way and mixed over the new axis by a
gate (a dense mixture of experts), so that the backward pass hands the
GEMMs and convolutions views of the stacked gradients too (a column of a
gradient stacked along its last dim has no unit stride). Values are
parameters, data, their tanh, or earlier results; the loss sums the tanh of
what is left. Dims include 1 (whose stride does not matter); contractions
are at most 48 long. The same seed always gives the same model.

    python3 -m echo.random_layouts --count=N --seed=S --out=DIR

writes DIR/model<i>.mlir for i in [0, N); the test runs each with the
library calls on and off under every strategy
(test/Integration/random-layouts.test).
"""
import random

from echo import random_models
from echo.models import GraphBuilder


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class _Gen(object):
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.g = GraphBuilder("layouts%d" % seed, seed=seed + 1)
        self.names = 0
        self.results = {}  # shape -> GEMM/conv results (after tanh)
        self.loose = []  # values the loss sums

    def _name(self, kind):
        self.names += 1
        return "%s%d" % (kind, self.names)

    # -- values -------------------------------------------------------------

    def source(self, shape):
        """A value of `shape` that is no view: an earlier result, a
        parameter (with a gradient), its tanh, or data (without one)."""
        rng, g = self.rng, self.g
        shape = list(shape)
        earlier = self.results.get(tuple(shape))
        r = rng.random()
        if earlier and r < 0.35:
            return rng.choice(earlier)
        if r < 0.5:
            return g.data(self._name("x"), shape)
        p = g.param(self._name("p"), shape)
        return p if r < 0.8 else g.tanh(p)

    def view(self, shape, depth):
        """A value of `shape` that comes through up to `depth` random
        views."""
        rng, g = self.rng, self.g
        shape = list(shape)
        rank = len(shape)
        if depth == 0:
            return self.source(shape)
        kind = rng.choice(["source", "stack", "stack", "slice", "slice",
                           "transpose", "reshape"])
        if kind == "stack":
            # torch.stack(parts, axis)[..., j, ...] of parts of `shape`.
            axis = rng.randint(0, rank)
            parts = rng.randint(2, 4)
            pick = rng.randrange(parts)
            unit = shape[:axis] + [1] + shape[axis:]
            stacked = g.concat([g.reshape(self.view(shape, depth - 1), unit)
                                for _ in range(parts)], axis)
            if rng.random() < 0.3:
                self.loose.append(stacked)  # its gradient: the whole stack
            offsets = [0] * (rank + 1)
            offsets[axis] = pick
            return g.reshape(g.slice(stacked, offsets, unit), shape)
        if kind == "slice":
            dim = rng.randrange(rank)
            extra = rng.randint(1, 3)
            larger = list(shape)
            larger[dim] += extra
            offsets = [0] * rank
            offsets[dim] = rng.randint(0, extra)
            return g.slice(self.view(larger, depth - 1), offsets, shape)
        if kind == "transpose" and rank > 1:
            perm = list(range(rank))
            while perm == list(range(rank)):
                rng.shuffle(perm)
            # transpose(x, perm)[i] is x's dim perm[i].
            source = [0] * rank
            for i, p in enumerate(perm):
                source[p] = shape[i]
            return g.transpose(self.view(source, depth - 1), perm)
        if kind == "reshape" and _numel(shape) > 1:
            return g.reshape(self.view(self.other_shape(shape), depth - 1),
                             shape)
        return self.source(shape)

    def other_shape(self, shape):
        """Another shape of as many elements: two adjacent dims merged, a
        dim split, or a unit dim added."""
        rng = self.rng
        shape = list(shape)
        choices = []
        for d in range(len(shape) - 1):
            choices.append(shape[:d] + [shape[d] * shape[d + 1]] +
                           shape[d + 2:])
        for d, n in enumerate(shape):
            for f in (2, 3):
                if n % f == 0 and n > f:
                    choices.append(shape[:d] + [f, n // f] + shape[d + 1:])
        d = rng.randint(0, len(shape))
        choices.append(shape[:d] + [1] + shape[d:])
        return rng.choice(choices)

    def size(self, small=False):
        return self.rng.choice([1, 2, 3, 4] if small else [1, 2, 3, 4, 5, 6, 8])

    def contraction(self):
        return self.rng.choice([2, 3, 4, 5, 8, 12])

    # -- ops ----------------------------------------------------------------

    def record(self, y):
        y = self.g.tanh(y)
        self.results.setdefault(tuple(y.shape), []).append(y)
        self.loose.append(y)
        return y

    def gemm(self, kind=None, shape=None):
        """One matmul, batch_matmul, linear or conv2d on view operands;
        `shape` fixes the result's (a stack of experts)."""
        rng, g = self.rng, self.g
        kind = kind or rng.choice(["matmul", "matmul", "batch_matmul",
                                   "linear", "linear", "conv2d"])
        depth = rng.randint(1, 3)
        if kind in ("matmul", "batch_matmul"):
            if shape:
                m, n = shape[-2:]
            else:
                m, n = self.size(), self.size()
            k = self.contraction()
            ta, tb = rng.random() < 0.4, rng.random() < 0.4
            batch = []
            if kind == "batch_matmul":
                batch = [shape[0] if shape else self.size(small=True)]
            a = self.view(batch + ([k, m] if ta else [m, k]), depth)
            b = self.view(batch + ([n, k] if tb else [k, n]), depth)
            op = g.matmul if kind == "matmul" else g.batch_matmul
            return self.record(op(a, b, transpose_a=ta, transpose_b=tb))
        if kind == "linear":
            m, n = shape if shape else (self.size(), self.size())
            k = self.contraction()
            x = self.view([m, k], depth)
            w = self.view([n, k], depth)
            b = self.view([n], rng.randint(0, 1))
            return self.record(g.linear(x, w, b))
        # conv2d: x [N, C, H, W], w [F, C/groups, KH, KW].
        if shape:
            batch, filters, oh, ow = shape
        else:
            batch, filters = self.size(small=True), rng.choice([1, 2, 4])
            oh, ow = rng.choice([2, 3, 4]), rng.choice([2, 3, 4])
        channels = rng.choice([1, 2, 3, 4])
        groups = rng.choice([g_ for g_ in (1, 2) if channels % g_ == 0 and
                             filters % g_ == 0])
        kh, kw = rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
        ph, pw = rng.choice([0, 1]), rng.choice([0, 1])
        # The input the output size asks for (stride 1).
        h, w_ = oh + kh - 1 - 2 * ph, ow + kw - 1 - 2 * pw
        if h < 1 or w_ < 1:
            ph = pw = 0
            h, w_ = oh + kh - 1, ow + kw - 1
        x = self.view([batch, channels, h, w_], depth)
        w = self.view([filters, channels // groups, kh, kw], depth)
        return self.record(g.conv2d(x, w, padding=(ph, pw), groups=groups))

    def experts(self):
        """A dense mixture of experts: several GEMMs of one result shape,
        stacked along a new axis and mixed there by a softmax gate."""
        rng, g = self.rng, self.g
        kind = rng.choice(["matmul", "linear", "batch_matmul", "conv2d"])
        if kind == "conv2d":
            shape = [self.size(small=True), rng.choice([1, 2, 4]),
                     rng.choice([2, 3]), rng.choice([2, 3])]
        elif kind == "batch_matmul":
            shape = [self.size(small=True), self.size(), self.size()]
        else:
            shape = [self.size(), self.size()]
        count = rng.randint(2, 4)
        parts = [self.gemm(kind, shape) for _ in range(count)]
        axis = rng.randint(0, len(shape))
        unit = shape[:axis] + [1] + shape[axis:]
        stacked = g.concat([g.reshape(p, unit) for p in parts], axis)
        full = list(unit)
        full[axis] = count
        gate = g.softmax(g.param(self._name("gate"), [count]), 0)
        weights = g.broadcast(gate, full,
                              [d for d in range(len(full)) if d != axis])
        mixed = g.reduce_sum(g.mul(stacked, weights), [axis])
        self.loose.append(mixed)
        self.results.setdefault(tuple(shape), []).append(mixed)

    def loss(self):
        g = self.g
        terms = [g.reduce_sum(g.tanh(v), list(range(len(v.shape))))
                 for v in self.loose]
        loss = terms[0]
        for t in terms[1:]:
            loss = g.add(loss, t)
        return loss


def generate(seed, ops=None):
    """The text of random graph number ``seed`` (``ops`` GEMMs or mixtures,
    2 to 6)."""
    gen = _Gen(seed)
    for _ in range(ops if ops is not None else gen.rng.randint(2, 6)):
        if gen.rng.random() < 0.35:
            gen.experts()
        else:
            gen.gemm()
    return gen.g.finish(gen.loss())


def main():
    random_models.write_models(generate, __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
