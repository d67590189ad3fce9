"""Trains a model of idiom_models.py with echo.torch.compile_step against
PyTorch (see import-torch-idioms.test).

    check_idioms.py NAME [--steps 20] [--strategy echo] [--budget B]

1. One step against PyTorch's f64 autograd on the same weights and data:
   the loss and every parameter gradient of the compiled step (strategy
   none) must be within max(1e-4, 2 x PyTorch f32's own error) of the f64
   values, relative to their norm (PyTorch f32's error is its f32 step's
   against the same f64 step).
2. ``--steps`` steps of torch.optim.AdamW (lr 1e-3, weight decay 1e-2) on
   the compiled step's gradients (``--strategy``) against the same loop in
   eager PyTorch, from the same weights on the same batches (BYOL's target
   network follows the online one by EMA after each step, in both loops):
   every parameter, trained or not, must end within 1e-5 of eager's (the
   largest absolute difference).

Prints one line per check and a verdict; exits 1 on a failure.
"""

import argparse
import copy
import sys

import numpy as np
import torch
import torch.nn.functional as F

import echo.torch
import idiom_models

TRAIN_TOLERANCE = 1e-5


def rel(a, b):
    a, b = a.double(), b.double()
    return float((a - b).norm() / max(float(b.norm()), 1e-300))


def make_batch(spec, module, rng):
    inputs, loss, labels = spec
    vocab = [m.num_embeddings for m in module.modules()
             if isinstance(m, torch.nn.Embedding)]
    xs = []
    for shape, dtype in inputs:
        if dtype == "f32":
            xs.append(torch.from_numpy(
                rng.standard_normal(shape).astype(np.float32)))
        else:
            xs.append(torch.from_numpy(
                rng.integers(0, min(vocab), shape).astype(np.int64)))
    if loss == "mse":
        y = torch.from_numpy(rng.standard_normal(labels).astype(np.float32)) \
            * 0.1
    else:
        classes = vocab[0] if vocab else 4
        if loss is None:  # the module's own cross-entropy, 5 classes
            classes = 5
        y = torch.from_numpy(rng.integers(0, classes, labels).astype(
            np.int64))
    return xs, y


def run_module(module, kind, xs, y):
    """The loss of ``module`` on a batch: the one the importer appends
    (echo.frontend.importer), or the module's own (``kind`` None, the
    labels its last argument)."""
    if kind is None:
        return module(*xs, y)
    return torch_loss(kind, module(*xs), y)


def torch_loss(kind, out, y):
    """The loss the importer appends (echo.frontend.importer)."""
    if kind == "mse":
        return F.mse_loss(out, y)
    if out.dim() >= 2 and tuple(y.shape) == (out.shape[0],) + tuple(
            out.shape[2:]):
        return F.cross_entropy(out, y)
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))


def eager_step(module, kind, xs, y, dtype=None):
    if dtype is not None:
        module = module.to(dtype)
        xs = [x.to(dtype) if x.is_floating_point() else x for x in xs]
        y = y.to(dtype) if y.is_floating_point() else y
    for p in module.parameters():
        p.grad = None
    loss = run_module(module, kind, xs, y)
    loss.backward()
    return loss.detach(), [None if p.grad is None else p.grad.detach()
                           for p in module.parameters()]


def one_step(name, factory, spec):
    kind = spec[1]
    xs, y = make_batch(spec, factory(), np.random.default_rng(1))
    base = factory()
    loss64, grads64 = eager_step(copy.deepcopy(base), kind, xs, y,
                                 torch.float64)
    loss32, grads32 = eager_step(copy.deepcopy(base), kind, xs, y)
    module = copy.deepcopy(base)
    step = echo.torch.compile_step(module, tuple(xs), y, loss=kind,
                                   strategy="none")
    for p in module.parameters():
        p.grad = None
    loss = step(*xs, labels=y).detach()
    ok = True
    worst = 0.0
    pairs = [("loss", loss, loss32, loss64)] + [
        (pname, p.grad, g32, g64) for (pname, p), g32, g64 in zip(
            module.named_parameters(), grads32, grads64)]
    for what, mine, theirs32, theirs64 in pairs:
        if theirs64 is None:
            if mine is not None:
                print("%s: %s has a gradient, PyTorch's none" % (name, what))
                ok = False
            continue
        if mine is None:
            print("%s: %s has no gradient, PyTorch's one" % (name, what))
            ok = False
            continue
        torch32 = rel(theirs32, theirs64)
        tolerance = max(1e-4, 2 * torch32)
        error = rel(mine, theirs64)
        worst = max(worst, error / tolerance)
        if error > tolerance:
            print("%s: %s differs from PyTorch f64 by %.2e (PyTorch f32: "
                  "%.2e) FAILED" % (name, what, error, torch32))
            ok = False
    print("%s: one step against PyTorch f64: loss %.6f, %d gradients, "
          "worst error %.2f of its tolerance%s" % (
              name, float(loss), len(pairs) - 1, worst,
              "" if ok else " FAILED"))
    return ok


def train(name, factory, spec, steps, strategy, budget):
    kind = spec[1]
    eager = factory()
    mine = copy.deepcopy(eager)
    rng = np.random.default_rng(2)
    batches = [make_batch(spec, eager, rng) for _ in range(steps)]
    step = echo.torch.compile_step(mine, tuple(batches[0][0]), batches[0][1],
                                   loss=kind, strategy=strategy,
                                   budget=budget)
    options = dict(lr=1e-3, weight_decay=1e-2)
    opt_eager = torch.optim.AdamW(
        [p for p in eager.parameters() if p.requires_grad], **options)
    opt_mine = torch.optim.AdamW(
        [p for p in mine.parameters() if p.requires_grad], **options)
    for xs, y in batches:
        opt_eager.zero_grad()
        run_module(eager, kind, xs, y).backward()
        opt_eager.step()
        opt_mine.zero_grad()
        step(*xs, labels=y)
        opt_mine.step()
        for module in (eager, mine):
            if hasattr(module, "update_target"):
                module.update_target()
    worst, where = 0.0, None
    for (pname, p), q in zip(mine.named_parameters(), eager.parameters()):
        diff = float((p.detach() - q.detach()).abs().max())
        if diff >= worst:
            worst, where = diff, pname
    ok = worst <= TRAIN_TOLERANCE
    moved = max(float((p.detach() - q.detach()).abs().max()) for p, q in zip(
        eager.parameters(), factory().parameters()))
    print("%s: %d AdamW steps (strategy %s) against eager: parameters within "
          "%.1e (largest difference %.2e in %s; they moved by up to %.2e)%s"
          % (name, steps, strategy, TRAIN_TOLERANCE, worst, where, moved,
             "" if ok else " FAILED"))
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--strategy", default="echo")
    parser.add_argument("--budget", default=None,
                        help="strategy budget's bound (a fraction: 0.6)")
    args = parser.parse_args()
    factory = getattr(idiom_models, args.name)
    spec = idiom_models.SPECS[args.name]
    ok = one_step(args.name, factory, spec)
    budget = args.budget
    if budget is not None and "." in budget:
        budget = float(budget)
    ok = train(args.name, factory, spec, args.steps, args.strategy,
               budget) and ok
    print("%s: %s" % (args.name, "matches PyTorch" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
