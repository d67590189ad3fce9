"""Differentiated training steps in TOSA, as AOTAutograd or jax.grad hands
them over, at any size (a generator for tests and benchmarks).

    /usr/bin/python3 -m echo.adopt_steps mlp --layers 4 -o step.mlir
    /usr/bin/python3 -m echo.adopt_steps mlp --ops 2000 -o step.mlir
    /usr/bin/python3 -m echo.adopt_steps mlp --norm --layers 4 -o step.mlir
    /usr/bin/python3 -m echo.adopt_steps rnn --steps 16 -o step.mlir

Each step is one ``func.func @train_step`` whose result #0 is the loss,
the summed squared error ``sum((out - y)^2)``, and whose other results are
the gradients of the weights: echo-adopt-training-step's ``loss=0``. The
backward pass is written out op by op, in reverse, as a joint graph holds
it (a GELU's backward recomputes its derivative from the GELU's input, as
PyTorch's decomposition of ``gelu_backward`` does).

* ``mlp``: ``layers`` hidden layers of ``width`` units on a batch of
  ``batch`` rows, then a read-out of ``classes``. A hidden layer is a
  matmul, then a ReLU (a clamp at 0) and a tanh; with ``--norm`` a matmul,
  a LayerNorm over the units (no affine parameters, epsilon 1e-5) and a
  GELU (its tanh form). The ReLU's backward reads its input through a
  comparison against 0 only.
* ``rnn``: a tanh RNN ``h_t = tanh(x_t W + h_{t-1} U)`` (``h_0 = 0``)
  unrolled over ``steps`` time steps, the last state read out by ``V``.

``--ops N`` picks the number of layers (time steps) whose step has about N
ops (at least N). :func:`torch_module` builds the same computation as a
PyTorch module (for ``echo.import_torch --loss none``): the weights as
parameters, the loss returned by ``forward(x..., labels)``.
"""

import argparse
import sys

GELU_C = 0.7978845608028654  # sqrt(2 / pi)
GELU_K = 0.044715


class _Emitter:
    """Writes TOSA ops in the generic-free custom syntax of MLIR 22."""

    def __init__(self):
        self.lines = []
        self.ops = 0
        self.n = 0
        self.consts = {}

    def t(self, shape, elt="f32"):
        return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), elt)

    def name(self, hint="v"):
        self.n += 1
        return "%%%s%d" % (hint, self.n)

    def emit(self, text):
        self.lines.append("  " + text)
        self.ops += 1

    def const(self, value):
        """A 1x1x1 f32 constant (one per value)."""
        if value not in self.consts:
            v = self.name("c")
            self.emit('%s = "tosa.const"() {values = dense<%s> : '
                      'tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>'
                      % (v, "%.9e" % value))
            self.consts[value] = v
        return self.consts[value], [1, 1, 1]

    def prologue(self):
        self.emit('%zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>}'
                  ' : () -> tensor<1xf32>')
        self.emit('%shift = "tosa.const"() {values = dense<0> : tensor<1xi8>}'
                  ' : () -> tensor<1xi8>')

    def matmul(self, a, b):
        (av, ash), (bv, bsh) = a, b
        shape = [1, ash[1], bsh[2]]
        v = self.name("mm")
        self.emit("%s = tosa.matmul %s, %s, %%zp, %%zp : (%s, %s, tensor<1xf32>,"
                  " tensor<1xf32>) -> %s" % (v, av, bv, self.t(ash),
                                             self.t(bsh), self.t(shape)))
        return v, shape

    def transpose(self, a):
        av, ash = a
        shape = [ash[0], ash[2], ash[1]]
        v = self.name("tr")
        self.emit("%s = tosa.transpose %s {perms = array<i32: 0, 2, 1>} : "
                  "(%s) -> %s" % (v, av, self.t(ash), self.t(shape)))
        return v, shape

    def _out(self, ash, bsh):
        return [max(x, y) for x, y in zip(ash, bsh)]

    def binary(self, op, a, b):
        (av, ash), (bv, bsh) = a, b
        shape = self._out(ash, bsh)
        v = self.name(op[:3])
        self.emit("%s = tosa.%s %s, %s : (%s, %s) -> %s" % (
            v, op, av, bv, self.t(ash), self.t(bsh), self.t(shape)))
        return v, shape

    def mul(self, a, b):
        (av, ash), (bv, bsh) = a, b
        shape = self._out(ash, bsh)
        v = self.name("mul")
        self.emit("%s = tosa.mul %s, %s, %%shift : (%s, %s, tensor<1xi8>) -> %s"
                  % (v, av, bv, self.t(ash), self.t(bsh), self.t(shape)))
        return v, shape

    def unary(self, op, a):
        av, ash = a
        v = self.name(op[:3])
        self.emit("%s = tosa.%s %s : (%s) -> %s" % (v, op, av, self.t(ash),
                                                   self.t(ash)))
        return v, ash

    def relu(self, a):
        av, ash = a
        v = self.name("relu")
        self.emit("%s = tosa.clamp %s {min_val = 0.0 : f32, max_val = "
                  "3.40282347E+38 : f32} : (%s) -> %s" % (v, av, self.t(ash),
                                                          self.t(ash)))
        return v, ash

    def greater(self, a, b):
        (av, ash), (bv, bsh) = a, b
        shape = self._out(ash, bsh)
        v = self.name("gt")
        self.emit("%s = tosa.greater %s, %s : (%s, %s) -> %s" % (
            v, av, bv, self.t(ash), self.t(bsh), self.t(shape, "i1")))
        return v, shape

    def select(self, p, a, b):
        (pv, psh), (av, ash), (bv, bsh) = p, a, b
        shape = self._out(ash, bsh)
        v = self.name("sel")
        self.emit("%s = tosa.select %s, %s, %s : (%s, %s, %s) -> %s" % (
            v, pv, av, bv, self.t(psh, "i1"), self.t(ash), self.t(bsh),
            self.t(shape)))
        return v, shape

    def reduce_sum(self, a, axis):
        av, ash = a
        shape = list(ash)
        shape[axis] = 1
        v = self.name("rs")
        self.emit("%s = tosa.reduce_sum %s {axis = %d : i32} : (%s) -> %s" % (
            v, av, axis, self.t(ash), self.t(shape)))
        return v, shape

    def scale(self, a, value):
        return self.mul(a, self.const(value))


