#!/usr/bin/python3
"""f32 (and bf16) accuracy of Echo's training step beside PyTorch's (not a
test; writes JSON).

For each case, one training step's loss and parameter gradients in f32 are
compared with an f64 reference on the same weights and data:

* PyTorch modules (the importer's test models, bench/zoo_models.py's GPT and
  LSTM language model, a hand-written LSTM loop, an MLP of gelu, sigmoid and
  silu, torchvision models, and long reductions: means of 10^4..10^7 values offset by 100, a batch norm over
  2^19 values per channel of mean 300, a layer norm and a cross-entropy over
  10^5 values): Echo f32 (``echo-run --dump``) and PyTorch f32 autograd,
  each against PyTorch f64 autograd.
* The bundled models (``models/*.mlir``), which PyTorch cannot run: Echo f32
  against the same step in f64 (``echo-run --reference-dump``: no
  recomputation, no library calls).

The distance of a tensor to its reference is ``||a - ref|| / max(||ref||,
0.01 * rms * sqrt(n))``, where rms is the root-mean-square gradient element
of the whole step: a gradient that is zero up to rounding (a bias before a
batch norm) is compared with 1% of the step's typical gradient instead of
its own norm. A case's distance is the worst over the loss and every
gradient. The target: Echo's distance <= 2x PyTorch f32's, or <= 1e-6.
The cases in BATCHES (ReLU networks whose f32 gradients are discontinuous
at their batches: see there) are run on several batches, and Echo's median
distance is held against PyTorch's median.

With ``--precision bf16`` the same PyTorch cases compare Echo's mixed
precision step (``echo-run --precision=bf16``: echo-autocast, f32 master
weights) and PyTorch's ``torch.autocast("cpu", torch.bfloat16)`` step, each
against the same f64 reference; the target is Echo's distance <= 2x
PyTorch's, or <= 2^-8 (bf16's unit roundoff). The bundled models are left
out (PyTorch has no bf16 peer for them).

Usage: bench/numerics.py [--build build] [--cases quick|all] [--out path]
       [--markdown [--before old.json]] [--no-bundled]
       [--precision f32|bf16] [--batches N]
"""
import argparse
import copy
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "Python", "Inputs"))

from echo.frontend import import_module, parse_input  # noqa: E402
from echo.frontend.check import torch_loss  # noqa: E402


# ----------------------------------------------------------------------------
# Long reductions, as PyTorch users write them
# ----------------------------------------------------------------------------


class ScaledMean(nn.Module):
    """mean(x * w) over the last dim: the loss and w's gradient are each one
    long sum."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return (x * self.w).mean(dim=1)


class BatchNormHead(nn.Module):
    """A batch norm over N*H*W values per channel, then a linear head."""

    def __init__(self, channels, classes=10):
        super().__init__()
        self.norm = nn.BatchNorm2d(channels)
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        return self.fc(self.norm(x).mean((2, 3)))


class LayerNormHead(nn.Module):
    """A layer norm over a long last dim, then a linear head on 16 of it."""

    def __init__(self, features, classes=10):
        super().__init__()
        self.norm = nn.LayerNorm(features)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        return self.fc(self.norm(x)[:, :16])


class WideLogits(nn.Module):
    """Cross-entropy over many classes: logits = x * w."""

    def __init__(self, classes):
        super().__init__()
        self.w = nn.Parameter(torch.ones(classes) + 0.01 * torch.randn(classes))

    def forward(self, x):
        return x * self.w


# ----------------------------------------------------------------------------
# Models as users write them
# ----------------------------------------------------------------------------


class HandLSTM(nn.Module):
    """An LSTM written as a loop over time steps, its state started with
    ``new_zeros`` (in f32 under PyTorch's autocast), then a linear head."""

    def __init__(self, features=32, hidden=64, classes=10):
        super().__init__()
        self.hidden = hidden
        self.wx = nn.Linear(features, 4 * hidden)
        self.wh = nn.Linear(hidden, 4 * hidden, bias=False)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x):  # [B, T, features]
        h = x.new_zeros(x.shape[0], self.hidden)
        c = x.new_zeros(x.shape[0], self.hidden)
        for t in range(x.shape[1]):
            i, f, g, o = (self.wx(x[:, t]) + self.wh(h)).chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
        return self.out(h)


def activation_mlp():
    """Activations made of several arithmetic ops each (erf gelu, tanh
    gelu, sigmoid, silu) between linear layers."""
    return nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 64),
                         nn.GELU("tanh"), nn.Linear(64, 64), nn.Sigmoid(),
                         nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 10))


