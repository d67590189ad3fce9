#!/usr/bin/python3
"""The budget strategy at paper size: Pareto curves and a 20-point sweep
(not a test; writes JSON and PNGs).

For each paper-size model (bench/recompute.py's configurations):
1. One compile with `strategy=budget budget=1.0 budget-table=...` and the
   pipeline's own bufferization as plan-pipeline: every candidate of the
   budget strategy with its recompute FLOPs and planned step bytes.
2. A sweep of `points` budgets from none's planned bytes down to the
   smallest candidate's (and one byte below it, which must be refused):
   each is its own compile (`echo-recompute strategy=budget budget=B`,
   planned by echo-bufferization-pipeline), and the sweep checks that every
   budget with a plan is met by the planned step bytes, that a smaller
   budget never gives a larger step, and that the refused ones are exactly
   those below the smallest candidate.
3. echo-run --budget at the top of the sweep and at `--run-points` budgets
   along it, 3 steps each (measured bytes: every byte the step allocated,
   the libraries' workspace reserved and counted; the median step time,
   and its ratio to the top's, measured in the same run).
4. bench/results/budget.json and docs/budget/<model>.png: footprint against
   recompute FLOPs, the candidates, the budget frontier, and none / mirror /
   sublinear / echo from bench/results/cpu_paper.json (measured runs).

Usage: bench/budget.py [--build build] [--models nmt,...] [--points 20]
       [--run-points 2]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402
import recompute  # noqa: E402

MODELS = ["nmt", "transformer", "resnet", "deepspeech2"]
STRATEGIES = ["none", "mirror", "sublinear", "echo"]
MIB = 1024.0 * 1024.0


def budget_compile(opt, model, budget, table=None):
    """Planned step bytes and recompute FLOPs of strategy=budget, or None
    when the budget is refused; the error text is returned then."""
    recompute_opts = (f"strategy=budget budget={budget} "
                      "plan-pipeline=echo-bufferization-pipeline")
    if table:
        recompute_opts += f" budget-table={table}"
    start = time.time()
    out = subprocess.run(
        [opt, model, "--echo-autodiff", f"--echo-recompute={recompute_opts}",
         "--echo-memory-report=attach=true", "--echo-bufferization-pipeline",
         "--echo-memory-report=output=-", "-o", os.devnull],
        capture_output=True, text=True)
    seconds = time.time() - start
    if out.returncode != 0:
        if "fits the budget" not in out.stderr:
            raise RuntimeError(out.stderr)
        return None, out.stderr.strip().splitlines()[0], seconds
    r = json.loads(out.stdout)[0]
    step = r["forward_flops"] + r["backward_flops"]
    return ({"step_bytes": r["step_bytes"],
             "recompute_flops": r["recompute_flops"],
             "recompute_share": r["recompute_flops"] / step}, None, seconds)


def budget_run(run, model, budget):
    """echo-run --budget: the measured bytes, or why the budget was refused
    (with the libraries' workspace reserved, a budget the compile-only sweep
    met may not fit)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        out = subprocess.run([run, model, f"--budget={budget}", "--steps=3",
                              "--quiet", f"--report={report}"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            if "fits the budget" not in out.stderr:
                raise RuntimeError(out.stderr)
            return {"refused": out.stderr.strip().splitlines()[0]}
        r = json.load(open(report))[0]
    return {k: r[k] for k in ("measured_peak_bytes", "step_bytes",
                              "library_workspace_bytes", "recompute_flops",
                              "compile_ms", "step_time_ms")}


def plot(name, entry, strategies, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    step = entry["step_flops"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    cands = [c for c in entry["candidates"] if c["step_bytes"] is not None]
    ax.scatter([100 * c["recompute_flops"] / step for c in cands],
               [c["step_bytes"] / MIB for c in cands], s=14, c="0.6",
               label="budget candidates (planned)", zorder=2)
    fitted = [p for p in entry["sweep"] if p["result"]]
    ax.step([100 * p["result"]["recompute_share"] for p in fitted],
            [p["result"]["step_bytes"] / MIB for p in fitted], where="post",
            c="C0", label=f"budget sweep ({len(entry['sweep'])} budgets)",
            zorder=3)
    ax.scatter([100 * p["result"]["recompute_share"] for p in fitted],
               [p["result"]["step_bytes"] / MIB for p in fitted], s=10,
               c="C0", zorder=3)
    markers = {"none": "s", "mirror": "^", "sublinear": "v", "echo": "*"}
    for s, r in strategies.items():
        ax.scatter([100 * r["recompute_flops"] / step],
                   [(r["measured_peak_bytes"] - r["library_workspace_bytes"])
                    / MIB], marker=markers[s], s=70, zorder=4, label=s)
    ax.set_xscale("symlog", linthresh=0.1)
    ax.set_xlabel("recompute FLOPs, % of the step")
    ax.set_ylabel("planned step bytes, MiB")
    ax.set_title(f"{name}: footprint vs recompute (strategy=budget)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--points", type=int, default=20)
    ap.add_argument("--run-points", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                  "budget.json"))
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "echo-opt")
    run = os.path.join(args.build, "bin", "echo-run")
    results = {"points": args.points, "models": {}}
    if os.path.exists(args.out):
        results = json.load(open(args.out))
    record = machine.for_bench()
    paper = json.load(open(os.path.join(ROOT, "bench", "results",
                                        "cpu_paper.json")))["models"]
    os.makedirs(os.path.join(ROOT, "docs", "budget"), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            builder, kwargs, _ = recompute.CONFIGS[name]
            model = os.path.join(tmp, name + ".mlir")
            recompute.build_model(builder, kwargs, model)
            table_path = os.path.join(tmp, name + ".table.json")
            first, _, seconds = budget_compile(opt, model, "1.0", table_path)
            table = json.load(open(table_path))[0]
            cands = table["candidates"]
            none_bytes = table["none_bytes"]
            smallest = min(c["step_bytes"] for c in cands)
            entry = {"config": kwargs, "none_bytes": none_bytes,
                     "smallest_bytes": smallest, "candidates": cands,
                     "table_compile_s": seconds, "sweep": []}
            p = paper.get(name, {})
            entry["step_flops"] = (p["none"]["forward_flops"] +
                                   p["none"]["backward_flops"]
                                   if "none" in p else None)
            budgets = [none_bytes - (none_bytes - smallest) * i //
                       (args.points - 2) for i in range(args.points - 1)]
            budgets.append(smallest - 1)
            failures = []
            previous = None
            for b in budgets:
                r, refused, seconds = budget_compile(opt, model, b)
                entry["sweep"].append({"budget": b, "result": r,
                                       "refused": refused,
                                       "compile_s": seconds})
                print(name, b, r, refused, f"{seconds:.1f}s",
                      file=sys.stderr, flush=True)
                if r is None:
                    if b >= smallest:
                        failures.append(f"{b} refused")
                    continue
                if b < smallest:
                    failures.append(f"{b} below the smallest was accepted")
                if r["step_bytes"] > b:
                    failures.append(f"{b}: planned {r['step_bytes']}")
                if previous is not None and r["step_bytes"] > previous:
                    failures.append(f"{b}: {r['step_bytes']} > {previous}")
                previous = r["step_bytes"]
            entry["sweep_failures"] = failures
            entry["monotone_and_met"] = not failures
            runs = []
            fitted = [s["budget"] for s in entry["sweep"] if s["result"]]
            picks = [fitted[(len(fitted) - 1) * (k + 1) //
                            (args.run_points + 1)]
                     for k in range(args.run_points)] if fitted else []
            # The top of the sweep (none's bytes) first: the step times
            # along the curve are compared with it, measured in the same run.
            if picks and fitted[0] not in picks:
                picks.insert(0, fitted[0])
            for b in picks:
                r = budget_run(run, model, b)
                r["budget"] = b
                r["met"] = ("refused" in r or
                            r["measured_peak_bytes"] <= b)
                if "step_time_ms" in r and runs and "step_time_ms" in runs[0]:
                    r["step_time_vs_top"] = (r["step_time_ms"] /
                                             runs[0]["step_time_ms"])
                runs.append(r)
                print(name, "run", r, file=sys.stderr, flush=True)
            entry["runs"] = runs
            results["models"][name] = entry
            machine.attach(results, record, [entry])
            strategies = {s: p[s] for s in STRATEGIES if s in p}
            if entry["step_flops"]:
                plot(name, entry, strategies,
                     os.path.join(ROOT, "docs", "budget", name + ".png"))
            with open(args.out, "w") as f:
                json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
