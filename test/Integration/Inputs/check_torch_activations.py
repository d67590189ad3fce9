"""The importer's activations in Echo against PyTorch (torch-activations.test).

For each op, a model built with echo.models.GraphBuilder computes

    loss = sum(select(keep, f(x) * p, 0))

from parameters x and p ([4, 16] f32, given to echo-run with --inputs), so
that the step's results are the loss, dx = keep * p * f'(x) (the op's
gradient with a non-uniform adjoint) and dp = keep * f(x) (the forward
values). PyTorch computes the same graph in f64 autograd from the same f32
values, with torch.erf, F.silu, F.hardswish, F.hardsigmoid, F.mish, F.gelu
(approximate='none' and 'tanh'), F.hardtanh, F.relu6 and torch.where. Each
result must agree within --tolerance relative to its largest magnitude.

x holds a grid over [-8, 8], the ops' bounds exactly (-3, 0, 3, 6 and the
hardtanh bounds) and large values (+-20, +-100), so that the conventions at
the bounds are compared too. 64 elements: PyTorch 1.13 runs its vectorized
kernels on all of them (its scalar tail differs at some bounds and for
NaN). A second run per op puts NaNs in x where keep is false: the loss stays
finite, and each gradient's NaN or zero at those elements must match
PyTorch's. Prints one line per op and run, with the relative errors.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

from echo.models import GraphBuilder

SHAPE = (4, 16)


def inputs(nan):
    grid = list(np.linspace(-8.0, 8.0, 43))
    bounds = [-3.0, 3.0, 0.0, 6.0, -1.5, 2.0, -20.0, 20.0, -100.0, 100.0,
              -2.999, 2.999, 5.999, 6.001, 1e-3, -1e-3, 0.25, -0.25, 1.0,
              -1.0, 0.5]
    x = np.array(bounds + grid, dtype=np.float32).reshape(SHAPE)
    rng = np.random.default_rng(7)
    p = rng.uniform(-1.0, 1.0, SHAPE).astype(np.float32)
    keep = np.ones(SHAPE, dtype=bool)
    if nan:
        for i in (2, 17, 40, 63):
            x.flat[i] = np.nan
            keep.flat[i] = False
    return x, p, keep


def echo_model(name, build, keep, operands):
    """The text of the model: `build(g, args)` applies the op."""
    g = GraphBuilder(name)
    args = [g.param(n, SHAPE) for n in operands]
    p = g.param("p", SHAPE)
    y = build(g, args)
    masked = g.select(g.mask_constant(keep.ravel(), SHAPE), g.mul(y, p),
                      g.zeros(SHAPE))
    return g.finish(g.reduce_sum(masked, [0, 1]))


def torch_results(fn, keep, values):
    """Loss and gradients (operands, then p) in f64 autograd."""
    ts = [torch.tensor(v.astype(np.float64), requires_grad=True)
          for v in values]
    *args, p = ts
    y = fn(*args)
    zero = torch.zeros(SHAPE, dtype=torch.float64)
    loss = torch.where(torch.tensor(keep), y * p, zero).sum()
    grads = torch.autograd.grad(loss, ts)
    return [loss.detach().numpy()] + [g.numpy() for g in grads]


def rel_err(got, want):
    """Largest difference relative to the largest magnitude; NaN positions
    must agree (inf when they do not)."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return float("inf")
    ok = ~np.isnan(want)
    if not ok.any():
        return 0.0
    scale = max(np.abs(want[ok]).max(), 1e-30)
    return float(np.abs(got[ok] - want[ok]).max() / scale)


# name: (GraphBuilder op, torch function, operand names)
OPS = {
    "erf": (lambda g, a: g.erf(a[0]), torch.erf, ["x"]),
    "silu": (lambda g, a: g.silu(a[0]), F.silu, ["x"]),
    "hardswish": (lambda g, a: g.hardswish(a[0]), F.hardswish, ["x"]),
    "hardsigmoid": (lambda g, a: g.hardsigmoid(a[0]), F.hardsigmoid, ["x"]),
    "mish": (lambda g, a: g.mish(a[0]), F.mish, ["x"]),
    "gelu": (lambda g, a: g.gelu(a[0]),
             lambda x: F.gelu(x, approximate="none"), ["x"]),
    "gelu_tanh": (lambda g, a: g.gelu(a[0], tanh_approximation=True),
                  lambda x: F.gelu(x, approximate="tanh"), ["x"]),
    "hardtanh": (lambda g, a: g.hardtanh(a[0], -1.5, 2.0),
                 lambda x: F.hardtanh(x, -1.5, 2.0), ["x"]),
    "relu6": (lambda g, a: g.relu6(a[0]), F.relu6, ["x"]),
    # torch.where(mask, x, b): the mask's pattern differs from keep's.
    "select": (lambda g, a: g.select(
        g.mask_constant([i % 3 == 0 for i in range(64)], SHAPE), a[0], a[1]),
        lambda x, b: torch.where(
            torch.tensor([i % 3 == 0 for i in range(64)]).reshape(SHAPE),
            x, b), ["x", "b"]),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work")
    ap.add_argument("--echo-run", default="echo-run")
    ap.add_argument("--tolerance", type=float, default=1e-5)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failed = False
    for name, (build, fn, operands) in OPS.items():
        for nan in (False, True):
            x, p, keep = inputs(nan)
            # select's second operand: x reversed, without NaNs.
            other = np.flip(inputs(False)[0]).copy()
            values = [x] + [other] * (len(operands) - 1) + [p]
            d = os.path.join(args.work, name + ("-nan" if nan else ""))
            os.makedirs(os.path.join(d, "in"), exist_ok=True)
            path = os.path.join(d, "model.mlir")
            with open(path, "w") as f:
                f.write(echo_model(name, build, keep, operands))
            for i, v in enumerate(values):
                np.save(os.path.join(d, "in", "arg%d.npy" % i), v)
            run = subprocess.run(
                args.echo_run.split() + [path, "--inputs=" + os.path.join(
                    d, "in"), "--dump=" + os.path.join(d, "out"),
                    "--steps=1", "--quiet"], capture_output=True, text=True)
            label = "%s%s" % (name, " (NaN inputs)" if nan else "")
            if run.returncode != 0:
                print("%s: echo-run failed: %s FAILED" % (label,
                                                         run.stderr.strip()))
                failed = True
                continue
            want = torch_results(fn, keep, values)
            got = [np.load(os.path.join(d, "out", "out%d.npy" % i))
                   for i in range(len(want))]
            errs = [rel_err(gv, wv) for gv, wv in zip(got, want)]
            names = ["loss"] + ["d" + n for n in operands] + ["f(x)"]
            ok = all(e <= args.tolerance for e in errs)
            failed |= not ok
            print("%s: %s: %s" % (label, ", ".join(
                "%s %.1e" % (n, e) for n, e in zip(names, errs)),
                "ok" if ok else "FAILED"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