def zoo_model(name, **kw):
    import zoo_models
    return lambda: getattr(zoo_models, name)(**kw)


def torchvision_model(name, **kw):
    import torchvision
    return lambda: getattr(torchvision.models, name)(**kw)


def test_model(name):
    import torch_models
    return getattr(torch_models, name)


# name, factory, inputs, loss, labels, input offset, classes, quick
TORCH_CASES = [
    ("mean 1e4 (offset 100)", ScaledMean, ["1x10000:f32"], "mse", "1",
     100.0, None, True),
    ("mean 1e5 (offset 100)", ScaledMean, ["1x100000:f32"], "mse", "1",
     100.0, None, True),
    ("mean 1e6 (offset 100)", ScaledMean, ["1x1000000:f32"], "mse", "1",
     100.0, None, True),
    ("mean 1e7 (offset 100)", ScaledMean, ["1x10000000:f32"], "mse", "1",
     100.0, None, False),
    ("batch norm 2^19 per channel (mean 300)",
     lambda: BatchNormHead(4), ["8x4x256x256:f32"],
     "cross_entropy", "8", 300.0, 10, False),
    ("batch norm 2^11 per channel (mean 300)",
     lambda: BatchNormHead(3), ["8x3x16x16:f32"],
     "cross_entropy", "8", 300.0, 10, True),
    ("layer norm 1e5 (mean 300)",
     lambda: LayerNormHead(100000), ["4x100000:f32"],
     "cross_entropy", "4", 300.0, 10, True),
    ("cross-entropy over 1e5 classes", lambda: WideLogits(100000),
     ["8x100000:f32"], "cross_entropy", "8", 0.0, 100000, True),
    ("importer: mlp", test_model("mlp"), ["4x16:f32"], "cross_entropy", "4",
     0.0, None, True),
    ("importer: transformer", test_model("transformer"), ["2x8:i32"],
     "cross_entropy", "2x8", 0.0, None, True),
    ("importer: seq2seq", test_model("seq2seq"), ["2x5:i32", "2x6:i32"],
     "cross_entropy", "2x6", 0.0, None, True),
    ("hand-written LSTM loop, zeros state", HandLSTM, ["8x20x32:f32"],
     "cross_entropy", "8", 0.0, 10, True),
    ("gelu/sigmoid/silu mlp", activation_mlp, ["16x32:f32"],
     "cross_entropy", "16", 0.0, 10, True),
    ("zoo: gpt", zoo_model("GPT"), ["2x16:i32"], "cross_entropy", "2x16",
     0.0, None, True),
    ("zoo: lstm_lm (dropout 0)", zoo_model("LSTMLM", dropout=0.0),
     ["12x4:i32"], "cross_entropy", "12x4", 0.0, None, True),
    ("importer: resnet18 4x3x64x64", test_model("resnet18"),
     ["4x3x64x64:f32"], "cross_entropy", "4", 0.0, None, False),
    ("torchvision densenet121 4x3x64x64",
     torchvision_model("densenet121", num_classes=10), ["4x3x64x64:f32"],
     "cross_entropy", "4", 0.0, 10, False),
    ("torchvision mnasnet1_0 2x3x64x64 (dropout 0)",
     torchvision_model("mnasnet1_0", num_classes=10, dropout=0.0),
     ["2x3x64x64:f32"], "cross_entropy", "2", 0.0, 10, False),
    ("torchvision shufflenet_v2_x1_0 2x3x64x64",
     torchvision_model("shufflenet_v2_x1_0", num_classes=10),
     ["2x3x64x64:f32"], "cross_entropy", "2", 0.0, 10, False),
]

# Cases measured on several batches and compared at the medians. These ReLU
# networks' last batch norms normalize 8 values per channel (batch 2 of 2x2
# maps), which amplifies the forward pass's f32 rounding to 1e-5..1e-4 of
# the activations there (Echo's and PyTorch's alike). On a quarter to a
# half of the batches, some pre-activation is that close to zero and f32
# gives it the other ReLU mask than f64, and that one flip moves the step's
# gradients by about 1e-2 (the gradient of a ReLU network is discontinuous
# there): which f32 step flips one on a given batch is chance, so one
# batch's distances compare luck, not rounding. bench/mask_flips.py finds
# the flip behind a batch's distance.
BATCHES = {
    "torchvision mnasnet1_0 2x3x64x64 (dropout 0)": 5,
    "torchvision shufflenet_v2_x1_0 2x3x64x64": 5,
}


