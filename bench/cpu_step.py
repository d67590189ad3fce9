#!/usr/bin/python3
"""CPU benchmarks of the training step (not a test; writes JSON).

Runs `echo-run --report` on the bundled LSTM and NMT models and on N×N×N
`echo.linear` models (N = 512, 1024), with the GEMMs as OpenBLAS calls
(the default) and generated (library-calls=false), and writes
bench/results/cpu_step.json with the median step time of each, the GFLOP/s
of the linear steps and their share of the machine's peak. A linear model's
loss is sum(linear(x, w, b)) with x data, so a step is two N^3 GEMMs
(forward Y = X·Wᵀ and dW = dYᵀ·X; no dX since x is data) plus O(N^2) work:
FLOPs = 2 · 2 · N^3. The peak is 2 cores × 2 FMA units × 16 f32 lanes × 2
FLOPs × the clock (AVX-512 on these Zen 4 machines; ENV.md: ~200 GFLOP/s).

Usage: bench/cpu_step.py [--build build] [--steps 20] [--out path]
"""
import argparse
import json
import os
import platform
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PEAK_GFLOPS = 200.0  # ENV.md: 2 Zen 4 cores, AVX-512 FMA


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                  "cpu_step.json"))
    args = ap.parse_args()
    echo_run = os.path.join(args.build, "bin", "echo-run")

    results = {"machine": platform.processor() or platform.machine(),
               "cores": os.cpu_count(), "steps": args.steps, "models": {}}
    for name in ["lstm", "nmt"]:
        r = run(echo_run, os.path.join(ROOT, "models", f"{name}.mlir"),
                args.steps)
        results["models"][name] = {"step_time_ms": r["step_time_ms"],
                                   "final_loss": r["losses"][-1]}
    for n in (512, 1024):
        with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                         delete=False) as f:
            f.write(linear_model(n))
        try:
            for calls in ("library", "generated"):
                extra = [] if calls == "library" else ["--library-calls=false"]
                r = run(echo_run, f.name, args.steps, extra)
                flops = 2 * 2 * n ** 3
                gflops = flops / (r["step_time_ms"] * 1e-3) / 1e9
                results[f"linear_{n}_{calls}"] = {
                    "step_time_ms": r["step_time_ms"], "flops": flops,
                    "gflops_per_s": gflops,
                    "share_of_peak": gflops / PEAK_GFLOPS,
                    "compile_ms": r["compile_ms"]}
        finally:
            os.unlink(f.name)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as out:
        json.dump(results, out, indent=2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
