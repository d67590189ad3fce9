#!/usr/bin/python3
"""Convolutional training steps, Echo beside PyTorch eager on the CPU (not a
test; writes JSON).

torchvision's ResNet-18 (100 classes; batch 16 of 3x112x112 by default),
imported into Echo by echo.import_torch with its initial weights and one
batch of data (.npy, `echo-run --inputs`), and the same module in PyTorch
eager: forward, cross-entropy, backward and an SGD update (lr 0.1) per
step on both sides (echo-run applies SGD to the gradients its step
returns). In one run, alternating, with the libraries' threads set to the
same count on both sides (--threads, default every core):

* Echo under strategies none and echo, its convolutions in the layouts
  oneDNN chooses (the runtime's default: blocked copies reordered at each
  call) and on the step's plain NCHW buffers (ECHO_CPU_CONV_LAYOUT=plain),
  and its generated kernels on one thread (ECHO_CPU_KERNEL_THREADS=1:
  those of 65,536 iterations or more are otherwise split across the
  threads);
* PyTorch eager (its oneDNN convolutions on NCHW tensors);
* in bf16: Echo's echo with --precision=bf16 (oneDNN's bf16 convolutions
  and GEMMs, f32 master weights) beside PyTorch eager under
  torch.autocast("cpu", bfloat16).

Each run takes the median of --steps steps after a warm-up step, and the
table the fastest median of --repeats runs. Also recorded: Echo's measured
bytes (with the library workspace, which holds the reordered copies),
compile seconds, the first loss beside PyTorch's, and oneDNN's own time
per step by primitive (one more run of Echo's none with ONEDNN_VERBOSE=1).
Writes bench/results/conv_side_by_side.json and its section of
docs/results.md.

Usage: bench/peers/conv_side_by_side.py [--build build] [--batch 16]
       [--image 112] [--classes 100] [--steps 5] [--repeats 2]
       [--threads N] [--out bench/results/conv_side_by_side.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F
import torchvision

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402
from echo.frontend import import_module  # noqa: E402


# Echo's step: gradients returned, SGD (lr 0.1) applied by echo-run.
TRAINING = ["--optimizer=none", "--lr=0.1", "--quiet"]


def echo_step(echo_run, model, data, strategy, steps, env, flags=()):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run([echo_run, model, "--inputs=" + data,
                        "--strategy=" + strategy, "--steps=%d" % (steps + 1),
                        "--report=" + report] + TRAINING + list(flags),
                       check=True, env=env)
        r = json.load(open(report))[0]
    return {k: r.get(k) for k in ["step_time_ms", "measured_peak_bytes",
                                  "library_workspace_bytes", "compile_ms",
                                  "losses"]}


def onednn_breakdown(echo_run, model, data, steps, env):
    """oneDNN's own time per step by primitive kind and implementation
    (ONEDNN_VERBOSE=1's exec lines), beside the step's median time."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        run = subprocess.run([echo_run, model, "--inputs=" + data,
                              "--strategy=none", "--steps=%d" % steps,
                              "--report=" + report] + TRAINING,
                             check=True, capture_output=True, text=True,
                             env=dict(env, ONEDNN_VERBOSE="1"))
        step_ms = json.load(open(report))[0]["step_time_ms"]
    ms, calls = {}, {}
    for line in (run.stdout + run.stderr).splitlines():
        fields = line.split(",")
        if len(fields) > 5 and fields[1] == "exec" and \
                fields[0] in ("onednn_verbose", "dnnl_verbose"):
            kind = fields[3] + " " + fields[4]
            ms[kind] = ms.get(kind, 0.0) + float(fields[-1]) / steps
            calls[kind] = calls.get(kind, 0) + 1.0 / steps
    return {"step_time_ms": step_ms,
            "primitives": {k: {"ms_per_step": ms[k],
                               "calls_per_step": calls[k]} for k in ms}}


