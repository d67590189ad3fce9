"""Random well-formed Echo models from every op family (property tests).

``generate(seed)`` returns the text of one model: a random DAG over a pool
of ``[B, F]`` feature values, fed by dense data, an embedding of ids and a
small convolutional branch (a dense, grouped or depthwise conv2d, batch
norm, ReLU, sometimes a channel-wise dropout, then max, average or adaptive
average pooling with or without ceil_mode and count_include_pad, reshaped
into features), grown by ops drawn from every family
(unary elementwise, the importer's activations among them: erf, silu, mish,
gelu in both forms, hardswish, hardsigmoid and clamp; binary elementwise,
select by a constant mask, broadcast, reduce_sum/reduce_max, slice, concat,
reshape and transpose through rank 3, matmul, batch_matmul, linear,
softmax, layer norm, dropout) and ended by a loss that sums a cross-entropy
with a few other scalar losses (mse, reduce_sum), so that scalar device
results meet on the way to the loss. Shapes are small; the same seed always
gives the same model.

    python3 -m echo.random_models --count=N --seed=S --out=DIR

writes DIR/model<i>.mlir for i in [0, N).
"""
import argparse
import os
import random

from echo.models import GraphBuilder


class _Gen(object):
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.g = GraphBuilder("random%d" % seed, seed=seed + 1)
        self.batch = self.rng.choice([2, 3, 4])
        self.pool = []  # [B, F] f32 values
        self.params = 0

    def param(self, shape):
        self.params += 1
        return self.g.param("p%d" % self.params, shape)

    def pick(self, width=None):
        choices = [v for v in self.pool if width is None or v.shape[1] == width]
        return self.rng.choice(choices) if choices else None

    def inputs(self):
        g, rng, b = self.g, self.rng, self.batch
        self.pool.append(g.data("x", [b, rng.choice([4, 6, 8])]))
        if rng.random() < 0.6:
            vocab, width = rng.choice([5, 7, 11]), rng.choice([4, 6])
            ids = g.data("ids", [b], "i32")
            self.pool.append(g.embedding(ids, self.param([vocab, width])))
        if rng.random() < 0.5:
            img = g.data("img", [b, 4, 6, 6])
            # Dense, grouped (2 groups of 2 channels) or depthwise (a filter
            # pair per channel).
            groups, filters = rng.choice([(1, 3), (2, 4), (4, 8)])
            h = g.conv2d(img, self.param([filters, 4 // groups, 3, 3]),
                         padding=(1, 1), groups=groups)
            h = g.batch_norm(h, self.param([filters]), self.param([filters]))
            h = g.relu(h)
            if rng.random() < 0.3:  # Dropout2d: one draw per channel
                h, _ = g.dropout(h, 0.2, broadcast_dims=[2, 3])
            # 6x6 maps: a 3/2 max pool has a third, clipped window with
            # ceil_mode; a 3/3 average pool with padding 1 has three.
            kind = rng.choice(["max", "max", "avg", "avg", "adaptive"])
            ceil_mode = rng.random() < 0.5
            if kind == "max":
                h = g.max_pool2d(h, (3, 3), (2, 2), ceil_mode=ceil_mode)
            elif kind == "avg":
                h = g.avg_pool2d(h, (3, 3), (3, 3), padding=(1, 1),
                                 ceil_mode=ceil_mode,
                                 count_include_pad=rng.random() < 0.5)
            else:
                h = g.adaptive_avg_pool2d(h, rng.choice([(2, 2), (4, 4)]))
            self.pool.append(g.reshape(h, [b, _numel(h.shape[1:])]))

    def step(self):
        g, rng = self.g, self.rng
        x = self.pick()
        b, f = x.shape
        kind = rng.choice(["unary", "binary", "binary", "linear", "matmul",
                           "broadcast", "reduce", "slice", "concat",
                           "rank3", "softmax", "layer_norm", "dropout",
                           "batch_matmul", "unary", "select"])
        if kind == "unary":
            op = rng.choice(["tanh", "sigmoid", "relu", "neg", "exp", "erf",
                             "silu", "mish", "gelu", "gelu_tanh",
                             "hardswish", "hardsigmoid", "relu6",
                             "hardtanh"])
            if op == "exp":  # keep values small
                x = g.tanh(x)
            if op in ("hardswish", "hardsigmoid", "relu6", "hardtanh"):
                # Values cross the bounds (+-3, 0 and 6, the clamp's).
                x = g.mul(x, g.constant(4.0, x.shape))
            if op == "gelu_tanh":
                y = g.gelu(x, tanh_approximation=True)
            elif op == "hardtanh":
                y = g.hardtanh(x, rng.choice([-1.0, -0.5]),
                               rng.choice([0.5, 2.0]))
            else:
                y = getattr(g, op)(x)
        elif kind == "select":
            other = self.pick(f)
            if other is None or other is x:
                other = self.param([b, f])
            mask = g.mask_constant([rng.random() < 0.5
                                    for _ in range(b * f)], [b, f])
            y = g.select(mask, x, other)
        elif kind == "binary":
            other = self.pick(f)
            if other is None or other is x:
                other = self.param([b, f])
            y = getattr(g, rng.choice(["add", "sub", "mul"]))(x, other)
        elif kind == "linear":
            n = rng.choice([3, 4, 6, 8])
            y = g.linear(x, self.param([n, f]), self.param([n]))
        elif kind == "matmul":
            n = rng.choice([3, 5, 8])
            y = g.matmul(x, self.param([f, n]))
        elif kind == "broadcast":
            v = g.broadcast(self.param([f]), [b, f], [0])
            y = g.mul(x, v) if rng.random() < 0.5 else g.add(x, v)
        elif kind == "reduce":
            r = getattr(g, rng.choice(["reduce_sum", "reduce_max"]))(x, [1])
            y = g.sub(x, g.broadcast(r, [b, f], [1]))
        elif kind == "slice":
            if f < 2:
                return
            size = rng.randint(1, f - 1)
            y = g.slice(x, [0, rng.randint(0, f - size)], [b, size])
        elif kind == "concat":
            y = g.concat([x, self.pick()], 1)
        elif kind == "rank3":
            if f % 2:
                return
            t = g.reshape(x, [b, 2, f // 2])
            t = g.transpose(t, [0, 2, 1])
            t = g.tanh(t)
            y = g.reshape(t, [b, f])
        elif kind == "softmax":
            y = g.softmax(x, 1)
        elif kind == "layer_norm":
            y = g.layer_norm(x, self.param([f]), self.param([f]))
        elif kind == "dropout":
            y, _ = g.dropout(x, rng.choice([0.1, 0.3]))
        else:  # batch_matmul: [B, F, 1] x [B, 1, F] -> [B, F, F] -> [B, F]
            col = g.reshape(x, [b, f, 1])
            outer = g.batch_matmul(col, col, transpose_b=True)
            y = g.reduce_sum(outer, [2])
        self.pool.append(y)

    def loss(self):
        g, rng, b = self.g, self.rng, self.batch
        classes = rng.choice([3, 5])
        head = self.pool[-1]
        logits = g.linear(head, self.param([classes, head.shape[1]]),
                          self.param([classes]))
        labels = g.data("labels", [b], "i32")
        loss = g.cross_entropy(logits, labels)
        for v in rng.sample(self.pool, min(len(self.pool), rng.randint(0, 2))):
            if rng.random() < 0.5:
                target = g.data("target", list(v.shape))
                term = g.mse_loss(v, target)
            else:
                term = g.reduce_sum(g.tanh(v), [0, 1])
            loss = g.add(loss, term)
        return loss


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def generate(seed, ops=None):
    """The text of random model number ``seed`` (``ops`` ops, 4 to 24)."""
    gen = _Gen(seed)
    gen.inputs()
    for _ in range(ops if ops is not None else gen.rng.randint(4, 24)):
        gen.step()
    return gen.g.finish(gen.loss())


def write_models(generate, description):
    """The command line of a random-model generator: ``--count`` models
    ``generate(seed)`` for seeds from ``--seed``, as ``--out``/modelN.mlir."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for i in range(args.count):
        with open(os.path.join(args.out, "model%d.mlir" % i), "w") as f:
            f.write(generate(args.seed + i))


def main():
    write_models(generate, __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
