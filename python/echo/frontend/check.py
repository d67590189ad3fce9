"""Checks an imported PyTorch module against PyTorch autograd.

    PYTHONPATH=python python3 -m echo.frontend.check MODULE:FACTORY \\
        --input SHAPE:DTYPE [...] --loss cross_entropy|mse --labels SHAPE \\
        --echo-run build/bin/echo-run --work DIR [--strategies none,echo]

Imports the module (as ``echo.import_torch`` does), draws one batch of data
(f32 inputs from a normal distribution; i32 inputs below the smallest
``nn.Embedding``'s size; labels below the output's class count), runs one
step with ``echo-run --inputs --dump --optimizer=none`` per strategy, and
the same step in PyTorch on the same weights and data.  Prints one line per
parameter and a verdict; exits 1 when

* the loss or any parameter gradient differs from PyTorch's by more than
  ``--tolerance`` (default 1e-4) relative to the norm of PyTorch's value
  (``||g_echo - g_torch|| / ||g_torch||``), or
* a strategy's results are not bitwise identical to ``none``'s.

With ``--bitwise-only`` (modules with dropout: Echo's masks are not
PyTorch's) only the second holds.

The cross-entropy is taken as the importer takes it: over PyTorch's class
dim 1 when the labels are the output without it (``F.cross_entropy(out,
labels)``), else over the last dim (``F.cross_entropy(out.reshape(-1, C),
labels.reshape(-1))``). Parameters with ``requires_grad=False`` are frozen:
they have no gradient to compare.
"""

import argparse
import os
import shlex
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

from echo.frontend import import_module, parse_input
from echo.frontend.errors import ModuleError, UsageError, describe, report


def _draw(inputs, labels, loss, module, classes, seed):
    rng = np.random.default_rng(seed)
    vocab = [m.num_embeddings for m in module.modules()
             if isinstance(m, torch.nn.Embedding)]
    high = min(vocab) if vocab else 2
    data = []
    for shape, dtype in inputs:
        if dtype == "f32":
            data.append(rng.standard_normal(shape).astype(np.float32))
        else:
            data.append(rng.integers(0, high, shape).astype(np.int32))
    shape, dtype = labels
    if loss == "cross_entropy":
        data.append(rng.integers(0, classes, shape).astype(np.int32))
    else:
        data.append(rng.standard_normal(shape).astype(np.float32))
    return data


def torch_loss(out, labels, loss):
    """The importer's loss (``cross_entropy`` over the class dim 1 or the
    last dim, or ``mse``) of a module's output `out`, as PyTorch computes
    it."""
    if loss == "cross_entropy":
        if out.dim() >= 2 and tuple(labels.shape) == \
                (out.shape[0],) + tuple(out.shape[2:]):
            return F.cross_entropy(out, labels.long())
        return F.cross_entropy(out.reshape(-1, out.shape[-1]),
                               labels.reshape(-1).long())
    return F.mse_loss(out, labels)


def _torch_step(module, data, loss):
    module.zero_grad()
    tensors = [torch.from_numpy(d) for d in data]
    value = torch_loss(module(*tensors[:-1]), tensors[-1], loss)
    value.backward()
    grads = [p.grad.detach().numpy().copy() if p.grad is not None
             else np.zeros(tuple(p.shape), np.float32)
             for _, p in module.named_parameters()]
    return float(value), grads


