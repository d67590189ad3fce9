#!/usr/bin/python3
"""Current models (bench/current_models.py) trained the way a PyTorch user
trains them with Echo: ``echo.torch.compile_step`` inside their own loop
with ``torch.optim.AdamW`` (not a test; writes JSON).

For every model:
- whether its step compiles (or the one-line error) and in how long
  (import and compile, one process);
- accuracy of one step: Echo f32's loss and gradients (``p.grad`` of every
  trainable parameter) against PyTorch f64 autograd on the same weights
  and batch, beside PyTorch f32's own distance (``numerics.distances``);
  dropout set to p=0 for this (Echo's masks are not PyTorch's);
- training: 20 AdamW steps on 20 batches, Echo's step beside PyTorch eager
  in f32 and in f64 from the same weights (dropout off): the largest
  relative difference of Echo's losses to eager f32's, and the final
  parameters' distances to the f64 loop's, Echo's beside PyTorch f32's (the
  parameter where Echo's is largest against PyTorch's);
- memory: the step's measured peak bytes (``step.memory_report()``) under
  strategies none and echo, dropout as the model has it.

Targets: Echo f32 within max(1e-4, 2x PyTorch f32's) of f64; the 20-step
loop's losses equal to eager's within 1e-5 (relative) and every final
parameter within max(1e-5, 2x PyTorch f32's distance) of the f64 loop's.

Usage: bench/current_zoo.py [--models a,b] [--steps 20] [--keep-cache]
       [--out bench/results/current_zoo.json] [--markdown]
"""
import argparse
import copy
import inspect
import json
import os
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import current_models  # noqa: E402
import machine  # noqa: E402
import numerics  # noqa: E402
import echo.torch  # noqa: E402

LOOP_TARGET = 1e-5


def _dropout_off(module):
    for m in module.modules():
        if isinstance(m, nn.modules.dropout._DropoutNd):
            m.p = 0.0
        elif isinstance(m, (nn.RNNBase, nn.MultiheadAttention)):
            m.dropout = 0.0
        elif isinstance(m, nn.TransformerEncoderLayer):
            m.dropout.p = m.dropout1.p = m.dropout2.p = 0.0
    return module


def _cast(tensors, dtype):
    return tuple(t.to(dtype) if t.is_floating_point() else t for t in tensors)


def _eager_loss(module, inputs, labels, loss):
    """The loss as compile_step defines it, computed by PyTorch."""
    if loss is None:
        params = inspect.signature(module.forward).parameters
        out = module(*inputs, labels=labels) if "labels" in params \
            else module(*inputs, labels)
        if isinstance(out, dict):
            return out["loss"]
        return out[0] if isinstance(out, (tuple, list)) else out
    out = module(*inputs)
    if callable(loss):
        return loss(out, labels)
    if loss == "mse":
        return F.mse_loss(out, labels)
    if out.dim() == 3 and labels.dim() == 2 and out.shape[:2] == labels.shape:
        return F.cross_entropy(out.flatten(0, 1), labels.flatten())
    return F.cross_entropy(out, labels)


def _trainable(module):
    return [p for p in module.parameters() if p.requires_grad]


def _torch_step(module, inputs, labels, loss, dtype):
    m = copy.deepcopy(module).to(dtype)
    m.zero_grad()
    value = _eager_loss(m, _cast(inputs, dtype), _cast((labels,), dtype)[0],
                        loss)
    value.backward()
    return [np.float64(value.item())] + [
        p.grad.double().numpy() if p.grad is not None
        else np.zeros(tuple(p.shape)) for p in _trainable(m)]


def _echo_step(step, module, inputs, labels):
    for p in module.parameters():
        p.grad = None
    value = step(*inputs, labels=labels)
    return [np.float64(float(value))] + [
        p.grad.double().numpy() if p.grad is not None
        else np.zeros(tuple(p.shape)) for p in _trainable(module)]


def _rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def measure(name, steps):
    """The row of one model; a failure at any stage is the row's error."""
    row = {"model": name}
    try:
        return _measure(name, steps, row)
    except Exception as e:   # the one-line error is the row's result
        row["error"] = "%s: %s" % (type(e).__name__,
                                   str(e).strip().splitlines()[0])
        return row