# ----------------------------------------------------------------------------
# Measuring
# ----------------------------------------------------------------------------


def distances(results, reference):
    """Worst distance of `results` (loss, gradients...) to `reference`."""
    grads = reference[1:]
    total = sum(float(np.sum(np.square(g, dtype=np.float64))) for g in grads)
    count = sum(g.size for g in grads)
    rms = np.sqrt(total / max(count, 1))
    worst = 0.0
    for a, ref in zip(results, reference):
        a = np.asarray(a, np.float64)
        ref = np.asarray(ref, np.float64)
        scale = max(np.linalg.norm(ref), 0.01 * rms * np.sqrt(ref.size),
                    1e-300)
        worst = max(worst, float(np.linalg.norm(a - ref) / scale))
    return worst


def torch_step(module, data, loss, dtype, autocast=None):
    """One step of PyTorch autograd in `dtype`, under torch.autocast to
    `autocast` (a low-precision dtype) when given."""
    m = copy.deepcopy(module).to(dtype)
    m.zero_grad()
    tensors = [torch.from_numpy(d) for d in data]
    tensors = [t.to(dtype) if t.is_floating_point() else t for t in tensors]
    with torch.autocast("cpu", dtype=autocast or torch.bfloat16,
                        enabled=autocast is not None):
        value = torch_loss(m(*tensors[:-1]), tensors[-1], loss)
    value.backward()
    grads = [p.grad.detach().double().numpy() if p.grad is not None
             else np.zeros(tuple(p.shape)) for _, p in m.named_parameters()]
    return [np.float64(value.item())] + grads


def draw(module, inputs, loss, labels, offset, classes, seed=1):
    rng = np.random.default_rng(seed)
    vocab = [m.num_embeddings for m in module.modules()
             if isinstance(m, nn.Embedding)]
    data = []
    for shape, dtype in inputs:
        if dtype == "f32":
            data.append((rng.standard_normal(shape) + offset)
                        .astype(np.float32))
        else:
            data.append(rng.integers(0, min(vocab) if vocab else 2, shape)
                        .astype(np.int32))
    shape = labels[0]
    if loss == "cross_entropy":
        if classes is None:
            with torch.no_grad():
                classes = module(*[torch.from_numpy(d) for d in data]).shape[-1]
        data.append(rng.integers(0, classes, shape).astype(np.int32))
    else:
        data.append((rng.standard_normal(shape) + offset).astype(np.float32))
    return data


