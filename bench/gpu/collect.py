#!/usr/bin/python3
"""Gathers what bench/gpu/device.sh wrote on the GPU machine into
bench/results/gpu.json (then `bench/recompute.py --section gpu` renders
docs/results.md's GPU section from it).

Inputs, in DIR (the device tool's files): gpu.json (bench/gpu/run.py's
paper-size table), check.txt (CUDA against CPU over the bundled models),
cuda-reports.tar (each CUDA run's report: losses, device peak, cuDNN's
algorithms), profile.json (bench/gpu/step_profile.py: device time per kernel and
library call), kernels.json (the generated kernels' share of HBM bandwidth)
and faults.txt (the runtime's injected faults). The CPU reference reports
come from the bundles here (BUNDLES/check/*.cpu.json).

Usage: bench/gpu/collect.py DIR [--bundles gpu-bundles] [--output FILE]
"""
import argparse
import io
import json
import os
import re
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read(path):
    with open(path) as f:
        return f.read()


def check_results(directory, bundles):
    """model -> strategy -> the CUDA run against the CPU reference."""
    worst = {}
    for line in read(os.path.join(directory, "check.txt")).splitlines():
        m = re.match(r"(\S+) (\S+): worst relative error (\S+),", line)
        if m:
            worst[(m.group(1), m.group(2))] = float(m.group(3))
    out, algorithms = {}, {}
    with tarfile.open(os.path.join(directory, "cuda-reports.tar")) as tar:
        for member in tar.getmembers():
            name = os.path.basename(member.name)
            m = re.match(r"(.+)\.(\w+)\.cuda\.json$", name)
            if not m:
                continue
            model, strategy = m.groups()
            gpu = json.load(io.TextIOWrapper(tar.extractfile(member)))[0]
            row = {"device_peak_bytes": gpu["device_peak_bytes"],
                   "step_time_ms": gpu["step_time_ms"],
                   "losses": gpu["losses"], "device": gpu.get("device")}
            if gpu.get("conv_algorithms"):
                algorithms[f"{model} {strategy}"] = gpu["conv_algorithms"]
            cpu_path = os.path.join(bundles, "check",
                                    f"{model}.{strategy}.cpu.json")
            if os.path.exists(cpu_path):
                cpu = json.load(open(cpu_path))[0]
                row["cpu_losses"] = cpu["losses"]
                row["loss_relative_difference"] = max(
                    abs(a - b) / max(abs(a), 1e-6)
                    for a, b in zip(cpu["losses"], gpu["losses"]))
            if (model, strategy) in worst:
                row["worst_result_relative_error"] = worst[(model, strategy)]
            out.setdefault(model, {})[strategy] = row
    return out, algorithms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("directory")
    ap.add_argument("--bundles", default=os.path.join(ROOT, "gpu-bundles"))
    ap.add_argument("--output",
                    default=os.path.join(ROOT, "bench", "results", "gpu.json"))
    args = ap.parse_args()
    d = args.directory
    results = json.load(open(os.path.join(d, "gpu.json")))
    results["check"], results["conv_algorithms"] = check_results(
        d, args.bundles)
    results["check_failures"] = [
        line[6:] for line in read(os.path.join(d, "check.txt")).splitlines()
        if line.startswith("FAIL: ")]
    profile = os.path.join(d, "profile.json")
    if os.path.exists(profile):
        results["profile"] = json.load(open(profile))
    kernels = os.path.join(d, "kernels.json")
    if os.path.exists(kernels):
        results["kernels"] = json.load(open(kernels))
    results["faults"] = [l for l in read(os.path.join(d, "faults.txt"))
                         .splitlines() if l.startswith("fault ")]
    with open(args.output, "w") as f:
        json.dump(results, f, indent=2)
    print("wrote", args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
