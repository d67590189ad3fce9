#!/usr/bin/python3
"""Planning time of adopted steps against their number of ops (not a test;
writes JSON).

Generates differentiated TOSA training steps of a chosen number of ops with
echo.adopt_steps (a deep MLP of matmul, ReLU and tanh layers; the same with
LayerNorm and GELU; a tanh RNN unrolled over time), each as AOTAutograd or
jax.grad would hand it over with its backward pass written out, and times

    echo-opt STEP --echo-foreign-step-pipeline="function=train_step loss=0
        strategy=S [budget=B]" -mlir-timing -o /dev/null

(adoption, recomputation, hand-back, the TOSA lowering, bufferization and
the buffer plan: the phases echo-run --function runs before it compiles)
for each strategy, recording the wall-clock seconds, the peak memory of the
compiler and each pass's wall time from -mlir-timing.

Writes bench/results/adopt_scaling.json with the machine record of
bench/machine.py.

Usage: bench/adopt_scaling.py [--build build] [--ops 500,1000,2000,4000]
       [--kinds mlp,mlp-norm,rnn] [--strategies echo,budget]
       [--budget 90%] [--batch 32] [--timeout 300]
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from echo import adopt_steps  # noqa: E402
import machine  # noqa: E402

TIMING = re.compile(r"^\s*[0-9.]+ \(\s*[0-9.]+%\)\s+([0-9.]+) \(\s*[0-9.]+%\)"
                    r"  ( *)(\S.*)$")


def parse_timing(text):
    """-mlir-timing's report -> ({pass: wall seconds}, total): nested
    passes as 'parent/pass'."""
    passes, total, stack = {}, None, []
    for line in text.splitlines():
        m = re.search(r"Total Execution Time: ([0-9.]+) seconds", line)
        if m:
            total = float(m.group(1))
            continue
        m = TIMING.match(line)
        if not m:
            continue
        level = len(m.group(2)) // 2
        stack = stack[:level] + [m.group(3).rstrip()]
        key = "/".join(stack)
        passes[key] = passes.get(key, 0.0) + float(m.group(1))
    return passes, total


def run(build, path, strategy, budget, timeout):
    opts = "function=train_step loss=0 strategy=%s" % strategy
    if strategy == "budget":
        opts += " budget=%s" % budget
    cmd = [os.path.join(build, "bin", "echo-opt"), path,
           "--echo-foreign-step-pipeline=%s" % opts, "-mlir-timing",
           "-o", os.devnull]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(strategy=strategy, timed_out=True, timeout_s=timeout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        # A budget below the smallest plan is refused: record the reason.
        return dict(strategy=strategy, budget=budget, wall_s=round(wall, 3),
                    error=p.stderr.splitlines()[0].split(": ", 2)[-1])
    passes, total = parse_timing(p.stderr)
    top = sorted(((v, k) for k, v in passes.items()
                  if "/" not in k and k != "Total"),
                 reverse=True)
    return dict(strategy=strategy, budget=budget if strategy == "budget"
                else None, wall_s=round(wall, 3),
                cpu_s=round(after.ru_utime + after.ru_stime -
                            before.ru_utime - before.ru_stime, 3),
                peak_rss_kib=after.ru_maxrss,
                timing_total_s=total,
                passes_s={k: round(v, 4) for k, v in passes.items()},
                slowest_pass=top[0][1] if top else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--ops", default="500,1000,2000,4000")
    ap.add_argument("--kinds", default="mlp,mlp-norm,rnn")
    ap.add_argument("--strategies", default="echo,budget")
    ap.add_argument("--budget", default="90%")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("-o", dest="output", default=os.path.join(
        ROOT, "bench", "results", "adopt_scaling.json"))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds.split(","):
            base, kw = kind.split("-")[0], dict(batch=args.batch)
            if kind == "mlp-norm":
                kw["norm"] = True
            for ops in [int(n) for n in args.ops.split(",")]:
                size = adopt_steps.size_for_ops(base, ops, **kw)
                text, count = adopt_steps.build(base, size, **kw)
                path = os.path.join(tmp, "%s-%d.mlir" % (kind, ops))
                with open(path, "w") as f:
                    f.write(text)
                for strategy in args.strategies.split(","):
                    r = run(args.build, path, strategy, args.budget,
                            args.timeout)
                    r.update(kind=kind, target_ops=ops, ops=count,
                             size=size)
                    rows.append(r)
                    print("%-8s %5d ops %-7s %s s (slowest: %s %.2f s)%s" % (
                        kind, count, strategy, r.get("wall_s", "timeout"),
                        r.get("slowest_pass"),
                        r.get("passes_s", {}).get(r.get("slowest_pass"), 0),
                        " " + r["error"] if "error" in r else ""),
                        flush=True)
    record = dict(
        description="Wall time of echo-opt --echo-foreign-step-pipeline on "
                    "generated adopted TOSA steps (echo.adopt_steps)",
        command="echo-opt STEP --echo-foreign-step-pipeline='function="
                "train_step loss=0 strategy=S [budget=B]' -mlir-timing "
                "-o /dev/null",
        date=time.strftime("%Y-%m-%d", time.gmtime()),
        machine=machine.describe(), rows=rows)
    with open(args.output, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print("wrote", args.output)


if __name__ == "__main__":
    main()
