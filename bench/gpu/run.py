#!/usr/bin/python3
"""GPU benchmark of the paper-size NMT and Transformer (not a test; JSON).

On a machine with an NVIDIA GPU and Echo built with the CUDA toolkit, runs
the paper-size NMT model (B=128, T=50, H=512, MLP attention, dropout 0.3)
and Transformer (B=32, S=128, d=512, 6 layers; bench/recompute.py's
configurations) with `echo-run --target=cuda` for none, mirror, echo,
echo with host offload and echo in bf16, recording `step_time_ms` (median of CUDA-event
times) and `device_peak_bytes`. When PyTorch is importable it also trains
the same architectures in PyTorch (eager; torch.utils.checkpoint around
each decoder step or block; torch.compile with --torch-compile) and records
torch.cuda.max_memory_allocated() and the median step time. Writes
bench/results/gpu.json and prints the markdown table that docs/results.md
shows. The JSON names the machine (bench/machine.py's record without the
CPU calibration: the CPU, and the GPUs nvidia-smi lists, else PyTorch's
device name) and, for bundles, the machine that compiled them (its full
record, written by --make-bundles as DIR/machine.json).

Usage: bench/gpu/run.py [--build build] [--steps 10] [--no-torch]
                        [--torch-compile] [--models nmt,transformer]
                        [--make-bundles DIR | --bundles DIR]

The GPU machines lent to this project have no MLIR: there, compile first
with --make-bundles (here) and run with --bundles (there); see
bench/gpu/device.sh.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(HERE))
from echo import models  # noqa: E402
import machine  # noqa: E402
from recompute import CONFIGS  # noqa: E402

# Each run: its echo-run flags (the bundle directory is nmt-<name>).
STRATEGIES = {
    "none": ["--strategy=none"],
    "mirror": ["--strategy=mirror"],
    "echo": ["--strategy=echo"],
    # Host offload on top of echo: the copy stream's overlap and
    # step time against echo's, under the schedule's PCIe 5.0 model.
    "echo-offload": ["--strategy=echo", "--offload=all",
                     "--link-bandwidth=50"],
    # Mixed precision: bf16 activations and cuBLAS's bf16 GEMMs (f32
    # accumulation, tensor cores), f32 master weights.
    "echo-bf16": ["--strategy=echo", "--precision=bf16"],
}


def run_echo(command, steps, tmp, strategy, timeout=None):
    """Runs `command` (echo-run --target=cuda, or a bundle's echo-step)."""
    report = os.path.join(tmp, f"{strategy}.json")
    subprocess.run(command + [f"--steps={steps}", "--quiet",
                              f"--report={report}"], check=True,
                   timeout=timeout)
    with open(report) as f:
        r = json.load(f)[0]
    return {"step_time_ms": r["step_time_ms"],
            "device_peak_bytes": r["device_peak_bytes"],
            "arena_bytes": r.get("planned_bytes"),
            "peak_live_bytes": r.get("peak_live_bytes"),
            "losses": r["losses"], "device": r.get("device")}


def run_torch_nmt(cfg, steps, variants):
    """The NMT model of python/echo/models.py:nmt in PyTorch."""
    import torch
    import torch.nn as nn
    from torch.utils.checkpoint import checkpoint

    dev = torch.device("cuda")
    B, S, T = cfg["batch"], cfg["src_len"], cfg["tgt_len"]
    V, E, H, A = cfg["vocab"], cfg["embed"], cfg["hidden"], cfg["attention"]
    p = cfg["dropout"]

    class NMT(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_embed = nn.Embedding(V, E)
            self.tgt_embed = nn.Embedding(V, E)
            self.encoder = nn.LSTMCell(E, H)
            self.init = nn.Linear(H, H)
            self.decoder = nn.LSTMCell(E + H, H)
            self.key = nn.Linear(H, A, bias=False)
            self.query = nn.Linear(H, A, bias=False)
            self.v = nn.Linear(A, 1, bias=False)
            self.attn_out = nn.Linear(2 * H, H)
            self.out = nn.Linear(H, V)
            self.drop = nn.Dropout(p)

        def step(self, y, a, h, c, keys, enc):
            h, c = self.decoder(torch.cat([y, a], 1), (h, c))
            score = self.v(torch.tanh(keys + self.query(h)[:, None])).squeeze(2)
            alpha = torch.softmax(score, 1)
            ctx = torch.bmm(alpha[:, None], enc).squeeze(1)
            a = self.drop(torch.tanh(self.attn_out(torch.cat([h, ctx], 1))))
            return a, h, c

        def forward(self, src, tgt, labels, ckpt):
            x = self.drop(self.src_embed(src))
            h = c = torch.zeros(B, H, device=dev)
            hs = []
            for s in range(S):
                h, c = self.encoder(x[:, s], (h, c))
                hs.append(h)
            enc = torch.stack(hs, 1)
            keys = self.key(enc)
            h, c = torch.tanh(self.init(hs[-1])), torch.zeros(B, H, device=dev)
            a = torch.zeros(B, H, device=dev)
            y = self.tgt_embed(tgt)
            outs = []
            for t in range(T):
                if ckpt:
                    a, h, c = checkpoint(self.step, y[:, t], a, h, c, keys,
                                         enc, use_reentrant=False)
                else:
                    a, h, c = self.step(y[:, t], a, h, c, keys, enc)
                outs.append(a)
            logits = self.out(torch.cat(outs, 0))
            return nn.functional.cross_entropy(logits, labels)

    def data():
        return (torch.randint(0, V, (B, S), device=dev),
                torch.randint(0, V, (B, T), device=dev),
                torch.randint(0, V, (T * B,), device=dev))

    return time_torch(NMT, data, steps, variants)


def time_torch(make_model, make_data, steps, variants):
    """Trains make_model() with SGD for `steps` steps per variant (eager,
    checkpoint, compile, and amp-bf16: eager under torch.autocast to bf16,
    the peer of echo-bf16); the median step time after the first and
    torch.cuda.max_memory_allocated()."""
    import torch
    results = {}
    for variant in variants:
        torch.manual_seed(0)
        model = make_model().to("cuda")
        fn = model
        if variant == "compile":
            fn = torch.compile(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        inputs = make_data()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16,
                                enabled=variant == "amp-bf16"):
                loss = fn(*inputs, variant == "checkpoint")
            loss.backward()
            opt.step()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - start) * 1e3)
        results[variant] = {
            "step_time_ms": statistics.median(times[1:] or times),
            "device_peak_bytes": torch.cuda.max_memory_allocated(),
            "device": torch.cuda.get_device_name()}
        del model, fn, opt, inputs
    return results


