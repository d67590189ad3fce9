#!/usr/bin/python3
"""Memory by category of the paper-size NMT step (not a test; writes JSON).

Builds the NMT configuration of bench/recompute.py (Echo ISCA 2020's
NMT: batch 128, 50+50 steps, vocabulary 8000, 512 units), runs
`echo-run --report` for one or two steps per strategy (none, echo) on the
CPU, and keeps each report's `categories` (docs/Contract.md): estimated at
the estimate's peak, planned at the plan's peak, measured (the counting
allocator's bytes attributed by the plan, the workspace measured). With
`--snapshots DIR`, also writes each plan as a PyTorch memory snapshot
(python/echo/memory_snapshot.py), DIR/nmt-<strategy>.pickle (about 2 MiB
each, not kept in the repository).

Writes bench/results/memory_categories.json; `bench/recompute.py --section
memory_categories` puts the table in docs/results.md.

Usage: bench/memory_categories.py [--build build] [--steps 1]
       [--strategies none,echo] [--snapshots DIR]
"""
import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from echo import memory_snapshot  # noqa: E402
import machine  # noqa: E402
import recompute  # noqa: E402

KEYS = ["peak_live_bytes", "planned_bytes", "step_bytes",
        "measured_peak_bytes", "library_workspace_bytes",
        "feature_map_bytes", "losses", "step_time_ms"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--strategies", default="none,echo")
    ap.add_argument("--snapshots", default=None,
                    help="write each plan as a PyTorch memory snapshot here")
    args = ap.parse_args()
    run = os.path.join(args.build, "bin", "echo-run")
    out_dir = os.path.join(ROOT, "bench", "results")
    os.makedirs(out_dir, exist_ok=True)
    builder, kwargs, _ = recompute.CONFIGS["nmt"]
    results = {"machine": machine.for_bench(measure=False), "model": "nmt",
               "config": kwargs, "steps": args.steps, "strategies": {}}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "nmt.mlir")
        recompute.build_model(builder, kwargs, path)
        for strategy in args.strategies.split(","):
            report = os.path.join(tmp, f"nmt-{strategy}.json")
            subprocess.run([run, path, f"--strategy={strategy}",
                            f"--steps={args.steps}", f"--report={report}"],
                           check=True, stdout=subprocess.DEVNULL)
            with open(report) as f:
                step = json.load(f)[0]
            entry = {k: step.get(k) for k in KEYS}
            entry["categories"] = step["categories"]
            results["strategies"][strategy] = entry
            if args.snapshots:
                os.makedirs(args.snapshots, exist_ok=True)
                with open(os.path.join(args.snapshots,
                                       f"nmt-{strategy}.pickle"), "wb") as f:
                    pickle.dump(memory_snapshot.snapshot(step), f)
            print(strategy, json.dumps(entry["categories"]), file=sys.stderr)
    path = os.path.join(out_dir, "memory_categories.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