def _layer_norm(e, h):
    """LayerNorm over the last dim, no affine: (n, rstd)."""
    d = h[1][2]
    mu = e.scale(e.reduce_sum(h, 2), 1.0 / d)
    xc = e.binary("sub", h, mu)
    var = e.scale(e.reduce_sum(e.mul(xc, xc), 2), 1.0 / d)
    rstd = e.unary("rsqrt", e.binary("add", var, e.const(1e-5)))
    return e.mul(xc, rstd), rstd


def _layer_norm_backward(e, g, n, rstd):
    d = g[1][2]
    m1 = e.scale(e.reduce_sum(g, 2), 1.0 / d)
    m2 = e.scale(e.reduce_sum(e.mul(g, n), 2), 1.0 / d)
    u = e.binary("sub", e.binary("sub", g, m1), e.mul(n, m2))
    return e.mul(u, rstd)


def _gelu(e, x):
    """GELU, tanh form: 0.5 x (1 + tanh(c (x + k x^3)))."""
    x3 = e.mul(e.mul(x, x), x)
    u = e.scale(e.binary("add", x, e.scale(x3, GELU_K)), GELU_C)
    t = e.unary("tanh", u)
    return e.mul(e.scale(x, 0.5), e.binary("add", t, e.const(1.0)))


def _gelu_backward(e, g, x):
    """g * GELU'(x), recomputed from x."""
    x2 = e.mul(x, x)
    u = e.scale(e.binary("add", x, e.scale(e.mul(x2, x), GELU_K)), GELU_C)
    t = e.unary("tanh", u)
    left = e.scale(e.binary("add", t, e.const(1.0)), 0.5)
    sech2 = e.binary("sub", e.const(1.0), e.mul(t, t))
    du = e.scale(e.binary("add", e.scale(x2, 3 * GELU_K), e.const(1.0)),
                 GELU_C)
    right = e.mul(e.scale(x, 0.5), e.mul(sech2, du))
    return e.mul(g, e.binary("add", left, right))


