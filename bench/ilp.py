#!/usr/bin/python3
"""The budget strategy against the optimal reference (echo-ilp, CBC) on
graphs of up to a few hundred ops (not a test; writes JSON).

For each model (the bundled ones at their default sizes, and the 10-layer
chain of test/Tools/echo-ilp.mlir):
1. `echo-ilp --min-peak`: the smallest peak the integer program allows.
2. `echo-ilp --budget=B...` at `points` budgets spread evenly from that
   floor to the model's bytes with nothing recomputed: at each, the ILP's
   fewest recompute FLOPs (status, solve time, proven bound), its plan's
   estimated bytes after echo's rewrite, and the budget strategy's FLOPs at
   those same bytes (the `ratio`; above 1 the budget strategy recomputes
   more than the ILP) or that it has no plan that small.
3. bench/results/ilp.json ({"machine": bench/machine.py's record,
   "models": [...]}; solve times are the machine's), and a markdown table
   on stdout.

The comparison is on the estimate (MemoryAnalysis.h), where both plans are
rewritten by the same code; the target is a ratio <= 1.1 on graphs
of <= 300 ops.

Usage: bench/ilp.py [--build build] [--points 6] [--time-limit 30]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402

MODELS = {
    "chain": "test/Tools/echo-ilp.mlir",
    "mlp": "models/mlp.mlir",
    "resnet": "models/resnet.mlir",
    "transformer": "models/transformer.mlir",
    "lstm": "models/lstm.mlir",
}


def echo_ilp(tool, model, args, time_limit):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ilp.json")
        subprocess.run([tool, model, f"--time-limit={time_limit}", "-o", out]
                       + args, check=True, capture_output=True, text=True)
        with open(out) as f:
            return json.load(f)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--points", type=int, default=6)
    parser.add_argument("--time-limit", type=float, default=30)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    tool = os.path.join(args.build, "bin", "echo-ilp")

    record = machine.for_bench()
    results = []
    for name in args.models.split(","):
        model = os.path.join(ROOT, MODELS[name])
        floor = echo_ilp(tool, model, ["--min-peak"], args.time_limit)
        top = floor["model_base_bytes"]
        low = floor["min_peak"].get("model_peak_bytes", top)
        n = max(args.points, 2)
        budgets = sorted({round(low + (top - low) * i / (n - 1))
                          for i in range(n)}, reverse=True)
        run = echo_ilp(tool, model, [f"--budget={b}" for b in budgets],
                       args.time_limit)
        run["min_peak"] = floor["min_peak"]
        run["model"] = name
        results.append(run)

    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    path = os.path.join(ROOT, "bench", "results", "ilp.json")
    with open(path, "w") as f:
        json.dump({"machine": record, "models": results}, f, indent=1)

    print("| model | ops | may be recomputed | budget | ILP (solve s) | "
          "ILP recompute FLOPs / estimated bytes | budget strategy at those "
          "bytes | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        for p in r["points"]:
            ilp = p["ilp"]
            same = p.get("budget_at_ilp_bytes")
            if "recompute_flops" in ilp:
                mine = f"{ilp['recompute_flops']:,} / {ilp['estimated_bytes']:,}"
            else:
                mine = "-"
            if same and "recompute_flops" in same:
                theirs = (f"{same['recompute_flops']:,} / "
                          f"{same['estimated_bytes']:,} ({same['candidate']})")
            elif same:
                theirs = "no plan that small"
            else:
                theirs = "-"
            ratio = p.get("ratio")
            print(f"| {r['model']} | {r['ops']} | {r['candidates']} | "
                  f"{p['budget_bytes']:,} | {ilp['status']} "
                  f"({ilp['solve_seconds']:.2f}) | {mine} | {theirs} | "
                  f"{'-' if ratio is None else f'{ratio:.3f}'} |")
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