def _relative(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    norm = np.linalg.norm(b)
    diff = np.linalg.norm(a - b)
    return diff / norm if norm > 0 else diff


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m echo.frontend.check")
    p.add_argument("factory", metavar="MODULE:FACTORY")
    p.add_argument("--input", action="append", required=True)
    p.add_argument("--loss", choices=("cross_entropy", "mse"), required=True)
    p.add_argument("--labels", required=True)
    p.add_argument("--echo-run", required=True,
                   help="the echo-run command (split as a shell would: "
                        "extra flags may follow the path)")
    p.add_argument("--work", required=True)
    p.add_argument("--strategies", default="none,mirror,sublinear,echo")
    p.add_argument("--tolerance", type=float, default=1e-4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bitwise-only", action="store_true",
                   help="do not compare with PyTorch (dropout draws other "
                        "masks), only the strategies with none")
    args = p.parse_args(argv)
    return report("echo.frontend.check", lambda: _check(args))


def _check(args):
    from echo.import_torch import build_module
    inputs = [parse_input(i) for i in args.input]
    labels = parse_input(args.labels, "i32" if args.loss == "cross_entropy"
                         else "f32")
    module, factory_name = build_module(args.factory)
    imported = import_module(module, inputs, args.loss, labels,
                             factory_name)
    os.makedirs(args.work, exist_ok=True)
    model = os.path.join(args.work, "model.mlir")
    with open(model, "w") as f:
        f.write(imported.text)
    data_dir = os.path.join(args.work, "inputs")
    imported.write_weights(data_dir)
    try:
        with torch.no_grad():
            probe = [torch.from_numpy(d) for d in _draw(
                inputs, labels, args.loss, module, 2, args.seed)[:-1]]
            out = module(*probe)
            # Per-position labels of NCHW logits: the classes are dim 1.
            nchw = args.loss == "cross_entropy" and out.dim() >= 3 and \
                tuple(labels[0]) == (out.shape[0],) + tuple(out.shape[2:])
            classes = out.shape[1] if nchw else out.shape[-1]
        data = _draw(inputs, labels, args.loss, module, classes, args.seed)
        if not args.bitwise_only:
            torch_loss, torch_grads = _torch_step(module, data, args.loss)
    except Exception as e:
        raise ModuleError("%s does not run in PyTorch on the drawn data: "
                          "%s" % (factory_name, describe(e)))
    for i, d in enumerate(data):
        np.save(os.path.join(data_dir, "arg%d.npy" % i), d)
    all_names = [n for n, _ in module.named_parameters()]
    trained = [i for kind, i in imported.arguments if kind == "param"]
    names = [all_names[i] for i in trained]
    if not args.bitwise_only:
        torch_grads = [torch_grads[i] for i in trained]
    failures = 0
    reference = None
    for strategy in args.strategies.split(","):
        dump = os.path.join(args.work, "dump-" + strategy)
        command = shlex.split(args.echo_run) + [
            model, "--inputs=" + data_dir, "--dump=" + dump, "--steps=1",
            "--optimizer=none", "--strategy=" + strategy, "--quiet"]
        try:
            run = subprocess.run(command, capture_output=True, text=True)
        except OSError as e:
            raise UsageError("--echo-run: cannot run '%s': %s" % (
                command[0], describe(e)))
        if run.returncode != 0:
            print("%s: echo-run failed:\n%s" % (strategy, run.stderr))
            failures += 1
            continue
        outs = [np.load(os.path.join(dump, "out%d.npy" % i))
                for i in range(len(names) + 1)]
        if reference is None:
            reference = outs
            if args.bitwise_only:
                print("loss echo %.9g (not compared with PyTorch)" %
                      float(outs[0]))
                continue
            rel = _relative(outs[0], torch_loss)
            print("loss echo %.9g torch %.9g relative %.2e" % (
                float(outs[0]), torch_loss, rel))
            failures += rel > args.tolerance
            worst = 0.0
            for name, mine, theirs in zip(names, outs[1:], torch_grads):
                rel = _relative(mine, theirs)
                worst = max(worst, rel)
                bad = rel > args.tolerance or mine.shape != theirs.shape
                failures += bad
                print("grad %-40s relative %.2e%s" % (
                    name, rel, "  FAILED" if bad else ""))
            print("gradients: %d, worst relative difference %.2e "
                  "(tolerance %.0e)" % (len(names), worst, args.tolerance))
        else:
            same = all(a.tobytes() == b.tobytes()
                       for a, b in zip(outs, reference))
            failures += not same
            print("%s: %s" % (strategy, "bitwise identical to none" if same
                               else "DIFFERS from none"))
    verdict = "every strategy bitwise identical to none" \
        if args.bitwise_only else "matches PyTorch"
    print("%s: %s" % (factory_name, "FAILED" if failures else verdict))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
