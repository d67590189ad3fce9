#!/usr/bin/python3
"""Recompute priced in time: predicted against measured (not a test).

For each model (the NMT-like one of utils/run-demo.sh, B=64, T=30, H=256,
V=2000; the paper-size NMT, Transformer and ResNet of bench/recompute.py),
runs `echo-run --report` under strategy none and echo in one run each, with
the time model taken from this machine's calibration (`--machine`, the
record bench/machine.py caches: its SGEMM GFLOP/s as the peak, its triad
GB/s as the bandwidth), and records:

* predicted: echo's `recompute_seconds` (memory report) over none's
  `forward_seconds + backward_seconds` (the time model's share of none's
  step that recomputation adds);
* measured: echo's median step time over none's, less one;
* the measured bytes of both (`measured_peak_bytes`) and echo's recomputed
  ops, FLOPs and seconds.

Writes bench/results/recompute_time.json (with the machine record) and the
section "Recompute priced in time" of docs/results.md (bench/recompute.py's
replace_section; `bench/recompute.py --section recompute_time` rewrites it
from the JSON).

Usage: bench/recompute_time.py [--build build] [--models nmt-mid,nmt,...]
       [--steps 5] [--paper-steps 3] [--no-section]
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

# The demo's NMT (utils/run-demo.sh), then the paper-size models.
MID = {"nmt-mid": ("nmt", dict(batch=64, src_len=30, tgt_len=30, vocab=2000,
                               embed=256, hidden=256, dropout=0.3))}
MODELS = ["nmt-mid", "nmt", "transformer", "resnet"]
KEYS = ["step_time_ms", "measured_peak_bytes", "step_bytes",
        "peak_live_bytes", "recomputed_ops", "recompute_flops",
        "forward_flops", "backward_flops", "recompute_seconds",
        "forward_seconds", "backward_seconds", "compile_ms", "losses"]


def run(echo_run, model, strategy, steps, machine_file, threads):
    env = dict(os.environ)
    if threads:
        # OpenBLAS's and oneDNN's threads (one: the step on one core, the
        # other left to other processes).
        env.update(OPENBLAS_NUM_THREADS=str(threads),
                   OMP_NUM_THREADS=str(threads))
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        command = [echo_run, model, f"--strategy={strategy}",
                   f"--steps={steps}", "--quiet", f"--report={report}"]
        if machine_file:
            command.append(f"--machine={machine_file}")
        subprocess.run(command, check=True, env=env)
        r = json.load(open(report))[0]
        return {k: r.get(k) for k in KEYS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--steps", type=int, default=5,
                    help="steps of the NMT-like model (median)")
    ap.add_argument("--paper-steps", type=int, default=3,
                    help="steps of each paper-size model (median)")
    ap.add_argument("--threads", type=int, default=0,
                    help="library threads of each step (0: the libraries' "
                    "default, every core)")
    ap.add_argument("--no-section", action="store_true",
                    help="do not touch docs/results.md")
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "recompute_time.json"))
    args = ap.parse_args()
    echo_run = os.path.join(args.build, "bin", "echo-run")
    record = machine.for_bench()
    machine_file = machine.cache_path(record)
    if not os.path.exists(machine_file):
        machine_file = None  # the fixed defaults
    results = {"machine_file": machine_file, "models": {}}
    if os.path.exists(args.out):  # keep rows of models not re-run
        results = json.load(open(args.out))
        results["machine_file"] = machine_file
    measured = []
    configs = dict(MID)
    configs.update({k: (v[0], v[1]) for k, v in recompute.CONFIGS.items()})
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            builder, kwargs = configs[name]
            path = os.path.join(tmp, name + ".mlir")
            recompute.build_model(builder, kwargs, path)
            steps = args.steps if name in MID else args.paper_steps
            row = {"config": kwargs, "steps": steps,
                   "threads": args.threads or None}
            for strategy in ("none", "echo"):
                row[strategy] = run(echo_run, path, strategy, steps,
                                    machine_file, args.threads)
            e, n = row["echo"], row["none"]
            row["predicted_overhead"] = e["recompute_seconds"] / (
                n["forward_seconds"] + n["backward_seconds"])
            row["measured_overhead"] = (e["step_time_ms"] /
                                        n["step_time_ms"] - 1)
            row["none_over_echo_bytes"] = (n["measured_peak_bytes"] /
                                           e["measured_peak_bytes"])
            results["models"][name] = row
            measured.append(row)
            print(name, {k: row[k] for k in ("predicted_overhead",
                                             "measured_overhead",
                                             "none_over_echo_bytes")},
                  {s: (row[s]["step_time_ms"], row[s]["measured_peak_bytes"])
                   for s in ("none", "echo")}, file=sys.stderr, flush=True)
    machine.attach(results, record, measured)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    if not args.no_section:
        recompute.replace_section(recompute.recompute_time_markdown(),
                                  after="## Paper-size steps on the CPU")


if __name__ == "__main__":
    main()