def _sse(e, o, y):
    """sum((o - y)^2) as 1x1x1 and its gradient 2 (o - y)."""
    d = e.binary("sub", o, y)
    loss = e.reduce_sum(e.reduce_sum(e.mul(d, d), 1), 2)
    return loss, e.scale(d, 2.0)


def _function(e, args, results, comment):
    sig = ", ".join("%s: %s" % (v, e.t(s)) for v, s in args)
    res = ", ".join(e.t(s) for _, s in results)
    head = ["// " + line if line else "//" for line in comment]
    return "\n".join(
        head + ["func.func @train_step(%s) -> (%s) {" % (sig, res)] +
        e.lines + ["  return %s : %s" % (", ".join(v for v, _ in results),
                                         res), "}", ""])


def mlp(layers, batch=8, width=32, inputs=None, classes=4, norm=False):
    """The MLP step's text and its op count."""
    inputs = inputs or width
    e = _Emitter()
    x = ("%x", [1, batch, inputs])
    ws = [("%%w%d" % (i + 1), [1, inputs if i == 0 else width, width])
          for i in range(layers)]
    wo = ("%wo", [1, width, classes])
    y = ("%y", [1, batch, classes])
    e.prologue()
    acts, saved = [x], []
    for w in ws:
        h = e.matmul(acts[-1], w)
        if norm:
            n, rstd = _layer_norm(e, h)
            acts.append(_gelu(e, n))
            saved.append((n, rstd))
        else:
            acts.append(e.unary("tanh", e.relu(h)))
            saved.append(h)
    loss, g = _sse(e, e.matmul(acts[-1], wo), y)
    dwo = e.matmul(e.transpose(acts[-1]), g)
    g = e.matmul(g, e.transpose(wo))
    grads = []
    zero = e.const(0.0)
    for i in reversed(range(layers)):
        if norm:
            n, rstd = saved[i]
            gh = _layer_norm_backward(e, _gelu_backward(e, g, n), n, rstd)
        else:
            t = acts[i + 1]
            dt = e.binary("sub", e.const(1.0), e.mul(t, t))
            gh = e.select(e.greater(saved[i], zero), e.mul(g, dt), zero)
        grads.append(e.matmul(e.transpose(acts[i]), gh))
        if i:
            g = e.matmul(gh, e.transpose(ws[i]))
    kind = "matmul, LayerNorm, GELU" if norm else "matmul, ReLU, tanh"
    text = _function(e, [x] + ws + [wo, y], [loss] + grads[::-1] + [dwo], [
        "An MLP training step in TOSA, its backward pass written out "
        "(echo.adopt_steps):",
        "%d hidden layers (%s) of %d units, batch %d, %d inputs, %d outputs;"
        % (layers, kind, width, batch, inputs, classes),
        "result #0 is the summed squared error, then the weights' gradients.",
        "%d ops." % e.ops])
    return text, e.ops


def rnn(steps, batch=8, inputs=16, hidden=32, classes=4):
    """The unrolled tanh RNN step's text and its op count."""
    e = _Emitter()
    xs = [("%%x%d" % (t + 1), [1, batch, inputs]) for t in range(steps)]
    w = ("%w", [1, inputs, hidden])
    u = ("%u", [1, hidden, hidden])
    v = ("%v", [1, hidden, classes])
    y = ("%y", [1, batch, classes])
    e.prologue()
    hs = []
    for t in range(steps):
        a = e.matmul(xs[t], w)
        if t:
            a = e.binary("add", a, e.matmul(hs[-1], u))
        hs.append(e.unary("tanh", a))
    loss, g = _sse(e, e.matmul(hs[-1], v), y)
    dv = e.matmul(e.transpose(hs[-1]), g)
    g = e.matmul(g, e.transpose(v))
    ut = e.transpose(u)
    # The gradients of W and U summed as they come, as the autograd engine
    # accumulates them.
    dw = du = None
    for t in reversed(range(steps)):
        h = hs[t]
        ga = e.mul(g, e.binary("sub", e.const(1.0), e.mul(h, h)))
        d = e.matmul(e.transpose(xs[t]), ga)
        dw = d if dw is None else e.binary("add", dw, d)
        if t:
            d = e.matmul(e.transpose(hs[t - 1]), ga)
            du = d if du is None else e.binary("add", du, d)
            g = e.matmul(ga, ut)
    if du is None:
        raise ValueError("rnn: at least 2 time steps")
    text = _function(e, xs + [w, u, v, y], [loss, dw, du, dv], [
        "A tanh RNN training step in TOSA unrolled over %d time steps, its "
        "backward" % steps,
        "pass written out (echo.adopt_steps): batch %d, %d inputs, %d hidden,"
        " %d outputs;" % (batch, inputs, hidden, classes),
        "result #0 is the summed squared error, then d W, d U, d V.",
        "%d ops." % e.ops])
    return text, e.ops


