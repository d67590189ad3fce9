#!/usr/bin/python3
"""Buffer-planning benchmark (not a test; writes JSON).

For the bundled models and the paper-like models of bench/recompute.py,
under every recompute strategy, lowers the training step through
bufferization and runs `echo-plan-buffers` then `echo-verify-buffer-plan`.
Records the arena (`planned_bytes`), the planner's lower bound (most bytes
of planned buffers live at one point), the tensor-level `peak_live_bytes`,
the number of buffers and the pass's time (MLIR pass timing, with the IR
verifier off so that only the pass is timed). It also times the pass on
synthetic training-like steps of 10,000 to 50,000 buffers: a forward chain
whose every value is stashed for a backward chain that reads it in reverse.

Writes bench/results/plan_buffers.json and regenerates docs/results.md.

Usage: bench/plan_buffers.py [--build build] [--skip-paper]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402
import recompute  # noqa: E402

BUFFERIZE = [
    "--convert-echo-to-linalg", "--echo-vectorize-contractions",
    "--canonicalize",
    "--one-shot-bufferize=bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map",
    "--buffer-results-to-out-params=modify-public-functions "
    "hoist-static-allocs",
]


def pass_ms(stderr, name):
    m = re.search(r"([0-9.]+) \([ 0-9.]+%\)\s+" + name + r"\n", stderr)
    return float(m.group(1)) * 1e3 if m else None


def plan_model(echo_opt, model, strategy, tmp):
    """Lowers `model` with `strategy` to bufferized IR, then plans it."""
    buffered = os.path.join(tmp, "buffered.mlir")
    subprocess.run(
        [echo_opt, model, "--echo-autodiff",
         f"--echo-recompute=strategy={strategy}",
         "--echo-memory-report=attach"] + BUFFERIZE + ["-o", buffered],
        check=True, capture_output=True, text=True)
    report_path = os.path.join(tmp, "report.json")
    out = subprocess.run(
        [echo_opt, buffered, "--echo-plan-buffers", "--echo-verify-buffer-plan",
         f"--echo-memory-report=output={report_path}", "--mlir-timing",
         "--verify-each=0", "-o", os.devnull],
        check=True, capture_output=True, text=True)
    r = json.load(open(report_path))[0]
    plan = r["plan"]
    return {
        "peak_live_bytes": r["peak_live_bytes"],
        "planned_bytes": r["planned_bytes"],
        "lower_bound_bytes": plan["lower_bound_bytes"],
        "planned_over_lower_bound": r["planned_bytes"] / plan["lower_bound_bytes"]
        if plan["lower_bound_bytes"] else 1.0,
        "buffers": plan["buffers"],
        "in_place": plan["in_place"],
        "heuristic": plan["heuristic"],
        "plan_pass_ms": pass_ms(out.stderr, "EchoPlanBuffers"),
        "verify_pass_ms": pass_ms(out.stderr, "EchoVerifyBufferPlan"),
    }


def synthetic_step(n):
    """Bufferized IR with `n` buffers: n/2 forward values, each stashed until
    the backward value of its step reads it (the fan-out of a training step)."""
    half = n // 2
    t = "memref<256xf32>"
    unary = ('linalg.generic {indexing_maps = [#id, #id], iterator_types = '
             '["parallel"]} ins(%s : ' + t + ') outs(%s : ' + t + ') {\n'
             '^bb0(%%i: f32, %%o: f32):\n  %%e = math.tanh %%i : f32\n'
             '  linalg.yield %%e : f32\n}\n')
    binary = ('linalg.generic {indexing_maps = [#id, #id, #id], iterator_types '
              '= ["parallel"]} ins(%s, %s : ' + t + ', ' + t + ') outs(%s : ' +
              t + ') {\n^bb0(%%i: f32, %%j: f32, %%o: f32):\n'
              '  %%e = arith.mulf %%i, %%j : f32\n  linalg.yield %%e : f32\n}\n')
    lines = ["#id = affine_map<(d0) -> (d0)>",
             f"func.func @step(%x: {t}, %out: {t}) {{"]
    prev = "%x"
    for i in range(half):
        lines.append(f"%f{i} = memref.alloc() : {t}")
        lines.append(unary % (prev, f"%f{i}"))
        prev = f"%f{i}"
    grad = prev
    for i in reversed(range(half)):
        lines.append(f"%g{i} = memref.alloc() : {t}")
        lines.append(binary % (f"%f{i}", grad, f"%g{i}"))
        grad = f"%g{i}"
    lines.append(f"memref.copy {grad}, %out : {t} to {t}")
    lines += ["return", "}"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--skip-paper", action="store_true",
                    help="only the bundled models and the scaling runs")
    args = ap.parse_args()
    echo_opt = os.path.join(args.build, "bin", "echo-opt")
    results = {"machine": machine.for_bench(), "bundled": {}, "paper": {},
               "scaling": []}
    with tempfile.TemporaryDirectory() as tmp:
        models_dir = os.path.join(ROOT, "models")
        for name in sorted(os.listdir(models_dir)):
            if not name.endswith(".mlir"):
                continue
            path = os.path.join(models_dir, name)
            results["bundled"][name[:-5]] = {
                s: plan_model(echo_opt, path, s, tmp)
                for s in recompute.STRATEGIES}
            print(name, {s: round(e["planned_over_lower_bound"], 3)
                         for s, e in results["bundled"][name[:-5]].items()},
                  file=sys.stderr)
        if not args.skip_paper:
            for name, (builder, kwargs, _) in recompute.CONFIGS.items():
                if "variant" in name:
                    continue
                path = os.path.join(tmp, builder + ".mlir")
                recompute.build_model(builder, kwargs, path)
                results["paper"][name] = {
                    s: plan_model(echo_opt, path, s, tmp)
                    for s in recompute.STRATEGIES}
                print(name, {s: (e["planned_bytes"], e["buffers"],
                                 e["plan_pass_ms"])
                             for s, e in results["paper"][name].items()},
                      file=sys.stderr)
        for n in [10000, 20000, 50000]:
            path = os.path.join(tmp, f"synthetic{n}.mlir")
            with open(path, "w") as f:
                f.write(synthetic_step(n))
            out = subprocess.run(
                [echo_opt, path, "--echo-plan-buffers", "--mlir-timing",
                 "--verify-each=0", "-o", os.devnull],
                check=True, capture_output=True, text=True)
            results["scaling"].append(
                {"buffers": n, "plan_pass_ms": pass_ms(out.stderr,
                                                       "EchoPlanBuffers")})
            print("scaling", results["scaling"][-1], file=sys.stderr)

    out_dir = os.path.join(ROOT, "bench", "results")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "plan_buffers.json"), "w") as f:
        json.dump(results, f, indent=2)
    rc = os.path.join(out_dir, "recompute.json")
    if os.path.exists(rc):
        recompute.write_markdown(json.load(open(rc)))


if __name__ == "__main__":
    main()
