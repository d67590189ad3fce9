#!/usr/bin/python3
"""Long-context GPT: Echo's fused attention against materialized attention
and PyTorch (not a test; writes JSON).

A pre-LN GPT (GELU MLP, dropout 0.1 on embeddings, attention probabilities
and residual branches; python/echo/models_gpt.py) at each sequence length:

* Echo, `echo-run --report` (measured_peak_bytes: every byte of the step,
  counted by Echo's allocator; planned_bytes; feature_map_bytes, the
  stash; step_time_ms, the median of the steps) for strategies none and
  echo, with `echo.attention` (the CPU runtime's fused kernels) and with
  its materialized twin (`echo-opt --echo-decompose-attention`), and the
  PyTorch GPT below imported with `echo.import_torch` (attention fused by
  default: its tril mask becomes `causal`);
* PyTorch's GPT (make_gpt, the same model; CPU; 1.13 has no
  scaled_dot_product_attention, so attention is materialized as nanoGPT's
  slow path): eager, and torch.utils.checkpoint
  per block. Each runs in its own process under the LD_PRELOAD allocation
  counter of bench/peers/alloc_counter.c; its peak is the counter's
  high-water mark over one forward and backward pass (the second), minus
  what was live before, plus the parameters and data (what Echo counts).

Usage: bench/long_context.py [--build build] [--seqs 512,2048]
       [--batch 2] [--d_model 256] [--heads 4] [--layers 4] [--vocab 4096]
       [--steps 2] [--skip-torch]
Writes bench/results/long_context.json.
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

ECHO_KEYS = ("measured_peak_bytes", "planned_bytes", "feature_map_bytes",
             "step_time_ms")


def make_gpt(config):
    """The PyTorch GPT of `config` (batch, seq, d_model, heads, layers,
    vocab, dropout, variant): nanoGPT's slow-path attention (a tril buffer
    under masked_fill), pre-LN blocks, a GELU MLP; `variant` "checkpoint"
    runs each block under torch.utils.checkpoint."""
    import math
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.checkpoint import checkpoint

    b, s, d, h = (config[k] for k in ("batch", "seq", "d_model", "heads"))
    p = config["dropout"]

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.q, self.k, self.v = (nn.Linear(d, d) for _ in range(3))
            self.proj = nn.Linear(d, d)
            self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
            self.register_buffer("mask", torch.tril(torch.ones(s, s)).view(
                1, 1, s, s))

        def forward(self, x):
            y = self.ln1(x)
            heads = lambda t: t.view(b, s, h, d // h).transpose(1, 2)  # noqa
            q, k, v = heads(self.q(y)), heads(self.k(y)), heads(self.v(y))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // h))
            att = att.masked_fill(self.mask == 0, float("-inf"))
            att = F.dropout(F.softmax(att, dim=-1), p)
            o = (att @ v).transpose(1, 2).reshape(b, s, d)
            x = x + F.dropout(self.proj(o), p)
            return x + F.dropout(self.out(F.gelu(self.fc(self.ln2(x)))), p)

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(config["vocab"], d)
            self.pos = nn.Parameter(torch.zeros(s, d))
            self.blocks = nn.ModuleList(Block()
                                        for _ in range(config["layers"]))
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, config["vocab"])

        def forward(self, ids):
            x = F.dropout(self.tok(ids) + self.pos, p)
            for blk in self.blocks:
                x = (checkpoint(blk, x)
                     if config.get("variant") == "checkpoint" else blk(x))
            return self.head(self.ln(x))

    torch.manual_seed(0)
    return GPT().train()


def torch_child(config):
    """Runs in the counted process: prints one JSON line."""
    import torch
    import torch.nn.functional as F

    lib = ctypes.CDLL(None)
    for fn in ("alloc_counter_live", "alloc_counter_peak"):
        getattr(lib, fn).restype = ctypes.c_size_t
    torch.set_num_threads(os.cpu_count())
    b, s = config["batch"], config["seq"]
    model = make_gpt(config)
    ids = torch.randint(0, config["vocab"], (b, s))
    labels = torch.randint(0, config["vocab"], (b * s,))
    params = list(model.parameters())
    counted = sum(t.numel() * t.element_size() for t in params + [ids,
                                                                  labels])
    peaks, times = [], []
    for _ in range(config["steps"]):
        for t in params:
            t.grad = None
        before = lib.alloc_counter_live()
        lib.alloc_counter_reset_peak()
        start = time.perf_counter()
        loss = F.cross_entropy(model(ids).view(b * s, -1), labels)
        loss.backward()
        times.append((time.perf_counter() - start) * 1e3)
        peaks.append(lib.alloc_counter_peak() - before + counted)
        del loss
    print(json.dumps({"measured_peak_bytes": peaks[-1],
                      "step_time_ms": times[-1]}))


def import_gpt(config, path):
    """make_gpt(config) through echo.import_torch (its default: attention
    fused) into `path`; returns whether the imported step holds one fused
    causal echo.attention per layer and no S×S value."""
    import re
    from echo.frontend import import_module
    b, s = config["batch"], config["seq"]
    imported = import_module(make_gpt(config), [((b, s), "i32")],
                             "cross_entropy", ((b, s), "i32"), "gpt")
    with open(path, "w") as f:
        f.write(imported.text)
    fused = len(re.findall(r"echo\.attention .*causal = true",
                           imported.text)) == config["layers"]
    square = re.search(r"[<x]%dx%dx[fib]" % (s, s), imported.text)
    return fused and square is None


def run_torch(counter, config):
    env = dict(os.environ, LD_PRELOAD=counter,
               ECHO_LONG_CONTEXT_CONFIG=json.dumps(config))
    out = subprocess.run(["/usr/bin/python3", os.path.abspath(__file__),
                          "--child"], env=env, capture_output=True,
                         text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_echo(bin_dir, model, strategy, steps, report):
    subprocess.run([os.path.join(bin_dir, "echo-run"), model,
                    "--strategy=" + strategy, "--steps=%d" % steps,
                    "--quiet", "--report=" + report], check=True)
    with open(report) as f:
        r = json.load(f)[0]
    return {k: r[k] for k in ECHO_KEYS}


def main():
    if sys.argv[1:] == ["--child"]:
        torch_child(json.loads(os.environ["ECHO_LONG_CONTEXT_CONFIG"]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--seqs", default="512,2048")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--d_model", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=4096)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--skip-torch", action="store_true")
    parser.add_argument("--output", default=os.path.join(
        ROOT, "bench", "results", "long_context.json"))
    args = parser.parse_args()
    import machine
    from echo import models_gpt

    bin_dir = os.path.join(args.build, "bin")
    results = {"machine": machine.for_bench(measure=False),
               "config": {k: getattr(args, k) for k in (
                   "batch", "d_model", "heads", "layers", "vocab",
                   "dropout", "steps")}, "runs": []}
    with tempfile.TemporaryDirectory() as tmp:
        counter = None
        if not args.skip_torch:
            counter = os.path.join(tmp, "alloc_counter.so")
            subprocess.run(["cc", "-O2", "-shared", "-fPIC", os.path.join(
                ROOT, "bench", "peers", "alloc_counter.c"), "-o", counter],
                check=True)
        for seq in [int(s) for s in args.seqs.split(",")]:
            fused = os.path.join(tmp, "gpt%d.mlir" % seq)
            with open(fused, "w") as f:
                f.write(models_gpt.gpt(args.batch, seq, args.d_model,
                                       args.heads, args.layers, args.vocab,
                                       args.dropout))
            materialized = fused[:-5] + "-materialized.mlir"
            subprocess.run([os.path.join(bin_dir, "echo-opt"), fused,
                            "--echo-decompose-attention", "-o",
                            materialized], check=True)
            imported = fused[:-5] + "-imported.mlir"
            holds = import_gpt(dict(results["config"], seq=seq), imported)
            print("imported PyTorch GPT at S=%d: fused causal attention, no "
                  "S×S value: %s" % (seq, holds), flush=True)
            for name, model in [("echo fused", fused),
                                ("echo materialized", materialized),
                                ("echo imported (fused)", imported)]:
                for strategy in ["none", "echo"]:
                    r = run_echo(bin_dir, model, strategy, args.steps,
                                 os.path.join(tmp, "r.json"))
                    r.update(seq=seq, system=name, strategy=strategy)
                    if model == imported:
                        r["fused_no_square_value"] = holds
                    results["runs"].append(r)
                    print(json.dumps(r), flush=True)
            if counter:
                for variant in ["eager", "checkpoint"]:
                    config = dict(results["config"], seq=seq,
                                  variant=variant)
                    r = run_torch(counter, config)
                    r.update(seq=seq, system="pytorch " + variant)
                    results["runs"].append(r)
                    print(json.dumps(r), flush=True)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