def echo_run(build, model, inputs_dir, flag, out_dir, count=None,
             precision="f32"):
    """One step's results (loss, gradients) from echo-run's `flag` dump."""
    run = subprocess.run(
        [os.path.join(build, "bin", "echo-run"), model,
         "--inputs=" + inputs_dir, flag + "=" + out_dir, "--steps=1",
         "--optimizer=none", "--strategy=none", "--quiet",
         "--precision=" + precision],
        capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError("echo-run %s failed: %s" % (model, run.stderr))
    if count is None:
        count = len([n for n in os.listdir(out_dir) if n.endswith(".npy")])
    return [np.load(os.path.join(out_dir, "out%d.npy" % i))
            for i in range(count)]


def torch_case(build, work, case, precision="f32", batches=None):
    """One case's distances: on one batch, or the medians over `batches`
    (default: BATCHES' count for the case, else 1) batches drawn with seeds
    1, 2, ..., each batch's figures kept in the row."""
    name, factory, inputs, loss, labels, offset, classes, _ = case
    torch.manual_seed(0)
    module = factory()
    ins = [parse_input(i) for i in inputs]
    lab = parse_input(labels, "i32" if loss == "cross_entropy" else "f32")
    imported = import_module(module, ins, loss, lab, "model")
    model = os.path.join(work, "model.mlir")
    with open(model, "w") as f:
        f.write(imported.text)
    data_dir = os.path.join(work, "inputs")
    imported.write_weights(data_dir)
    count = 1 + len(list(module.parameters()))
    per_batch = []
    for seed in range(1, (batches or BATCHES.get(name, 1)) + 1):
        data = draw(module, ins, loss, lab, offset, classes, seed)
        for i, d in enumerate(data):
            np.save(os.path.join(data_dir, "arg%d.npy" % i), d)
        echo = echo_run(build, model, data_dir, "--dump",
                        os.path.join(work, "echo"), count, precision)
        ref = torch_step(module, data, loss, torch.float64)
        mine = torch_step(module, data, loss, torch.float32,
                          LOW_PRECISION.get(precision))
        per_batch.append({"echo": distances(echo, ref),
                          "torch": distances(mine, ref)})
    values = max(int(np.prod(s)) for s, _ in ins)
    row = {"case": name, "kind": "pytorch", "values": values,
           "echo_" + precision: float(np.median(
               [b["echo"] for b in per_batch])),
           "torch_" + precision: float(np.median(
               [b["torch"] for b in per_batch])),
           "reference": "PyTorch f64 autograd"}
    if len(per_batch) > 1:
        row["batches"] = per_batch
    return row


def bundled_case(build, work, path):
    model = os.path.join(work, "model.mlir")
    with open(path) as f, open(model, "w") as g:
        g.write(f.read())
    os.makedirs(os.path.join(work, "inputs"), exist_ok=True)
    echo = echo_run(build, model, os.path.join(work, "inputs"), "--dump",
                    os.path.join(work, "echo"))
    ref = echo_run(build, model, os.path.join(work, "inputs"),
                   "--reference-dump", os.path.join(work, "ref"))
    return {"case": "bundled: " + os.path.basename(path), "kind": "bundled",
            "values": None, "echo_f32": distances(echo, ref),
            "torch_f32": None, "reference": "Echo's step in f64"}


def cpu_model():
    """The CPU's model name (/proc/cpuinfo), or the platform's."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# The low-precision type PyTorch's autocast runs in, per --precision.
LOW_PRECISION = {"bf16": torch.bfloat16}
# Below this distance a case meets its target whatever PyTorch's error.
ABSOLUTE = {"f32": 1e-6, "bf16": 2.0 ** -8}


def verdict(row, precision="f32"):
    echo, peer = row["echo_" + precision], row["torch_" + precision]
    if peer is None:
        return echo <= 1e-5
    return echo <= 2 * peer or echo <= ABSOLUTE[precision]


INTRO = {
    "f32": (
        "One training step's loss and parameter gradients in f32 against "
        "f64 on the same weights and data: Echo f32 (`echo-run --dump`) and "
        "PyTorch 1.13 f32 autograd, each against PyTorch f64 autograd; the "
        "bundled models, which PyTorch cannot run, against the same step in "
        "f64 (`echo-run --reference-dump`). "),
    "bf16": (
        "One training step's loss and parameter gradients in mixed precision "
        "against f64 on the same weights and data: Echo's bf16 step "
        "(`echo-run --precision=bf16 --dump`: echo-autocast, f32 master "
        "weights) and PyTorch 1.13 under `torch.autocast(\"cpu\", "
        "torch.bfloat16)` on its f32 module, each against PyTorch f64 "
        "autograd. "),
}
TARGET = {
    "f32": "Echo ≤ 2× PyTorch f32, or ≤ 1e-6 (bundled models: ≤ 1e-5).",
    "bf16": "Echo ≤ 2× PyTorch's autocast, or ≤ 2^-8 (bf16's unit "
            "roundoff).",
}
PEER = {"f32": "PyTorch f32", "bf16": "PyTorch autocast bf16"}


def markdown(results, before=None):
    """The docs/results.md section; `before`: the same bench's JSON from an
    earlier build, shown beside."""
    precision = results.get("precision", "f32")
    echo_key, peer_key = "echo_" + precision, "torch_" + precision
    old = {r["case"]: r for r in before["cases"]} if before else {}
    machine = results["machine"]
    lines = [
        "## %s numerics (`bench/numerics.py%s`)" % (
            precision, "" if precision == "f32"
            else " --precision " + precision), "",
        INTRO[precision] + "Distance of a tensor: "
        "`||a − ref|| / max(||ref||, 0.01 · rms · √n)` (rms: the step's "
        "root-mean-square gradient element, so that a gradient that is zero "
        "up to rounding is compared with 1% of the typical one); a case's "
        "distance is the worst over the loss and every gradient. Target: "
        + TARGET[precision]
        + (" *Before*: %s." % before["build"] if before else "")
        + " Machine: %s, %s cores, %s." % (
            machine.get("cpu"), machine.get("cores"), results["date"]),
        "", "| case | Echo %s |%s %s | Echo / PyTorch | target |" %
        (precision, " before |" if before else "", PEER[precision]),
        "|---|---|%s---|---|---|" % ("---|" if before else "")]
    for r in results["cases"]:
        peer = ("%.1e" % r[peer_key]) if r[peer_key] is not None else "—"
        ratio = ("%.2f" % (r[echo_key] / r[peer_key])) \
            if r[peer_key] else "—"
        name = r["case"] + (", median of %d batches" % len(r["batches"])
                            if "batches" in r else "")
        cells = [name, "%.1e" % r[echo_key]]
        if before:
            cells.append("%.1e" % old[r["case"]][echo_key]
                         if r["case"] in old else "—")
        cells += [peer, ratio, "met" if r["met"] else "**missed**"]
        lines.append("| " + " | ".join(cells) + " |")
    several = [r for r in results["cases"] if "batches" in r]
    if several:
        lines += [
            "", "Medians of several batches: these ReLU networks' last batch "
            "norms normalize 8 values per channel, which amplifies the "
            "forward pass's f32 rounding to 1e-5..1e-4 of the activations "
            "there, Echo's and PyTorch's alike. On a quarter to a half of "
            "the batches some pre-activation is that close to zero and gets "
            "the other ReLU mask in f32 than in f64, and that one flip moves "
            "the step's gradients by about 1e-2 (`bench/mask_flips.py` finds "
            "it: against the f64 step with that mask flipped, Echo's "
            "distance is back at its other batches'). Which f32 step "
            "flips a mask on a given batch is chance, so the figures of one "
            "batch compare luck; the medians compare rounding. Each batch "
            "(seeds 1, 2, ...), %s against %s:" % (
                "Echo " + precision, PEER[precision]), ""]
        for r in several:
            lines.append("- %s: %s" % (r["case"], ", ".join(
                "%.1e / %.1e" % (b["echo"], b["torch"])
                for b in r["batches"])))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cases", choices=("quick", "all"), default="all")
    ap.add_argument("--out", help="the JSON's path (default "
                    "bench/results/numerics.json, numerics_bf16.json for "
                    "--precision bf16)")
    ap.add_argument("--precision", choices=("f32", "bf16"), default="f32",
                    help="bf16: Echo's mixed precision step beside "
                         "PyTorch's autocast (PyTorch cases only)")
    ap.add_argument("--batches", type=int,
                    help="run every PyTorch case on this many batches and "
                         "compare the medians (default: 1, BATCHES' count "
                         "for the cases there)")
    ap.add_argument("--markdown", action="store_true",
                    help="print the table as Markdown")
    ap.add_argument("--before", help="this bench's JSON from an earlier "
                    "build, shown beside in the Markdown table")
    ap.add_argument("--no-bundled", action="store_true",
                    help="leave out the bundled models (a build without "
                         "echo-run --reference-dump)")
    args = ap.parse_args()
    if args.batches is not None and args.batches < 1:
        ap.error("--batches must be at least 1")
    precision = args.precision
    before = None
    if args.before:
        with open(args.before) as f:
            before = json.load(f)
        if before.get("precision", "f32") != precision:
            ap.error("--before %s holds %s results, not %s" % (
                args.before, before.get("precision", "f32"), precision))
    if args.out is None:
        args.out = os.path.join(
            ROOT, "bench", "results", "numerics%s.json" % (
                "" if precision == "f32" else "_" + precision))

    results = {"machine": {"cpu": cpu_model(), "cores": os.cpu_count()},
               "build": args.build, "date": time.strftime("%Y-%m-%d"),
               "precision": precision, "cases": []}
    torch.set_num_threads(os.cpu_count() or 1)
    with tempfile.TemporaryDirectory() as tmp:
        for k, case in enumerate(TORCH_CASES):
            if args.cases == "quick" and not case[7]:
                continue
            work = os.path.join(tmp, "t%d" % k)
            os.makedirs(work)
            row = torch_case(args.build, work, case, precision,
                             args.batches)
            row["met"] = verdict(row, precision)
            results["cases"].append(row)
            print("%-45s echo %.2e  torch %.2e%s" % (
                row["case"], row["echo_" + precision],
                row["torch_" + precision],
                "  (medians of %d batches)" % len(row["batches"])
                if "batches" in row else ""), flush=True)
        bundled = not args.no_bundled and precision == "f32"
        models = [] if not bundled else sorted(
            n for n in os.listdir(os.path.join(ROOT, "models"))
            if n.endswith(".mlir"))
        for n in models:
            work = os.path.join(tmp, n)
            os.makedirs(work)
            row = bundled_case(args.build, work,
                               os.path.join(ROOT, "models", n))
            row["met"] = verdict(row)
            results["cases"].append(row)
            print("%-45s echo %.2e" % (row["case"], row["echo_f32"]),
                  flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    if args.markdown:
        print("\n".join(markdown(results, before)))
    return 0 if all(r["met"] for r in results["cases"]) else 1


if __name__ == "__main__":
    sys.exit(main())