def _measure(name, steps, row):
    torch.manual_seed(0)
    module, batch, loss = current_models.MODELS[name]()
    module.train()
    inputs, labels = batch(1)
    row["parameters"] = sum(p.numel() for p in module.parameters())
    row["trainable"] = sum(p.numel() for p in _trainable(module))
    exact = _dropout_off(copy.deepcopy(module))
    # One step against f64 autograd.
    start = time.perf_counter()
    step = echo.torch.compile_step(exact, inputs, labels, loss=loss,
                                   strategy="none")
    row["compile_s"] = time.perf_counter() - start
    reference = _torch_step(exact, inputs, labels, loss, torch.float64)
    row["torch_f32"] = numerics.distances(
        _torch_step(exact, inputs, labels, loss, torch.float32), reference)
    row["echo_f32"] = numerics.distances(
        _echo_step(step, exact, inputs, labels), reference)
    row["f32_met"] = bool(row["echo_f32"] <= max(1e-4, 2 * row["torch_f32"]))
    # The loop: compile_step + AdamW against eager + AdamW, and eager in
    # f64 + AdamW as the reference of both.
    mine, theirs = copy.deepcopy(exact), copy.deepcopy(exact)
    ref = copy.deepcopy(exact).double()
    loop = echo.torch.compile_step(mine, inputs, labels, loss=loss,
                                   strategy="echo")
    optimizers = [torch.optim.AdamW(_trainable(m), lr=1e-3)
                  for m in (mine, theirs, ref)]
    loss_diff = 0.0
    for s in range(steps):
        x, y = batch(1 + s)
        a = float(loop(*x, labels=y))
        b = _eager_loss(theirs, x, y, loss)
        b.backward()
        _eager_loss(ref, _cast(x, torch.float64),
                    _cast((y,), torch.float64)[0], loss).backward()
        for opt in optimizers:
            opt.step()
            opt.zero_grad()
        loss_diff = max(loss_diff, abs(a - b.item()) /
                        max(abs(b.item()), 1e-30))
    row["loop_loss_rel"] = loss_diff
    # Parameters after the loop, each against the f64 loop's: Echo's and
    # PyTorch f32's distances (AdamW turns a gradient that is zero up to
    # rounding -- a key projection's bias, a bias before a batch norm --
    # into steps of lr whose signs are the rounding's, Echo's or PyTorch's).
    worst = None
    for (n, p), q, r in zip(mine.named_parameters(), theirs.parameters(),
                            ref.parameters()):
        r = r.detach().numpy()
        e, t = _rel(p.detach().numpy(), r), _rel(q.detach().numpy(), r)
        excess = e / max(1e-5, 2 * t)
        if worst is None or excess > worst[0]:
            worst = (excess, n, e, t)
    row["loop_param_worst"] = {"parameter": worst[1], "echo_vs_f64": worst[2],
                               "torch_f32_vs_f64": worst[3]}
    row["loop_met"] = bool(loss_diff <= LOOP_TARGET and worst[0] <= 1.0)
    # Memory, with the model's dropout.
    for strategy in ("none", "echo"):
        m = copy.deepcopy(module)
        s = echo.torch.compile_step(m, inputs, labels, loss=loss,
                                    strategy=strategy)
        s(*inputs, labels=labels)
        report = s.memory_report()
        row["%s_bytes" % strategy] = report["measured_peak_bytes"]
        row["%s_step_bytes" % strategy] = report["measured_step_peak_bytes"]
    row["met"] = row["f32_met"] and row["loop_met"]
    return row


def markdown(results):
    lines = ["| model | trainable / all parameters | compile s | Echo f32 vs "
             "f64 | PyTorch f32 vs f64 | 20 AdamW steps: losses vs eager; "
             "worst parameter vs f64, Echo / PyTorch f32 | measured bytes none / echo | target |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results["models"]:
        if "error" in r:
            lines.append("| %s | %s / %s | — | — | — | — | — | failed: %s |"
                         % (r["model"], r.get("trainable", "?"),
                            r.get("parameters", "?"),
                            r["error"].replace("|", "\\|")))
            continue
        lines.append(
            "| %s | %d / %d | %.1f | %.1e | %.1e | %.1e; %.1e / %.1e | "
            "%s / %s | %s |" % (
                r["model"], r["trainable"], r["parameters"], r["compile_s"],
                r["echo_f32"], r["torch_f32"], r["loop_loss_rel"],
                r["loop_param_worst"]["echo_vs_f64"],
                r["loop_param_worst"]["torch_f32_vs_f64"],
                format(r["none_bytes"], ","),
                format(r["echo_bytes"], ","),
                "met" if r["met"] else "**missed**"))
    met = sum(1 for r in results["models"] if r.get("met"))
    lines.append("")
    lines.append("%d of %d models meet the targets (%s)." % (
        met, len(results["models"]), results["machine"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", help="comma-separated names (default: all)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "current_zoo.json"))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--keep-cache", action="store_true",
                    help="use $ECHO_CACHE_DIR's compiled steps (default: a "
                    "fresh cache, so that compile seconds are compiles)")
    args = ap.parse_args()
    if not args.keep_cache:
        cache = tempfile.TemporaryDirectory(prefix="echo-current-zoo-")
        os.environ["ECHO_CACHE_DIR"] = cache.name
    names = args.models.split(",") if args.models else \
        list(current_models.MODELS)
    unknown = [n for n in names if n not in current_models.MODELS]
    if unknown:
        ap.error("unknown models %s (known: %s)" % (
            ", ".join(unknown), ", ".join(current_models.MODELS)))
    if args.steps < 1:
        ap.error("--steps must be at least 1")
    results = {"machine": machine.describe()["summary"], "date": time.strftime(
        "%Y-%m-%d"), "torch": torch.__version__, "models": []}
    for name in names:
        row = measure(name, args.steps)
        results["models"].append(row)
        print(json.dumps(row), flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    if args.markdown:
        print(markdown(results))


if __name__ == "__main__":
    main()
