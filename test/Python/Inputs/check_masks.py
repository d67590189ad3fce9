"""One model of masks_models.py (see import-torch-masks.test), imported as
echo.import_torch does, checked three ways on data with padding:

* one step of echo-run (--inputs, --dump, optimizer=none) against PyTorch
  f64 autograd: the loss and every gradient within max(1e-4, 2x the
  distance of PyTorch's own f32 step), relative to the norm of the f64
  value;
* every strategy bitwise identical to none;
* 20 steps of echo.torch.compile_step with torch.optim.AdamW against the
  same loop in eager PyTorch: the parameters within 1e-5 (relative to
  their norm).

    check_masks.py MODEL --echo-run CMD --work DIR
"""
import argparse
import copy
import os
import shlex
import subprocess
import sys

import numpy as np
import torch

import echo.torch
import masks_models
from echo.frontend import LossSpec, import_module
from echo.frontend.check import torch_loss

# inputs (shape, dtype), labels (shape, dtype), the loss.
SPECS = {
    "bert_mlm": ([((2, 12), "i32")], ((2, 12), "i32"), "cross_entropy"),
    "moe": ([((16, 16), "f32")], ((16,), "i32"), "cross_entropy"),
    "padded_bag": ([((4, 10), "i32")], ((4,), "i32"), "cross_entropy"),
    "diffusion": ([((8, 16), "f32"), ((8,), "i32")], ((8, 16), "f32"),
                  "mse"),
}


def batch(name, generator):
    """One batch (inputs, labels) as PyTorch tensors: ids with padding at
    the end of rows (and, for the bag, inside them), MLM labels -100 on
    padding and on half the other tokens."""
    if name == "bert_mlm":
        ids = torch.randint(1, 24, (2, 12), generator=generator)
        ids[0, 9:] = masks_models.PAD
        ids[1, 5:] = masks_models.PAD
        labels = torch.randint(0, 24, (2, 12), generator=generator)
        ignored = torch.rand(2, 12, generator=generator) < 0.5
        labels[ignored | (ids == masks_models.PAD)] = -100
        labels[0, 0] = 3  # at least one label counts
        return (ids,), labels
    if name == "moe":
        return (torch.randn(16, 16, generator=generator),), \
            torch.randint(0, 5, (16,), generator=generator)
    if name == "diffusion":
        # Timesteps on both sides of each threshold (100, 500).
        t = torch.randint(0, 1000, (8,), generator=generator)
        t[:4] = torch.tensor([3, 99, 100, 500])
        return (torch.randn(8, 16, generator=generator), t), \
            torch.randn(8, 16, generator=generator)
    ids = torch.randint(0, 20, (4, 10), generator=generator)
    ids[1, 6:] = 1
    ids[3, 2:] = 1
    return (ids,), torch.randint(0, 4, (4,), generator=generator)


