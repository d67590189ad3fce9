#!/usr/bin/python3
"""Paper-size training steps on the CPU (not a test; writes JSON).

For the NMT, Transformer, ResNet and DeepSpeech2 configurations of
bench/recompute.py (Echo ISCA 2020, Section VI), and each recompute
strategy, runs `echo-run --report` (GEMMs through OpenBLAS, convolutions
through oneDNN) and records the compile time (MLIR passes and LLVM code
generation), the median step time, the memory report's estimate and plan,
the memory the step measured (every byte it allocated) and the losses. It
also measures how compile time grows with the number of
ops, on unrolled LSTMs of increasing length.

Writes bench/results/cpu_paper.json; bench/recompute.py puts the tables in
docs/results.md.

Usage: bench/cpu_paper.py [--build build] [--models nmt,...]
       [--strategies none,echo,"echo bf16",...] [--steps 3] [--no-scaling]
       (the strategies, and the variants of VARIANTS: the loss whole, bf16,
       the budget strategy with both; a run that fails is recorded with its
       error)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from echo import models  # noqa: E402
import machine  # noqa: E402
import recompute  # noqa: E402

MODELS = ["nmt", "transformer", "resnet", "deepspeech2"]
STRATEGIES = ["none", "mirror", "sublinear", "echo"]
# The memory levers beyond the paper, as rows beside the strategies: a
# strategy and echo-run's flags. echo chunks the loss by default
# (chunk-loss=auto); "echo loss whole" keeps it whole, "echo bf16" runs in
# bf16 (mixed precision), "budget+both" is the budget strategy at 50% of
# none's bytes with the loss chunked where it picks it, in bf16.
VARIANTS = {
    "echo loss whole": ("echo", ["--chunk-loss=off"]),
    "echo bf16": ("echo", ["--precision=bf16"]),
    "budget+both": ("budget", ["--budget=0.5", "--precision=bf16"]),
}
KEYS = ["compile_ms", "compile_mlir_ms", "compile_llvm_ms", "step_time_ms",
        "losses", "peak_live_bytes", "planned_bytes", "step_bytes",
        "measured_peak_bytes", "library_workspace_bytes", "recompute_flops",
        "forward_flops", "backward_flops"]


def echo_run(echo_run_bin, model, strategy, steps):
    strategy, flags = VARIANTS.get(strategy, (strategy, []))
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        run = subprocess.run([echo_run_bin, model, f"--strategy={strategy}",
                              f"--steps={steps}", "--quiet",
                              f"--report={report}"] + flags,
                             capture_output=True, text=True)
        if run.returncode != 0:
            return {"error": run.stderr.strip().splitlines()[0]}
        r = json.load(open(report))[0]
        return {k: r.get(k) for k in KEYS}


def count_ops(echo_opt, model):
    out = subprocess.run([echo_opt, model, "--echo-autodiff",
                          "--mlir-print-op-generic"], check=True,
                         capture_output=True, text=True).stdout
    return out.count('= "echo.') + out.count(' "echo.')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                  "cpu_paper.json"))
    args = ap.parse_args()
    run_bin = os.path.join(args.build, "bin", "echo-run")
    opt_bin = os.path.join(args.build, "bin", "echo-opt")
    results = {"cores": os.cpu_count(), "steps": args.steps, "models": {},
               "scaling": []}
    if os.path.exists(args.out):  # keep rows of models not re-run
        results = json.load(open(args.out))
        results["steps"] = args.steps
        # Rows kept from an earlier run keep their machine: stamped with
        # its record's key (and the record kept) before this run's replaces
        # it.
        earlier = results.get("machine")
        if isinstance(earlier, dict):
            key = earlier.get("key", "earlier")
            results.setdefault("machines", {}).setdefault(key, earlier)
            rows = [r for e in results["models"].values()
                    for r in e.values() if isinstance(r, dict)]
            for row in rows + results.get("scaling", []):
                if "measured_peak_bytes" in row or "seq_len" in row:
                    row.setdefault("machine_key", key)
    record = machine.for_bench()
    measured = []  # the rows of this run, stamped with its machine
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            builder, kwargs, _ = recompute.CONFIGS[name]
            path = os.path.join(tmp, name + ".mlir")
            recompute.build_model(builder, kwargs, path)
            entry = results["models"].setdefault(name, {"config": kwargs})
            for strategy in args.strategies.split(","):
                r = echo_run(run_bin, path, strategy, args.steps)
                entry[strategy] = r
                measured.append(r)
                print(name, strategy, {k: r.get(k) for k in
                                       ("compile_ms", "step_time_ms",
                                        "peak_live_bytes",
                                        "measured_peak_bytes", "error")},
                      file=sys.stderr, flush=True)
            if "none" in entry and "echo" in entry:
                entry["echo_step_over_none"] = (entry["echo"]["step_time_ms"] /
                                                entry["none"]["step_time_ms"])
                entry["none_over_echo_measured"] = (
                    entry["none"]["measured_peak_bytes"] /
                    entry["echo"]["measured_peak_bytes"])
        if not args.no_scaling:
            results["scaling"] = []
            for seq_len in (25, 50, 100, 200):
                path = os.path.join(tmp, f"lstm{seq_len}.mlir")
                with open(path, "w") as f:
                    f.write(models.lstm(batch=32, seq_len=seq_len, input=64,
                                        hidden=128, classes=10, layers=4))
                r = echo_run(run_bin, path, "echo", 1)
                row = {"seq_len": seq_len,
                       "train_step_ops": count_ops(opt_bin, path),
                       "compile_mlir_ms": r["compile_mlir_ms"],
                       "compile_llvm_ms": r["compile_llvm_ms"]}
                results["scaling"].append(row)
                measured.append(row)
                print("scaling", row, file=sys.stderr, flush=True)
    machine.attach(results, record, measured)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