def build(kind, size, **kw):
    return mlp(size, **kw) if kind == "mlp" else rnn(size, **kw)


def size_for_ops(kind, ops, **kw):
    """The least number of layers (time steps) with at least ``ops`` ops."""
    size = 2
    while build(kind, size, **kw)[1] < ops:
        size = max(size + 1, int(size * ops / build(kind, size, **kw)[1]))
    while size > 2 and build(kind, size - 1, **kw)[1] >= ops:
        size -= 1
    return size


def torch_module(kind, size, batch=8, width=32, inputs=None, classes=4,
                 hidden=32, norm=False):
    """The same computation as a PyTorch module: forward(x..., labels)
    returns the summed squared error (``echo.import_torch --loss none``)."""
    import torch
    from torch import nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            fan = [inputs or width] + [width] * size
            self.ws = nn.ParameterList(
                nn.Parameter(torch.randn(fan[i], width) * fan[i] ** -0.5)
                for i in range(size))
            # A list too, so that named_parameters() lists it last, as
            # the step's arguments do.
            self.wo = nn.ParameterList(
                [nn.Parameter(torch.randn(width, classes) * width ** -0.5)])

        def forward(self, x, labels):
            for w in self.ws:
                h = x @ w
                if norm:
                    x = nn.functional.gelu(
                        nn.functional.layer_norm(h, (width,)),
                        approximate="tanh")
                else:
                    x = torch.tanh(torch.relu(h))
            return ((x @ self.wo[0] - labels) ** 2).sum()

    class RNN(nn.Module):
        def __init__(self):
            super().__init__()
            i = inputs or 16
            self.w = nn.Parameter(torch.randn(i, hidden) * i ** -0.5)
            self.u = nn.Parameter(torch.randn(hidden, hidden) * hidden ** -0.5)
            self.v = nn.Parameter(torch.randn(hidden, classes) * hidden ** -0.5)

        def forward(self, *args):
            *xs, labels = args
            h = None
            for x in xs:
                a = x @ self.w
                h = torch.tanh(a if h is None else a + h @ self.u)
            return ((h @ self.v - labels) ** 2).sum()

    return MLP() if kind == "mlp" else RNN()


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m echo.adopt_steps",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("kind", choices=("mlp", "rnn"))
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--layers", "--steps", type=int, dest="size",
                   help="hidden layers (mlp) or time steps (rnn)")
    g.add_argument("--ops", type=int, help="at least this many ops")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--width", type=int, default=32,
                   help="hidden units (mlp and rnn)")
    p.add_argument("--inputs", type=int)
    p.add_argument("--classes", type=int, default=4)
    p.add_argument("--norm", action="store_true",
                   help="mlp: LayerNorm and GELU instead of ReLU and tanh")
    p.add_argument("-o", dest="output", default="-")
    args = p.parse_args(argv)
    kw = dict(batch=args.batch, classes=args.classes)
    if args.kind == "mlp":
        kw.update(width=args.width, inputs=args.inputs, norm=args.norm)
    else:
        if args.norm:
            p.error("--norm applies to mlp only")
        kw.update(hidden=args.width, inputs=args.inputs or 16)
    size = args.size
    if size is None:
        size = size_for_ops(args.kind, args.ops, **kw)
    if size < (2 if args.kind == "rnn" else 1):
        p.error("too few layers or time steps: %d" % size)
    text, ops = build(args.kind, size, **kw)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    print("echo.adopt_steps: %s of %d %s: %d ops" % (
        args.kind, size, "layers" if args.kind == "mlp" else "time steps",
        ops), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
