#!/usr/bin/python3
"""Echo and PyTorch side by side on the CPU (not a test; writes JSON).

For the paper-size NMT (Echo ISCA 2020: B=128, T=50, H=512, V=8000, MLP
attention, dropout 0.3) and Transformer (Sockeye's, 6 layers), written in
PyTorch in bench/peers/torch_models.py and imported into Echo by
echo.import_torch (the same computation on both sides):

* the same initial weights and data, drawn here and written as .npy files
  that `echo-run --inputs` reads and PyTorch loads;
* equivalence: with dropout off, the losses of N SGD steps of Echo (strategy
  none and echo) and of PyTorch eager, from the same weights;
* speed: the median step time of each (same process conditions: 2 threads,
  one run after the other), Echo's compile time (MLIR and LLVM) and the
  ratio to PyTorch eager, with the model's dropout.

Usage: bench/peers/cpu_side_by_side.py [--build build] [--models nmt,...]
       [--steps 3] [--small]   (--small: bundled-size models, for a smoke run)
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

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402
import torch_models  # noqa: E402

PAPER = {
    "nmt": dict(batch=128, src_len=50, tgt_len=50, vocab=8000, embed=512,
                hidden=512, attention=512, dropout=0.3),
    "transformer": dict(batch=32, seq=128, d_model=512, heads=8, ff=2048,
                        layers=6, vocab=8000, dropout=0.1,
                        attention_dropout=0.1, act_dropout=0.1),
}
SMALL = {
    "nmt": dict(batch=4, src_len=5, tgt_len=5, vocab=20, embed=16, hidden=16,
                dropout=0.1),
    "transformer": dict(batch=2, seq=8, d_model=16, heads=2, ff=32,
                        layers=2, vocab=20, dropout=0.1,
                        attention_dropout=0.1, act_dropout=0.1),
}
DROPOUT_KEYS = ("dropout", "attention_dropout", "act_dropout")
LR = 0.1


def draw_arguments(arguments, mlir_text, seed):
    """Deterministic initial values: U(-1/sqrt(fan_in), ..) parameters, U(-1,
    1) data, integer data inside the range its uses accept."""
    import re
    rng = np.random.default_rng(seed)
    # ids index an embedding table; labels the classes of cross_entropy.
    vocab = int(re.search(r"tensor<(\d+)x\d+xf32> \{echo\.param\}",
                          mlir_text).group(1))
    values = []
    for name, shape, dtype, is_param in arguments:
        if dtype == "i32":
            values.append(rng.integers(0, vocab, size=shape, dtype=np.int32))
        elif is_param:
            fan_in = int(np.prod(shape[1:])) if len(shape) >= 2 else 0
            bound = 1.0 / np.sqrt(fan_in) if fan_in else 0.5
            values.append(rng.uniform(-bound, bound, size=shape)
                          .astype(np.float32))
        else:
            values.append(rng.uniform(-1, 1, size=shape).astype(np.float32))
    return values


def run_echo(echo_run, model_path, inputs, strategy, steps, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run([echo_run, model_path, f"--strategy={strategy}",
                        f"--steps={steps}", f"--lr={LR}", "--quiet",
                        f"--inputs={inputs}", f"--report={report}", *extra],
                       check=True)
        return json.load(open(report))[0]


def run_torch(name, kwargs, arguments, values, steps, threads):
    torch.set_num_threads(threads)
    peer = torch_models.PEERS[name](arguments, **kwargs)
    peer.load_arguments(values)
    peer.train()
    data = [torch.from_numpy(v) for v, a in zip(values, arguments)
            if not a[3]]
    opt = torch.optim.SGD(peer.parameters(), lr=LR)
    losses, times = [], []
    for _ in range(steps):
        start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = torch_models.loss(peer(*data[:-1]), data[-1])
        loss.backward()
        opt.step()
        times.append((time.perf_counter() - start) * 1e3)
        losses.append(float(loss))
    return {"losses": losses, "step_time_ms": statistics.median(times),
            "threads": threads}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="nmt,transformer")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "cpu_side_by_side.json"))
    args = ap.parse_args()
    echo_run = os.path.join(args.build, "bin", "echo-run")
    configs = SMALL if args.small else PAPER
    threads = os.cpu_count()
    results = {"machine": machine.for_bench(), "threads": threads,
               "steps": args.steps, "lr": LR, "torch": torch.__version__,
               "models": {}}
    for name in args.models.split(","):
        kwargs = configs[name]
        entry = {"config": kwargs}
        with tempfile.TemporaryDirectory() as tmp:
            for mode in ("same", "timed"):
                kw = dict(kwargs)
                if mode == "same":
                    kw.update({k: 0.0 for k in DROPOUT_KEYS if k in kw})
                text, arguments, _, import_s = torch_models.import_peer(
                    name, kw)
                row = {"import_s": import_s}
                path = os.path.join(tmp, f"{name}-{mode}.mlir")
                open(path, "w").write(text)
                values = draw_arguments(arguments, text, seed=1)
                inputs = os.path.join(tmp, f"inputs-{mode}")
                os.makedirs(inputs, exist_ok=True)
                for i, v in enumerate(values):
                    np.save(os.path.join(inputs, f"arg{i}.npy"), v)
                steps = args.steps
                for strategy in ("none", "echo"):
                    r = run_echo(echo_run, path, inputs, strategy, steps)
                    row["echo_" + strategy] = {
                        k: r[k] for k in ("losses", "step_time_ms",
                                          "compile_ms", "compile_mlir_ms",
                                          "compile_llvm_ms",
                                          "peak_live_bytes",
                                          "measured_peak_bytes")}
                    print(name, mode, strategy, row["echo_" + strategy],
                          file=sys.stderr)
                row["torch_eager"] = run_torch(name, kw, arguments, values,
                                               steps, threads)
                print(name, mode, "torch", row["torch_eager"],
                      file=sys.stderr)
                entry[mode] = row
        same = entry["same"]
        ref = same["torch_eager"]["losses"]
        entry["max_loss_rel_diff"] = max(
            abs(a - b) / max(abs(b), 1e-12)
            for s in ("echo_none", "echo_echo")
            for a, b in zip(same[s]["losses"], ref))
        timed = entry["timed"]
        entry["echo_over_torch"] = (timed["echo_none"]["step_time_ms"] /
                                    timed["torch_eager"]["step_time_ms"])
        entry["echo_strategy_over_none"] = (
            timed["echo_echo"]["step_time_ms"] /
            timed["echo_none"]["step_time_ms"])
        results["models"][name] = entry
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    print(json.dumps({n: {k: e[k] for k in ("max_loss_rel_diff",
                                             "echo_over_torch",
                                             "echo_strategy_over_none")}
                      for n, e in results["models"].items()}, indent=2))


if __name__ == "__main__":
    main()
