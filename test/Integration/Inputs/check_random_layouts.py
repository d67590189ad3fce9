"""Runs random graphs of echo.random_layouts (GEMM and convolution operands
that are views) with the library calls on and off under the strategies
given (see random-layouts.test).

    check_random_layouts.py --seed=S --count=N --work=DIR [--jobs=J]
        [--echo-run=echo-run] [--strategies=none,mirror,...] [--tolerance=T]

For each graph, one step (--optimizer=none: the loss and every gradient)
per strategy (default: none, mirror, sublinear, echo; budget is left out:
a byte budget that a random graph fits is a property of the graph, not of
its layouts), library calls on and off. Properties:

- every run succeeds (no runtime refuses an operand's layout);
- with the library calls on, the measured peak is the plan
  (measured_peak_bytes == step_bytes + the library workspace);
- every result of every run is the generated code's under none (library
  calls off) within --tolerance, norm-wise: ||a - b|| / max(||b||, 1e-5).

The tolerance bounds the summation order alone. Two orders of a sum of K
f32 products each differ from the exact sum by at most gamma_K = K u / (1 -
K u) times the sum of the products' magnitudes (u = 2^-24), so by 2 gamma_K
from each other: 5.7e-6 for the graphs' longest contraction (K = 48, a 4x3x4
convolution's C/groups KH KW), relative to the magnitudes. The graphs chain
a few such sums through tanh (1-Lipschitz) and sum them into one loss, and
cancellation (a result much smaller than its products' magnitudes) costs
up to sqrt(K) more: 1e-4 covers that. A layout that the runtime read wrong
reads other elements, an O(1) difference. The worst difference seen is
printed.

Prints one line per graph and a summary; exits 1 when a property fails.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

import numpy as np

from echo.random_layouts import generate

STRATEGIES = "none,mirror,sublinear,echo"


def run(echo_run, model, strategy, calls, work):
    tag = "%s.%s.%s" % (os.path.basename(model)[:-5], strategy,
                        "lib" if calls else "gen")
    dump = os.path.join(work, tag)
    report = dump + ".json"
    done = subprocess.run(
        [echo_run, "--opt-level=0", model, "--steps=1", "--optimizer=none",
         "--strategy=" + strategy, "--library-calls=%s" % str(calls).lower(),
         "--dump=" + dump, "--report=" + report, "--quiet"],
        capture_output=True, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        errors = [l for l in lines if "error" in l]
        return tag, None, None, (errors or lines)[:1]
    with open(report) as f:
        r = json.load(f)[0]
    outs = [np.load(os.path.join(dump, n)).astype(np.float64)
            for n in sorted(os.listdir(dump))]
    return tag, outs, r, None


def relative(a, b):
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-5))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--work", required=True)
    ap.add_argument("--echo-run", default="echo-run")
    ap.add_argument("--strategies", default=STRATEGIES)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    strategies = args.strategies.split(",")
    start = time.time()
    models = []
    for seed in range(args.seed, args.seed + args.count):
        path = os.path.join(args.work, "layouts%d.mlir" % seed)
        with open(path, "w") as f:
            f.write(generate(seed))
        models.append(path)
    jobs = [(m, s, c) for m in models for s in strategies
            for c in (False, True)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(zip(jobs, pool.map(
            lambda j: run(args.echo_run, j[0], j[1], j[2], args.work), jobs)))
    failures, worst = [], 0.0
    for model in models:
        name = os.path.basename(model)
        base = results[(model, "none", False)][1]
        graph_worst = 0.0
        for strategy in strategies:
            for calls in (False, True):
                tag, outs, report, error = results[(model, strategy, calls)]
                if error is not None:
                    failures.append("%s: echo-run failed: %s" % (
                        tag, " ".join(error)))
                    continue
                if calls and report["measured_peak_bytes"] != \
                        report["step_bytes"] + \
                        report["library_workspace_bytes"]:
                    failures.append("%s: measured %d != planned %d" % (
                        tag, report["measured_peak_bytes"],
                        report["step_bytes"] +
                        report["library_workspace_bytes"]))
                if base is None:
                    continue
                if len(outs) != len(base):
                    failures.append("%s: %d results, not %d" % (
                        tag, len(outs), len(base)))
                    continue
                for i, (a, b) in enumerate(zip(outs, base)):
                    d = relative(a, b)
                    graph_worst = max(graph_worst, d)
                    if d > args.tolerance:
                        failures.append("%s: result %d differs by %.2e" % (
                            tag, i, d))
        worst = max(worst, graph_worst)
        print("%s: %d runs, worst relative difference %.1e" % (
            name, 2 * len(strategies), graph_worst))
    print("%d graphs x %d strategies x library calls on/off: %d runs in "
          "%.0f s, worst relative difference %.1e (tolerance %.0e)" % (
              len(models), len(strategies), len(jobs), time.time() - start,
              worst, args.tolerance))
    for f in failures:
        print("FAILED " + f)
    print("random layouts: %s" % ("FAILED" if failures else
                                  "all properties hold"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
