#!/usr/bin/python3
"""The chunked output layer and loss at paper size (not a test; writes JSON).

For the NMT of bench/recompute.py (B=128, T=50, H=512, V=8000: logits
[6400, 8000] f32, 204.8 MB), records what `chunk-loss=auto` decides at
heavy budgets of 1% (the default) and 20% (echo-opt's memory report), then
runs `echo-run --report --dump` for none, echo, and echo with the loss in
the chunks auto chose at 20% (`--chunk-loss=K`), and none with them: the
planned and measured bytes, the median step time, the compile time, and
the loss and every gradient against none's (relative, on the norm).

Writes bench/results/chunk_loss.json and puts its section in
docs/results.md (recompute.chunk_loss_markdown, which bench/recompute.py's
full regeneration also writes): replaced where the section is, else
inserted before the section that follows the paper-size CPU steps.
`--markdown` only rewrites the section from the JSON.

Usage: bench/chunk_loss.py [--build build] [--steps 3] [--repeats 2]
                           [--markdown]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import recompute  # noqa: E402

KEYS = ["compile_ms", "compile_mlir_ms", "compile_llvm_ms", "step_time_ms",
        "losses", "peak_live_bytes", "planned_bytes", "step_bytes",
        "measured_peak_bytes", "library_workspace_bytes", "recompute_flops",
        "forward_flops", "backward_flops", "loss_chunks",
        "logits_bytes_saved"]
HEAVY_BUDGETS = [0.01, 0.2]


def estimate(echo_opt, model, heavy_budget):
    out = subprocess.run(
        [echo_opt, model, "--echo-autodiff",
         f"--echo-recompute=strategy=echo heavy-budget={heavy_budget} "
         "chunk-loss=auto", "--echo-memory-report", "-o", os.devnull],
        check=True, capture_output=True, text=True)
    r = json.loads(out.stdout)[0]
    return {k: r[k] for k in ["peak_live_bytes", "recompute_flops",
                              "forward_flops", "backward_flops",
                              "loss_chunks", "logits_bytes_saved"]}


def echo_run(echo_run_bin, model, options, steps, dump):
    report = dump + ".json"
    subprocess.run([echo_run_bin, model] + options +
                   [f"--steps={steps}", "--quiet", f"--report={report}",
                    f"--dump={dump}"], check=True)
    r = json.load(open(report))[0]
    return {k: r.get(k) for k in KEYS}  # step_time_ms: the median step


def compare(dump_a, dump_b):
    """Relative differences (on the norm) of each result, and how many are
    bitwise equal."""
    worst, bitwise, outputs = 0.0, 0, sorted(os.listdir(dump_a))
    for name in outputs:
        a = np.load(os.path.join(dump_a, name)).astype(np.float64)
        b = np.load(os.path.join(dump_b, name)).astype(np.float64)
        if np.array_equal(a, b):
            bitwise += 1
            continue
        worst = max(worst, float(np.linalg.norm(a - b) /
                                 max(np.linalg.norm(a), 1e-30)))
    return {"results": len(outputs), "bitwise": bitwise,
            "worst_relative": worst}


def write_section():
    """docs/results.md with this benchmark's section from its JSON (new:
    after the paper-size CPU steps)."""
    recompute.replace_section(recompute.chunk_loss_markdown(),
                              after="## Paper-size steps on the CPU")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3,
                    help="run the list this many times, alternating; the "
                    "table takes each run's fastest median step")
    ap.add_argument("--markdown", action="store_true",
                    help="only rewrite docs/results.md's section from "
                    "bench/results/chunk_loss.json")
    args = ap.parse_args()
    if args.markdown:
        write_section()
        return
    echo_opt = os.path.join(args.build, "bin", "echo-opt")
    echo_run_bin = os.path.join(args.build, "bin", "echo-run")
    builder, kwargs, _ = recompute.CONFIGS["nmt"]
    result = {"model": "nmt", "config": kwargs, "runs": {}, "auto": {},
              "machine": os.uname().nodename, "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "nmt.mlir")
        recompute.build_model(builder, kwargs, model)
        for hb in HEAVY_BUDGETS:
            result["auto"][str(hb)] = estimate(echo_opt, model, hb)
            print("auto at heavy-budget", hb, result["auto"][str(hb)],
                  file=sys.stderr)
        chunks = result["auto"][str(HEAVY_BUDGETS[-1])]["loss_chunks"]
        runs = [("none", ["--strategy=none", "--chunk-loss=off"]),
                ("echo", ["--strategy=echo", "--chunk-loss=off"]),
                ("none+chunked", ["--strategy=none", f"--chunk-loss={chunks}"]),
                ("echo+chunked", ["--strategy=echo", f"--chunk-loss={chunks}"])]
        result["load_before"] = os.getloadavg()
        for repeat in range(args.repeats):
            for name, options in runs:
                dump = os.path.join(tmp, name)
                r = echo_run(echo_run_bin, model, options, args.steps, dump)
                if name != "none":
                    r["against_none"] = compare(os.path.join(tmp, "none"),
                                                dump)
                r["step_times_ms"] = [r["step_time_ms"]]
                if repeat:
                    first = result["runs"][name]
                    r["step_times_ms"] = first["step_times_ms"] + \
                        r["step_times_ms"]
                    r["step_time_ms"] = min(r["step_times_ms"])
                    for key in ["step_bytes", "measured_peak_bytes",
                                "losses"]:
                        assert r[key] == first[key], (name, key)
                result["runs"][name] = r
                print(name, {k: r[k] for k in ["step_bytes",
                                               "measured_peak_bytes",
                                               "step_times_ms"]},
                      r.get("against_none"), file=sys.stderr)
        # The budget strategy below the smallest step it had with the loss
        # whole (bench/results/budget.json): it takes a chunked candidate.
        smallest = recompute.load_result("budget")["models"]["nmt"][
            "smallest_bytes"]
        budget = int(smallest * 0.95)
        dump = os.path.join(tmp, "budget")
        r = echo_run(echo_run_bin, model, [f"--budget={budget}"], args.steps,
                     dump)
        r["against_none"] = compare(os.path.join(tmp, "none"), dump)
        r["budget_bytes"] = budget
        r["whole_loss_smallest_bytes"] = smallest
        result["runs"]["budget"] = r
        print("budget", budget, {k: r[k] for k in [
            "step_bytes", "measured_peak_bytes", "loss_chunks",
            "recompute_flops"]}, file=sys.stderr)
        result["load_after"] = os.getloadavg()
    out_dir = os.path.join(ROOT, "bench", "results")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "chunk_loss.json"), "w") as f:
        json.dump(result, f, indent=2)
    write_section()


if __name__ == "__main__":
    main()