def run_torch_transformer(cfg, steps, variants):
    """The Transformer of python/echo/models.py:transformer in PyTorch
    (post-LN blocks, learned positions, a token-level classifier)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.checkpoint import checkpoint

    B, S, D, NH = cfg["batch"], cfg["seq"], cfg["d_model"], cfg["heads"]
    FF, L, V = cfg["ff"], cfg["layers"], cfg["vocab"]
    p, pa, pf = (cfg.get("dropout", 0.0), cfg.get("attention_dropout", 0.0),
                 cfg.get("act_dropout", 0.0))
    dh = D // NH

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Linear(D, D) for _ in
                                              range(4))
            self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
            self.ff1, self.ff2 = nn.Linear(D, FF), nn.Linear(FF, D)

        def heads(self, x):
            return x.view(B, S, NH, dh).transpose(1, 2).reshape(B * NH, S, dh)

        def forward(self, x):
            q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), \
                self.heads(self.v(x))
            a = torch.softmax(torch.bmm(q, k.transpose(1, 2)) / dh ** 0.5, 2)
            o = torch.bmm(F.dropout(a, pa), v).view(B, NH, S, dh)
            o = o.transpose(1, 2).reshape(B * S, D)
            x = self.ln1(x + F.dropout(self.o(o), p))
            f = F.dropout(torch.relu(self.ff1(x)), pf)
            return self.ln2(x + F.dropout(self.ff2(f), p))

    class Transformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(V, D)
            self.pos = nn.Parameter(torch.randn(S, D) * 0.02)
            self.blocks = nn.ModuleList(Block() for _ in range(L))
            self.out = nn.Linear(D, V)

        def forward(self, ids, labels, ckpt):
            x = (self.tok(ids) + self.pos).view(B * S, D)
            for b in self.blocks:
                x = checkpoint(b, x, use_reentrant=False) if ckpt else b(x)
            return F.cross_entropy(self.out(x), labels)

    def data():
        return (torch.randint(0, V, (B, S), device="cuda"),
                torch.randint(0, V, (B * S,), device="cuda"))

    return time_torch(Transformer, data, steps, variants)


def device_record():
    """The GPU machine: its CPU and GPUs, uncalibrated (the step runs on the
    GPU); the GPU's name from PyTorch where nvidia-smi gives none."""
    rec = machine.for_bench(measure=False)
    if not rec["gpus"]:
        try:
            import torch
            if torch.cuda.is_available():
                rec["gpus"] = [{"name": torch.cuda.get_device_name(),
                                "source": "torch"}]
                rec["summary"] = machine.summary(rec)
        except ImportError:
            pass
    return rec


