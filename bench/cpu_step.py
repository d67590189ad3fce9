#!/usr/bin/python3
"""CPU benchmarks of the training step (not a test; writes JSON).

Runs `echo-run --report` on the bundled LSTM and NMT models and on N×N×N
`echo.linear` models (N = 512, 1024), with the GEMMs as OpenBLAS calls
(the default) and generated (library-calls=false), and writes
bench/results/cpu_step.json with the median step time of each (the best of
`--repeat` runs: other work sharing the machine only slows a run), the
GFLOP/s of the linear steps, their share of the machine's measured FMA
peak and their ratio to OpenBLAS's own SGEMM at the same N (bare
cblas_sgemm calls, the best of a few before each run, so that both see the
same conditions). A linear model's loss is sum(linear(x, w, b)) with x data, so a step is two N^3 GEMMs
(forward Y = X·Wᵀ and dW = dYᵀ·X; no dX since x is data) plus O(N^2) work:
FLOPs = 2 · 2 · N^3.

The peak is not assumed: bench/machine.py measures it on the machine the
bench runs on (fp32 FMAs on all cores) and the record is embedded in the
JSON. A share above 1.0 means that calibration was low (taken while the
machine was busy): the bench then calibrates again, and stops with an error
if the share is still above 1.0.

Usage: bench/cpu_step.py [--build build] [--steps 20] [--repeat 3]
                         [--out path]
"""
import argparse
import json
import os
import sys
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402

SIZES = (512, 1024)


def linear_model(n):
    t = f"tensor<{n}x{n}xf32>"
    return f"""
func.func @linear{n}(%x: {t}, %w: {t} {{echo.param}},
                     %b: tensor<{n}xf32> {{echo.param}}) -> tensor<f32> {{
  %y = echo.linear %x, %w, %b : ({t}, {t}, tensor<{n}xf32>) -> {t}
  %l = echo.reduce_sum %y dims = [0, 1] : ({t}) -> tensor<f32>
  return %l : tensor<f32>
}}
"""


def run(echo_run, model, steps, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run([echo_run, model, f"--steps={steps}", "--quiet",
                        f"--report={report}", *extra], check=True)
        return json.load(open(report))[0]


def best_run(echo_run, model, steps, repeat, extra=(), before=None):
    """The run with the smallest median step time of `repeat` runs, and
    every run's median; `before()` is called before each run."""
    runs = []
    for _ in range(repeat):
        if before:
            before()
        runs.append(run(echo_run, model, steps, extra))
    best = min(runs, key=lambda r: r["step_time_ms"])
    best["runs_step_time_ms"] = [r["step_time_ms"] for r in runs]
    return best


def linear_entry(n, step_time_ms, record, sgemm_gflops=None):
    """A linear N³ step's figures against the machine record: GFLOP/s, the
    share of the measured FMA peak, and the ratio to OpenBLAS's SGEMM at
    the same N (`sgemm_gflops`, measured beside the runs)."""
    flops = 2 * 2 * n ** 3
    gflops = flops / (step_time_ms * 1e-3) / 1e9
    entry = {"step_time_ms": step_time_ms, "flops": flops,
             "gflops_per_s": gflops,
             "share_of_peak": machine.share_of_peak(gflops, record)}
    if sgemm_gflops:
        entry["openblas_sgemm_gflops"] = sgemm_gflops
        entry["over_openblas_sgemm"] = gflops / sgemm_gflops
    return entry


def recompute_shares(results, record):
    """Recomputes every linear entry's figures against `record`."""
    for key, r in results.items():
        if key.startswith("linear_"):
            n = int(key.split("_")[1])
            r.update(linear_entry(n, r["step_time_ms"], record,
                                  r.get("openblas_sgemm_gflops")))
    return results


def shares_above_peak(results):
    """The linear entries whose share of the measured peak is above 1.0."""
    return {key: r["share_of_peak"] for key, r in results.items()
            if key.startswith("linear_") and r["share_of_peak"] > 1.0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each workload; the fastest is kept")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                  "cpu_step.json"))
    args = ap.parse_args()
    echo_run = os.path.join(args.build, "bin", "echo-run")

    record = machine.for_bench()
    if "fma_peak_gflops" not in record.get("measured", {}):
        sys.exit("bench/cpu_step.py: error: no measured FMA peak: "
                 + record.get("measured", {}).get("error", "?"))
    print(f"machine: {record['summary']}: {machine.peaks(record)}",
          file=sys.stderr)
    results = {"machine": record, "steps": args.steps,
               "repeat": args.repeat, "models": {}}
    for name in ["lstm", "nmt"]:
        r = best_run(echo_run, os.path.join(ROOT, "models", f"{name}.mlir"),
                     args.steps, args.repeat)
        results["models"][name] = {"step_time_ms": r["step_time_ms"],
                                   "runs_step_time_ms": r["runs_step_time_ms"],
                                   "final_loss": r["losses"][-1]}
    with tempfile.TemporaryDirectory() as tmp:
        sgemm_bin = machine.sgemm_binary(tmp)
        threads = record["cpu"]["usable_cpus"]
        for n in SIZES:
            model = os.path.join(tmp, f"linear{n}.mlir")
            with open(model, "w") as f:
                f.write(linear_model(n))
            sgemm = []

            def measure_sgemm():
                if sgemm_bin:
                    sgemm.append(machine.measure_sgemm(
                        sgemm_bin, threads, [(n, 3)])["gflops"])

            runs = {}
            for calls in ("library", "generated"):
                extra = [] if calls == "library" else ["--library-calls=false"]
                runs[calls] = best_run(echo_run, model, args.steps,
                                       args.repeat, extra, measure_sgemm)
            for calls, r in runs.items():
                entry = linear_entry(n, r["step_time_ms"], record,
                                     max(sgemm, default=None))
                entry["runs_step_time_ms"] = r["runs_step_time_ms"]
                entry["compile_ms"] = r["compile_ms"]
                results[f"linear_{n}_{calls}"] = entry
    above = shares_above_peak(results)
    if above:
        # The cached calibration was low: measure again (kept at its best).
        print(f"shares above the measured peak {above}: calibrating again",
              file=sys.stderr)
        record = machine.for_bench(again=True)
        results["machine"] = record
        above = shares_above_peak(recompute_shares(results, record))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as out:
        json.dump(results, out, indent=2)
    print(json.dumps({k: v for k, v in results.items() if k != "machine"},
                     indent=2))
    if above:
        sys.exit(f"bench/cpu_step.py: error: share of the measured peak "
                 f"above 1.0 ({above}) after calibrating again; run "
                 f"bench/machine.py --refresh on a quiet machine")


if __name__ == "__main__":
    main()
