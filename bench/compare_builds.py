#!/usr/bin/python3
"""Two builds of Echo side by side on the paper-size steps (not a test;
writes JSON).

Runs `echo-run --report` of a base build and of a new build on the same
model, alternating the two (base, new, base, new, ...) so that both see the
same machine load, and records per build the median step time, the compile
time, the measured bytes and the losses; the result is the new build's step
time over the base's (median over runs of each run's median step). Used to
show that a change (e.g. accurate f32 sums) costs no speed.

Usage: bench/compare_builds.py --base build-old --new build
       [--models nmt,transformer,resnet,deepspeech2] [--strategy echo]
       [--steps 3] [--runs 2] [--out path]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import recompute  # noqa: E402


def run(build, model, strategy, steps):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run([os.path.join(build, "bin", "echo-run"), model,
                        "--strategy=" + strategy, "--steps=%d" % steps,
                        "--quiet", "--report=" + report], check=True)
        r = json.load(open(report))[0]
    return {k: r.get(k) for k in ("step_time_ms", "compile_ms",
                                  "measured_peak_bytes", "losses")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="the base build directory")
    ap.add_argument("--new", required=True, help="the new build directory")
    ap.add_argument("--models", default="nmt,transformer,resnet,deepspeech2")
    ap.add_argument("--strategy", default="echo")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                  "compare_builds.json"))
    args = ap.parse_args()

    results = {"machine": {"cpu": platform.processor() or platform.machine(),
                           "cores": os.cpu_count(),
                           "load_average": os.getloadavg()},
               "date": time.strftime("%Y-%m-%d"), "base": args.base,
               "new": args.new, "strategy": args.strategy,
               "steps": args.steps, "runs": args.runs, "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            builder, kwargs, _ = recompute.CONFIGS[name]
            path = os.path.join(tmp, name + ".mlir")
            recompute.build_model(builder, kwargs, path)
            runs = {"base": [], "new": []}
            for _ in range(args.runs):
                for which in ("base", "new"):
                    r = run(getattr(args, which), path, args.strategy,
                            args.steps)
                    runs[which].append(r)
                    print(name, which, r["step_time_ms"], r["compile_ms"],
                          file=sys.stderr, flush=True)
            step = {w: statistics.median(r["step_time_ms"] for r in runs[w])
                    for w in runs}
            results["models"][name] = {
                "runs": runs, "base_step_ms": step["base"],
                "new_step_ms": step["new"],
                "new_over_base": step["new"] / step["base"],
                "measured_bytes_new_over_base":
                    runs["new"][0]["measured_peak_bytes"] /
                    runs["base"][0]["measured_peak_bytes"]}
            print("%s: step %.0f -> %.0f ms (%.3fx), measured bytes %.4fx" % (
                name, step["base"], step["new"], step["new"] / step["base"],
                results["models"][name]["measured_bytes_new_over_base"]),
                flush=True)
    results["machine"]["load_average_after"] = os.getloadavg()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