TORCH = {"nmt": run_torch_nmt, "transformer": run_torch_transformer}


def save(results, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(results, f, indent=2)


def markdown(results):
    rows = ["| model | run | device peak (MiB) | step time (ms) |",
            "|---|---|---|---|"]
    for model, runs in results["models"].items():
        for name, r in list(runs["echo"].items()) + \
                [("pytorch " + k, v) for k, v in runs.get("torch", {}).items()]:
            rows.append(f"| {model} | {name} | "
                        f"{r['device_peak_bytes'] / 2**20:.0f} | "
                        f"{r['step_time_ms']:.2f} |")
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--torch-compile", action="store_true",
                    help="also time torch.compile (minutes of compilation "
                         "on the unrolled NMT)")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds for each run of a step's --steps")
    ap.add_argument("--models", default="nmt,transformer",
                    help="comma-separated: nmt, transformer")
    ap.add_argument("--strategies", default=",".join(STRATEGIES),
                    help="comma-separated, of: " + ", ".join(STRATEGIES))
    ap.add_argument("--make-bundles", metavar="DIR",
                    help="only compile the steps ahead of time into "
                         "DIR/<model>-<strategy> (echo-run --emit-aot; no "
                         "GPU needed), for a GPU machine without MLIR")
    ap.add_argument("--bundles", metavar="DIR",
                    help="run the bundles of --make-bundles instead of "
                         "echo-run")
    ap.add_argument("--output",
                    default=os.path.join(ROOT, "bench", "results", "gpu.json"))
    args = ap.parse_args()
    names = [m for m in args.models.split(",") if m]
    for m in names:
        if m not in TORCH:
            ap.error(f"unknown model '{m}' (nmt, transformer)")
    strategies = [s for s in args.strategies.split(",") if s]
    for s in strategies:
        if s not in STRATEGIES:
            ap.error(f"unknown strategy '{s}' ({', '.join(STRATEGIES)})")
    results = {"models": {}}
    if args.make_bundles:
        os.makedirs(args.make_bundles, exist_ok=True)
        with open(os.path.join(args.make_bundles, "machine.json"), "w") as f:
            json.dump(machine.for_bench(), f, indent=2)
    else:
        results["machine"] = device_record()
        compiled_on = os.path.join(args.bundles or "", "machine.json")
        if args.bundles and os.path.exists(compiled_on):
            with open(compiled_on) as f:
                results["compiled_on"] = json.load(f)
    echo_run = os.path.join(args.build, "bin", "echo-run")
    variants = ["eager", "checkpoint", "amp-bf16"] + (
        ["compile"] if args.torch_compile else [])
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            builder, cfg, _ = CONFIGS[name]
            runs = results["models"][name] = {"config": cfg, "echo": {}}
            model = os.path.join(tmp, f"{name}.mlir")
            with open(model, "w") as f:
                f.write(getattr(models, builder)(**cfg))
            for s in strategies:
                flags = STRATEGIES[s]
                bundle = f"{name}-{s}"
                if args.make_bundles:
                    subprocess.run([echo_run, model, "--target=cuda"] +
                                   flags + ["--emit-aot=" + os.path.join(
                                       args.make_bundles, bundle)],
                                   check=True)
                    continue
                if args.bundles:
                    command = [os.path.join(args.bundles, bundle, "echo-step")]
                    if not os.path.exists(command[0]):
                        print(f"{name} {s}: no bundle {bundle}",
                              file=sys.stderr)
                        continue
                else:
                    command = [echo_run, model, "--target=cuda"] + flags
                try:
                    runs["echo"][s] = run_echo(command, args.steps, tmp, s,
                                               args.timeout)
                except subprocess.CalledProcessError as e:
                    print(f"{name} {s}: the step exited with {e.returncode}",
                          file=sys.stderr)
                    runs["echo"][s] = {"failed": e.returncode}
                except subprocess.TimeoutExpired:
                    print(f"{name} {s}: the steps took over {args.timeout} s",
                          file=sys.stderr)
                    runs["echo"][s] = {"failed": "timeout"}
            if not args.make_bundles:  # what is measured so far is kept
                save(results, args.output)
            if args.make_bundles or args.no_torch:
                continue
            try:
                runs["torch"] = TORCH[name](cfg, args.steps, variants)
            except ImportError:
                print("PyTorch is not installed: skipping its runs",
                      file=sys.stderr)
            except Exception as e:  # e.g. out of memory: keep Echo's figures
                print(f"PyTorch {name}: {type(e).__name__}: {e}",
                      file=sys.stderr)
    if args.make_bundles:
        return 0
    failed = False
    for name, runs in results["models"].items():
        echo = runs["echo"]
        if any("failed" in r for r in echo.values()):
            failed = True
            continue
        if "none" not in echo or "echo" not in echo:
            continue
        none, e = echo["none"], echo["echo"]
        runs["targets"] = {
            "echo_peak_over_none": e["device_peak_bytes"]
            / none["device_peak_bytes"],
            "echo_time_over_none": e["step_time_ms"] / none["step_time_ms"]}
        if "echo-offload" in echo:
            runs["targets"]["offload_time_over_echo"] = \
                echo["echo-offload"]["step_time_ms"] / e["step_time_ms"]
        if "echo-bf16" in echo:
            runs["targets"]["bf16_peak_over_echo"] = \
                echo["echo-bf16"]["device_peak_bytes"] / e["device_peak_bytes"]
            runs["targets"]["bf16_time_over_echo"] = \
                echo["echo-bf16"]["step_time_ms"] / e["step_time_ms"]
        eager = runs.get("torch", {}).get("eager")
        if eager:
            runs["targets"]["echo_peak_over_pytorch_eager"] = \
                e["device_peak_bytes"] / eager["device_peak_bytes"]
        amp = runs.get("torch", {}).get("amp-bf16")
        if amp and "echo-bf16" in echo:
            runs["targets"]["echo_bf16_peak_over_pytorch_amp"] = \
                echo["echo-bf16"]["device_peak_bytes"] / amp["device_peak_bytes"]
    save(results, args.output)
    print(markdown({"models": {n: {"echo": {k: v for k, v in r["echo"].items()
                                             if "failed" not in v},
                                    "torch": r.get("torch", {})}
                               for n, r in results["models"].items()}}))
    print(json.dumps({n: r.get("targets") for n, r in
                      results["models"].items()}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
