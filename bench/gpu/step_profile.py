#!/usr/bin/python3
# (Not named profile.py: bench/gpu is the first entry of sys.path of the
# scripts beside it, and the standard library's profile module, which PyTorch
# imports, would be shadowed.)
"""Where a GPU step's device time goes, from ECHO_CUDA_PROFILE=1 reports.

Each REPORT is the --report JSON of a profiled run of echo-run --target=cuda
or of a bundle's echo-step:

  ECHO_CUDA_PROFILE=1 BUNDLE/echo-step --steps=3 --quiet --report=r.json

Prints, per report, the device time per step of Echo's generated kernels
and of cuBLAS and cuDNN calls, and the slowest kernels and calls (per step:
the profile sums every step of the run after the first, which loads the
kernels and cuBLAS's); writes them as JSON with --output.

Usage: bench/gpu/step_profile.py REPORT... [--top 8] [--output profile.json]
"""
import argparse
import json
import os
import sys


def summarize(path, top):
    with open(path) as f:
        report = json.load(f)[0]
    profile = report.get("kernel_profile")
    if profile is None:
        raise SystemExit(f"{path}: no kernel_profile (run the step with "
                         "ECHO_CUDA_PROFILE=1)")
    # The runtime leaves the first step out when more than one ran.
    steps = max(report.get("steps", 1), 1)
    steps = steps - 1 if steps > 1 else steps
    groups = {"generated kernels": 0.0, "cuBLAS": 0.0, "cuDNN": 0.0}
    launches = 0
    for e in profile:
        if e["kind"] == "kernel":
            groups["generated kernels"] += e["ms"]
            launches += e["calls"]
        elif e["name"].startswith("cublas"):
            groups["cuBLAS"] += e["ms"]
        else:
            groups["cuDNN"] += e["ms"]
    total = sum(groups.values())
    return {
        "report": os.path.basename(path),
        "device": report.get("device"),
        "steps": steps,
        "step_time_ms": report.get("step_time_ms"),
        "device_ms_per_step": total / steps,
        "ms_per_step": {k: v / steps for k, v in groups.items()},
        "launches_per_step": launches // steps,
        "slowest": [dict(e, ms=e["ms"] / steps, calls=e["calls"] // steps)
                    for e in profile[:top]],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--output")
    args = ap.parse_args()
    out = [summarize(p, args.top) for p in args.reports]
    for s in out:
        parts = ", ".join(f"{k} {v:.2f}" for k, v in s["ms_per_step"].items())
        print(f"{s['report']} ({s['device']}): {s['device_ms_per_step']:.2f} "
              f"ms of device time a step ({parts}; "
              f"{s['launches_per_step']} launches); step time "
              f"{s['step_time_ms']:.2f} ms profiled")
        for e in s["slowest"]:
            print(f"  {e['ms']:9.3f} ms  {e['calls']:5d}x  {e['name']} "
                  f"[{e['shape']}]")
    if args.output:
        with open(args.output, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
