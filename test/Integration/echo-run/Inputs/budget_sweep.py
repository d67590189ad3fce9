#!/usr/bin/python3
"""A budget sweep of an adopted step through echo-run --function.

  budget_sweep.py STEP.mlir OUTDIR POINTS -- ECHO_RUN [echo-run options]

Runs STEP under strategy none (its measured bytes are the top of the
sweep) and under a budget of 1 byte (refused: echo-run names the smallest
planned step, the bottom of the sweep), then under POINTS (default 6)
budgets in bytes spread evenly from the bottom to the top, each with
--report. Prints one line per point (budget, planned and measured bytes)
and then whether every point was met in measured bytes (measured <=
budget) and whether the measured bytes are monotone (never larger at a
smaller budget). Exit status 1 if either fails.
"""
import json
import os
import re
import subprocess
import sys


def run(echo_run, step, options, report=None, extra=()):
    cmd = echo_run + [step] + list(options) + list(extra) + ["--quiet"]
    if report:
        cmd.append("--report=" + report)
    return subprocess.run(cmd, capture_output=True, text=True)


def measured(path):
    with open(path) as f:
        r = json.load(f)
    r = r[0] if isinstance(r, list) else r
    return r["measured_peak_bytes"], r.get("step_bytes")


def main(argv):
    if "--" not in argv or len(argv) < 6:
        sys.exit(__doc__)
    i = argv.index("--")
    # echo-run and its options (lit's echo-run carries one of its own).
    argv, echo_run, options = argv[:i], argv[i + 1:i + 2], argv[i + 2:]
    step, out, points = argv[1], argv[2], int(argv[3])
    os.makedirs(out, exist_ok=True)
    p = run(echo_run, step, options, os.path.join(out, "none.json"),
            ["--strategy=none"])
    if p.returncode:
        sys.exit("budget_sweep: strategy none failed: " + p.stderr)
    top, _ = measured(os.path.join(out, "none.json"))
    p = run(echo_run, step, options, extra=["--budget=1"])
    m = re.search(r"smallest planned step found is (\d+) bytes", p.stderr)
    if p.returncode == 0 or not m:
        sys.exit("budget_sweep: a budget of 1 byte was not refused with the "
                 "smallest planned step: " + p.stderr)
    bottom = int(m.group(1))
    print("none: measured %d; smallest planned step: %d" % (top, bottom))
    rows = []
    for k in range(points):
        budget = bottom + (top - bottom) * k // (points - 1)
        report = os.path.join(out, "budget-%d.json" % k)
        p = run(echo_run, step, options, report, ["--budget=%d" % budget])
        if p.returncode:
            sys.exit("budget_sweep: --budget=%d failed: %s" % (budget,
                                                             p.stderr))
        got, planned = measured(report)
        rows.append((budget, planned, got))
        print("budget %d: planned %s, measured %d%s" % (
            budget, planned, got, "" if got <= budget else " OVER"))
    met = all(got <= budget for budget, _, got in rows)
    monotone = all(a[2] <= b[2] for a, b in zip(rows, rows[1:]))
    distinct = len(set(got for _, _, got in rows))
    print("every budget met: %s" % ("yes" if met else "no"))
    print("measured bytes monotone in the budget: %s" % (
        "yes" if monotone else "no"))
    print("distinct measured sizes: %d of %d" % (distinct, points))
    return 0 if met and monotone else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
