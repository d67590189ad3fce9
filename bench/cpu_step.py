#!/usr/bin/python3
"""CPU benchmarks of the training step (not a test; writes JSON).

Runs `echo-run --report` on the bundled LSTM and NMT models and on a
512x512x512 `echo.linear` model, and writes bench/results/cpu_step.json with
the median step time of each and the GFLOP/s of the linear step. The linear
model's loss is sum(linear(x, w, b)) with x data, so a step is two
512^3 GEMMs (forward Y = X·Wᵀ and dW = dYᵀ·X; no dX since x is data) plus
O(512^2) work: FLOPs = 2 · 2 · 512^3.

Usage: bench/cpu_step.py [--build build] [--steps 20] [--out path]
"""
import argparse
import json
import os
import platform
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LINEAR = """
func.func @linear512(%x: tensor<512x512xf32>,
                     %w: tensor<512x512xf32> {echo.param},
                     %b: tensor<512xf32> {echo.param}) -> tensor<f32> {
  %y = echo.linear %x, %w, %b : (tensor<512x512xf32>, tensor<512x512xf32>, tensor<512xf32>) -> tensor<512x512xf32>
  %l = echo.reduce_sum %y dims = [0, 1] : (tensor<512x512xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
"""


def run(echo_run, model, steps):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run([echo_run, model, f"--steps={steps}", "--quiet",
                        f"--report={report}"], check=True)
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
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(LINEAR)
    try:
        r = run(echo_run, f.name, args.steps)
    finally:
        os.unlink(f.name)
    flops = 2 * 2 * 512 ** 3
    results["linear_512"] = {
        "step_time_ms": r["step_time_ms"], "flops": flops,
        "gflops_per_s": flops / (r["step_time_ms"] * 1e-3) / 1e9}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as out:
        json.dump(results, out, indent=2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