def torch_step(module, x, y, steps, bf16=False):
    """PyTorch eager's step; with `bf16`, the forward and loss under
    torch.autocast to bf16 (its mixed precision on the CPU: oneDNN's bf16
    convolutions and GEMMs, f32 weights)."""
    opt = torch.optim.SGD(module.parameters(), lr=0.1)
    times, losses = [], []
    for _ in range(steps + 1):
        start = time.perf_counter()
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = F.cross_entropy(module(x), y)
        loss.backward()
        opt.step()
        times.append(1e3 * (time.perf_counter() - start))
        losses.append(float(loss))
    return {"step_time_ms": statistics.median(times[1:]), "losses": losses}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--image", type=int, default=112)
    ap.add_argument("--classes", type=int, default=100)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "conv_side_by_side.json"))
    args = ap.parse_args()
    echo_run = os.path.join(args.build, "bin", "echo-run")
    torch.set_num_threads(args.threads)
    record = machine.for_bench()
    torch.manual_seed(0)
    module = torchvision.models.resnet18(num_classes=args.classes)
    x = torch.randn(args.batch, 3, args.image, args.image)
    y = torch.randint(0, args.classes, (args.batch,))
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        imported = import_module(
            module, [(tuple(x.shape), "f32")], "cross_entropy",
            ((args.batch,), "i32"), "resnet18")
        model = os.path.join(tmp, "resnet18.mlir")
        with open(model, "w") as f:
            f.write(imported.text)
        data = os.path.join(tmp, "data")
        imported.write_weights(data)
        np.save(os.path.join(data, "arg0.npy"), x.numpy())
        np.save(os.path.join(data, "arg1.npy"), y.numpy().astype(np.int32))
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(args.threads),
                   OMP_NUM_THREADS=str(args.threads))
        plain = dict(env, ECHO_CPU_CONV_LAYOUT="plain")
        one_thread = dict(env, ECHO_CPU_KERNEL_THREADS="1")
        jobs = [("echo none", lambda: echo_step(echo_run, model, data, "none",
                                                args.steps, env)),
                ("echo echo", lambda: echo_step(echo_run, model, data, "echo",
                                                args.steps, env)),
                ("echo none, kernels on one thread",
                 lambda: echo_step(echo_run, model, data, "none", args.steps,
                                   one_thread)),
                ("echo none, plain layouts",
                 lambda: echo_step(echo_run, model, data, "none", args.steps,
                                   plain)),
                ("pytorch eager",
                 lambda: torch_step(torchvision.models.resnet18(
                     num_classes=args.classes), x, y, args.steps)),
                ("echo echo, bf16",
                 lambda: echo_step(echo_run, model, data, "echo", args.steps,
                                   env, ["--precision=bf16"])),
                ("pytorch eager, bf16 autocast",
                 lambda: torch_step(torchvision.models.resnet18(
                     num_classes=args.classes), x, y, args.steps,
                     bf16=True))]
        for repeat in range(args.repeats):
            for name, job in jobs:
                if name.startswith("pytorch eager"):
                    torch.manual_seed(0)
                r = job()
                best = runs.get(name)
                if best is None or r["step_time_ms"] < best["step_time_ms"]:
                    runs[name] = r
                print(name, round(r["step_time_ms"], 1), file=sys.stderr,
                      flush=True)
        breakdown = onednn_breakdown(echo_run, model, data, args.steps, env)
    peer = runs["pytorch eager"]["step_time_ms"]
    peer_bf16 = runs["pytorch eager, bf16 autocast"]["step_time_ms"]
    for name, r in runs.items():
        r["over_pytorch"] = r["step_time_ms"] / peer
        if "bf16" in name:
            r["over_pytorch_bf16"] = r["step_time_ms"] / peer_bf16
    result = {"model": "torchvision resnet18", "batch": args.batch,
              "image": args.image, "classes": args.classes,
              "threads": args.threads, "steps": args.steps,
              "repeats": args.repeats, "torch": torch.__version__,
              "runs": runs, "onednn_breakdown": breakdown}
    machine.attach(result, record)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    for name, r in runs.items():
        print("%-30s %8.1f ms  %.2fx PyTorch eager" % (
            name, r["step_time_ms"], r["over_pytorch"]))
    import recompute
    recompute.replace_section(recompute.conv_side_by_side_markdown(),
                              after="## Echo beside PyTorch on the CPU")


if __name__ == "__main__":
    main()
