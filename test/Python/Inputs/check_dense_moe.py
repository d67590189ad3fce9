"""The dense mixture of experts of dense_moe.py (torch.stack of the experts'
outputs, a weighted sum over the last dim) trains through Echo with the
library calls on (see dense-moe.test). For each way of writing the sum:

- `python3 -m echo.import_torch` imports it; one step of echo-run
  (--optimizer=none) under every strategy (budget: 95% of none's bytes,
  which it recomputes to fit; 80% fits no plan) gives PyTorch f64
  autograd's loss and every gradient within 1e-4 relative to the norm, and
  its measured peak is the plan (--report: measured_peak_bytes == step_bytes + the
  library workspace);
- echo.torch.compile_step with torch.optim.AdamW, and with the step's own
  AdamW, trains 20 steps as PyTorch eager does: losses and parameters
  within 1e-5.

Prints one line per property; exits 1 when one fails.
Usage: check_dense_moe.py ECHO_RUN WORK_DIR"""
import copy
import json
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

import echo.torch

from dense_moe import DenseMoE

echo_run, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
STRATEGIES = ["none", "mirror", "sublinear", "echo", "budget"]
BATCH, WIDTH = 8, 16
failures = 0


def rel(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def check(ok, line):
    global failures
    failures += not ok
    print(line + ("" if ok else "  FAILED"))


def torch_f64_step(module, x, labels):
    """The loss and the gradients of PyTorch's f64 autograd."""
    ref = copy.deepcopy(module).double()
    loss = F.cross_entropy(ref(torch.from_numpy(x).double()),
                           torch.from_numpy(labels).long())
    loss.backward()
    return float(loss), [p.grad.numpy() for p in ref.parameters()]


def one_step(combine):
    factory = "moe_" + combine
    model = os.path.join(work, factory + ".mlir")
    inputs = os.path.join(work, factory + "-inputs")
    imported = subprocess.run(
        [sys.executable, "-m", "echo.import_torch", "dense_moe:" + factory,
         "--input", "%dx%d:f32" % (BATCH, WIDTH), "--loss", "cross_entropy",
         "--labels", str(BATCH), "-o", model, "--weights", inputs],
        cwd=here, capture_output=True, text=True)
    if imported.returncode != 0:
        check(False, "%s: import: %s" % (factory, imported.stderr.strip()))
        return
    torch.manual_seed(0)  # the weights the importer wrote
    module = DenseMoE(combine=combine)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    labels = rng.integers(0, 5, BATCH).astype(np.int32)
    np.save(os.path.join(inputs, "arg0.npy"), x)
    np.save(os.path.join(inputs, "arg1.npy"), labels)
    ref_loss, ref_grads = torch_f64_step(module, x, labels)
    for strategy in STRATEGIES:
        dump = os.path.join(work, "%s-%s" % (factory, strategy))
        report = dump + ".json"
        run = subprocess.run(
            [echo_run, "--opt-level=0", model, "--inputs=" + inputs, "--dump=" + dump,
             "--report=" + report, "--steps=1", "--optimizer=none",
             "--strategy=" + strategy, "--quiet"] +
            (["--budget=0.95"] if strategy == "budget" else []),
            capture_output=True, text=True)
        if run.returncode != 0:
            check(False, "%s %s: echo-run: %s" % (factory, strategy,
                                                  run.stderr.strip()))
            continue
        outs = [np.load(os.path.join(dump, "out%d.npy" % i))
                for i in range(len(ref_grads) + 1)]
        worst = max([rel(outs[0], ref_loss)] +
                    [rel(g, r) for g, r in zip(outs[1:], ref_grads)])
        with open(report) as f:
            r = json.load(f)[0]
        check(worst <= 1e-4,
              "%s %s: loss and %d gradients within 1e-4 of PyTorch f64: %s"
              % (factory, strategy, len(ref_grads), worst <= 1e-4))
        planned = r["step_bytes"] + r["library_workspace_bytes"]
        check(r["measured_peak_bytes"] == planned,
              "%s %s: measured peak == plan: %s" % (
                  factory, strategy, r["measured_peak_bytes"] == planned))


def train(combine, in_step):
    """20 AdamW steps of compile_step against PyTorch eager; returns the
    worst relative difference of the losses and of the parameters."""
    torch.manual_seed(1)
    base = DenseMoE(combine=combine)
    model, ref = copy.deepcopy(base), copy.deepcopy(base)
    x = torch.randn(BATCH, WIDTH)
    y = torch.randint(0, 5, (BATCH,))
    if in_step:
        step = echo.torch.compile_step(model, (x,), y, optimizer="adamw",
                                       lr=1e-2)
        opt = None
    else:
        step = echo.torch.compile_step(model, (x,), y)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    ref_opt = torch.optim.AdamW(ref.parameters(), lr=1e-2)
    worst_loss = 0.0
    for _ in range(20):
        loss = step(x, labels=y)
        if opt:
            opt.step()
            opt.zero_grad()
        ref_loss = F.cross_entropy(ref(x), y)
        ref_loss.backward()
        ref_opt.step()
        ref_opt.zero_grad()
        worst_loss = max(worst_loss, abs(float(loss) - float(ref_loss)) /
                         abs(float(ref_loss)))
    worst = max(rel(p.detach(), q.detach())
                for p, q in zip(model.parameters(), ref.parameters()))
    report = step.memory_report()
    return worst_loss, worst, report


for combine in ("sum", "einsum"):
    one_step(combine)
    for in_step in (False, True):
        what = "step's AdamW" if in_step else "torch.optim.AdamW"
        worst_loss, worst, report = train(combine, in_step)
        check(worst_loss <= 1e-5 and worst <= 1e-5,
              "moe_%s compile_step + %s, 20 steps: losses and parameters "
              "within 1e-5 of eager: %s" % (
                  combine, what, worst_loss <= 1e-5 and worst <= 1e-5))
        check(report["measured_peak_bytes"] == report["step_bytes"] +
              report["library_workspace_bytes"],
              "moe_%s compile_step + %s: measured peak == plan: %s" % (
                  combine, what, report["measured_peak_bytes"] ==
                  report["step_bytes"] + report["library_workspace_bytes"]))
print("dense MoE: %s" % ("FAILED" if failures else "all properties hold"))
sys.exit(1 if failures else 0)
