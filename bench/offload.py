#!/usr/bin/python3
"""Host offload at paper size (not a test; writes JSON and markdown).

For the paper-size ResNet and NMT (bench/recompute.py's configurations):

1. Compile only (echo-opt, the pipeline's own bufferization planning each
   step): none, echo, echo with offload=heavy and offload=all, and the
   smallest step of strategy=budget with offload=all, each under the
   bandwidth model at a PCIe 4.0 link (25 GB/s) and a PCIe 5.0 one
   (50 GB/s): planned device step bytes, host pool bytes, transfer and
   unhidden seconds and the model's compute seconds.
2. Measured on the CPU (echo-run --steps=1 at 25 GB/s): none, echo and
   echo+offload: every byte the step allocated (the device's bytes on a
   GPU) and the counted host pool beside them, and whether the loss is
   bitwise the same as none's.

Writes bench/results/offload.json. Usage: bench/offload.py [--build build]
[--models resnet,nmt] [--no-run] [--runs LABEL,...] (--no-run keeps the
measured runs of the results file; --runs redoes only those runs)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402
import recompute  # noqa: E402

LINKS = [25, 50]
COMPILES = {
    "none": "strategy=none",
    "echo": "strategy=echo",
    "echo+offload heavy": "strategy=echo offload=heavy",
    "echo+offload all": "strategy=echo offload=all",
}
RUNS = {
    "none": ["--strategy=none"],
    "echo": ["--strategy=echo"],
    "echo+offload all": ["--strategy=echo", "--offload=all"],
    "echo+offload all at 50 GB/s": ["--strategy=echo", "--offload=all",
                                     "--link-bandwidth=50"],
}
KEYS = ("step_bytes", "peak_live_bytes", "recompute_flops", "host_peak_bytes",
        "offloaded_values", "transfer_bytes", "compute_seconds",
        "transfer_seconds", "unhidden_transfer_seconds")


def compile_report(opt, step, options):
    """The memory report of `step` (after autodiff) planned by the
    pipeline's bufferization, or the first error line."""
    start = time.time()
    out = subprocess.run(
        [opt, step, f"--echo-recompute={options} "
         "plan-pipeline=echo-bufferization-pipeline",
         "--echo-memory-report=attach=true", "--echo-bufferization-pipeline",
         "--echo-memory-report=output=-", "-o", os.devnull,
         "--mlir-print-op-on-diagnostic=false"],
        capture_output=True, text=True)
    seconds = time.time() - start
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[0]}
    r = json.loads(out.stdout)[0]
    result = {k: r.get(k, 0) for k in KEYS}
    result["compile_s"] = seconds
    return result


def smallest_budget(opt, step, link):
    """strategy=budget offload=all at a budget of one byte: the error names
    the smallest planned step found; that step is then compiled."""
    out = subprocess.run(
        [opt, step, "--echo-recompute=strategy=budget budget=1 offload=all "
         f"link-bandwidth={link} plan-pipeline=echo-bufferization-pipeline",
         "-o", os.devnull, "--mlir-print-op-on-diagnostic=false"],
        capture_output=True, text=True)
    m = re.search(r"smallest planned step found is (\d+) bytes \((.*), "
                  r"(\d+) recompute FLOPs\)", out.stderr)
    if not m:
        raise RuntimeError(out.stderr)
    result = compile_report(
        opt, step, f"strategy=budget budget={m.group(1)} offload=all "
        f"link-bandwidth={link}")
    result["candidate"] = m.group(2)
    return result


def run(echo_run, model, args):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        out = subprocess.run([echo_run, model, "--steps=1", f"--report={report}"]
                             + args, capture_output=True, text=True)
        if out.returncode != 0:
            return {"error": out.stderr.strip().splitlines()[-1]}
        r = json.load(open(report))[0]
    keep = ("measured_peak_bytes", "measured_host_peak_bytes", "step_bytes",
            "library_workspace_bytes", "host_peak_bytes", "losses",
            "step_time_ms", "compile_ms", "offloaded_values")
    return {k: r[k] for k in keep if k in r}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="resnet,nmt")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--runs", default="",
                    help="only these measured runs (comma-separated labels), "
                    "the others kept from the results file; implies no "
                    "compile-only rows are redone")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                  "offload.json"))
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "echo-opt")
    echo_run = os.path.join(args.build, "bin", "echo-run")
    results = {"links_gbps": LINKS, "models": {}}
    if os.path.exists(args.out):
        results = json.load(open(args.out))
    record = machine.for_bench()
    measured = []  # the rows of this run, stamped with its machine
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            builder, kwargs, _ = recompute.CONFIGS[name]
            model = os.path.join(tmp, name + ".mlir")
            recompute.build_model(builder, kwargs, model)
            step = os.path.join(tmp, name + ".step.mlir")
            subprocess.run([opt, model, "--echo-autodiff", "-o", step],
                           check=True)
            entry = {"config": kwargs, "compile": {}, "measured": {}}
            old = results["models"].get(name, {})
            if (args.no_run or args.runs) and old:
                entry["measured"] = old.get("measured", {})
            if args.runs and old:
                entry["compile"] = old.get("compile", {})
            for link in LINKS if not (args.runs and old) else []:
                rows = {}
                for label, options in COMPILES.items():
                    if "offload" not in label and link != LINKS[0]:
                        continue
                    rows[label] = compile_report(
                        opt, step, f"{options} link-bandwidth={link}")
                    print(name, link, label, rows[label], flush=True)
                rows["budget+offload smallest"] = smallest_budget(opt, step,
                                                                  link)
                print(name, link, "budget", rows["budget+offload smallest"],
                      flush=True)
                entry["compile"][str(link)] = rows
                measured.extend(rows.values())
            if not args.no_run:
                for label, flags in RUNS.items():
                    if args.runs and label not in args.runs.split(","):
                        continue
                    entry["measured"][label] = run(echo_run, model, flags)
                    measured.append(entry["measured"][label])
                    print(name, "run", label, entry["measured"][label],
                          flush=True)
                none = entry["measured"].get("none", {}).get("losses")
                for label, r in entry["measured"].items():
                    if "losses" in r:
                        r["bitwise_as_none"] = r["losses"] == none
            results["models"][name] = entry
    machine.attach(results, record, measured)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