def rel(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    norm = np.linalg.norm(b)
    return float(np.linalg.norm(a - b) / norm if norm > 0 else
                 np.linalg.norm(a - b))


def torch_step(module, inputs, labels, dtype, loss_name):
    m = copy.deepcopy(module).to(dtype)
    xs = [x.to(dtype) if x.is_floating_point() else x for x in inputs]
    if labels.is_floating_point():
        labels = labels.to(dtype)
    loss = torch_loss(m(*xs), labels, loss_name)
    loss.backward()
    grads = {n: (p.grad if p.grad is not None else torch.zeros_like(p))
             .detach().double().numpy() for n, p in m.named_parameters()}
    return float(loss), grads


def one_step(name, module, args):
    inputs, labels, loss_name = SPECS[name]
    imported = import_module(module, inputs, LossSpec(loss_name),
                             labels, name)
    os.makedirs(args.work, exist_ok=True)
    model = os.path.join(args.work, "model.mlir")
    with open(model, "w") as f:
        f.write(imported.text)
    data = os.path.join(args.work, "inputs")
    imported.write_weights(data)
    xs, ys = batch(name, torch.Generator().manual_seed(1))
    for i, t in enumerate(list(xs) + [ys]):
        array = t.numpy().astype(np.float32 if t.is_floating_point()
                                 else np.int32)
        np.save(os.path.join(data, "arg%d.npy" % i), array)
    names = [n for n, _ in module.named_parameters()]
    trained = [names[i] for kind, i in imported.arguments if kind == "param"]
    outs = {}
    for strategy in ("none", "mirror", "echo"):
        dump = os.path.join(args.work, "dump-" + strategy)
        command = shlex.split(args.echo_run) + [
            model, "--inputs=" + data, "--dump=" + dump, "--steps=1",
            "--optimizer=none", "--strategy=" + strategy, "--quiet"]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            print("%s: echo-run failed:\n%s" % (strategy, run.stderr))
            return False
        outs[strategy] = [np.load(os.path.join(dump, "out%d.npy" % i))
                          for i in range(len(trained) + 1)]
    same = all(all(a.tobytes() == b.tobytes()
                   for a, b in zip(outs[s], outs["none"]))
               for s in ("mirror", "echo"))
    print("%s: strategies none, mirror, echo bitwise identical: %s" % (
        name, same))
    loss64, grads64 = torch_step(module, xs, ys, torch.float64, loss_name)
    loss32, grads32 = torch_step(module, xs, ys, torch.float32, loss_name)
    echo = outs["none"]
    rows = [("loss", echo[0], loss32, loss64)]
    rows += [(n, g, grads32[n], grads64[n])
             for n, g in zip(trained, echo[1:])]
    ok, worst_echo, worst_torch = True, 0.0, 0.0
    for what, mine, theirs, exact in rows:
        e, t = rel(mine, exact), rel(theirs, exact)
        good = e <= max(1e-4, 2 * t)
        ok &= good
        worst_echo, worst_torch = max(worst_echo, e), max(worst_torch, t)
        if not good:
            print("  %s: echo %.2e from f64, PyTorch f32 %.2e  FAILED" % (
                what, e, t))
    print("%s: %d gradients; worst distance to f64: echo %.2e, PyTorch f32 "
          "%.2e; within max(1e-4, 2x PyTorch f32): %s" % (
              name, len(trained), worst_echo, worst_torch, ok))
    return ok and same


def training(name, module, args):
    """20 AdamW steps through compile_step against the same loop eager."""
    mine, ref = copy.deepcopy(module), copy.deepcopy(module)
    generator = torch.Generator().manual_seed(2)
    loss_name = SPECS[name][2]
    xs, ys = batch(name, generator)
    step = echo.torch.compile_step(mine, xs, ys, loss=loss_name,
                                   strategy="echo")
    opt_mine = torch.optim.AdamW(mine.parameters(), lr=1e-3)
    opt_ref = torch.optim.AdamW(ref.parameters(), lr=1e-3)
    worst_loss = 0.0
    for _ in range(20):
        xs, ys = batch(name, generator)
        loss = step(*xs, labels=ys)
        opt_mine.step()
        opt_mine.zero_grad()
        ref_loss = torch_loss(ref(*xs), ys, loss_name)
        ref_loss.backward()
        opt_ref.step()
        opt_ref.zero_grad()
        worst_loss = max(worst_loss, abs(float(loss) - float(ref_loss)) /
                         abs(float(ref_loss)))
    worst = max(rel(p.detach().numpy(), q.detach().numpy())
                for p, q in zip(mine.parameters(), ref.parameters()))
    moved = max(rel(p.detach().numpy(), q.detach().numpy())
                for p, q in zip(ref.parameters(), module.parameters()))
    ok = worst <= 1e-5 and moved > 1e-3
    print("%s: 20 AdamW steps, parameters within 1e-5 of eager: %s "
          "(worst %.2e, losses within %.2e; trained %.2e from the start)" % (
              name, ok, worst, worst_loss, moved))
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model", choices=sorted(SPECS))
    p.add_argument("--echo-run", required=True)
    p.add_argument("--work", required=True)
    args = p.parse_args()
    torch.manual_seed(0)
    module = getattr(masks_models, args.model)()
    ok = one_step(args.model, module, args)
    ok &= training(args.model, module, args)
    print("%s: %s" % (args.model, "ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
