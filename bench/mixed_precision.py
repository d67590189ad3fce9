#!/usr/bin/python3
"""Mixed precision (bf16, f16) against f32 on the CPU (not a test; writes
JSON).

Measures, with echo-run's reports:
- the paper-size NMT of bench/recompute.py (Echo ISCA 2020, Section VI)
  under strategy echo in f32 and in bf16 (`--precision`): the stashed
  feature-map bytes (target: bf16 at most 0.55x f32's), the planned arena,
  the measured step bytes, the step time and the losses of a few steps;
- training: the bundled NMT (models/nmt.mlir, echo-run's seeded batch,
  plain SGD) for 300 steps in f32, bf16 and f16 (dynamic loss scaling),
  the final losses and their distance to f32's (target: within 2%), and the
  digits CNN of examples/train_digits.py (compile_step, Adam, real data)
  in f32 and bf16: final training loss and test accuracy;
- within one precision, the losses of the recompute strategies none, mirror
  and echo over a few steps of the bundled NMT: bitwise equal.

Writes bench/results/mixed_precision.json with the machine's record
(bench/machine.py).

Usage: bench/mixed_precision.py [--build build] [--paper-steps 2]
       [--train-steps 300] [--skip-paper]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402
import recompute  # noqa: E402

KEYS = ["precision", "losses", "feature_map_bytes", "peak_live_bytes",
        "planned_bytes", "step_bytes", "measured_peak_bytes",
        "library_workspace_bytes", "step_time_ms", "compile_ms",
        "recompute_flops", "loss_scale", "skipped_steps"]


def echo_run(echo_run_bin, model, precision, strategy, steps, *flags):
    """One echo-run; the report's KEYS."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run([echo_run_bin, model, f"--precision={precision}",
                        f"--strategy={strategy}", f"--steps={steps}",
                        "--quiet", f"--report={report}"] + list(flags),
                       check=True)
        r = json.load(open(report))[0]
        return {k: r[k] for k in KEYS if k in r}


def ratio(a, b):
    return a / b if b else None


def paper_nmt(run_bin, steps, measured):
    _, kwargs, _ = recompute.CONFIGS["nmt"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "nmt.mlir")
        recompute.build_model("nmt", kwargs, path)
        rows = {}
        for precision in ("f32", "bf16"):
            rows[precision] = echo_run(run_bin, path, precision, "echo",
                                       steps)
            measured.append(rows[precision])
            print("paper nmt", precision,
                  {k: rows[precision][k] for k in
                   ("feature_map_bytes", "planned_bytes",
                    "measured_peak_bytes", "step_time_ms")},
                  file=sys.stderr, flush=True)
    f32, bf16 = rows["f32"], rows["bf16"]
    return {"config": kwargs, "strategy": "echo", "steps": steps,
            "f32": f32, "bf16": bf16,
            "bf16_over_f32": {k: ratio(bf16[k], f32[k]) for k in
                              ("feature_map_bytes", "peak_live_bytes",
                               "planned_bytes", "measured_peak_bytes",
                               "step_time_ms")},
            "target_feature_map_ratio": 0.55}


def train_nmt(run_bin, steps, lr, measured):
    model = os.path.join(ROOT, "models", "nmt.mlir")
    rows = {p: echo_run(run_bin, model, p, "echo", steps, f"--lr={lr}")
            for p in ("f32", "bf16", "f16")}
    measured.extend(rows.values())
    final = {p: r["losses"][-1] for p, r in rows.items()}
    out = {"model": "models/nmt.mlir", "steps": steps, "lr": lr,
           "optimizer": "sgd (echo-run's)", "strategy": "echo",
           "first_loss": {p: r["losses"][0] for p, r in rows.items()},
           "final_loss": final,
           "final_loss_rel_diff_to_f32": {
               p: abs(final[p] - final["f32"]) / abs(final["f32"])
               for p in ("bf16", "f16")},
           "f16_loss_scale": rows["f16"].get("loss_scale"),
           "f16_skipped_steps": rows["f16"].get("skipped_steps"),
           "median_step_time_ms": {p: r["step_time_ms"]
                                   for p, r in rows.items()},
           "target_rel_diff": 0.02}
    print("train nmt", out["final_loss"], out["final_loss_rel_diff_to_f32"],
          file=sys.stderr, flush=True)
    return out


def train_digits(run_bin, measured):
    out = {}
    env = dict(os.environ, ECHO_RUN=run_bin,
               PYTHONPATH=os.path.join(ROOT, "python"))
    with tempfile.TemporaryDirectory() as tmp:
        for precision in ("f32", "bf16"):
            path = os.path.join(tmp, precision + ".json")
            subprocess.run(
                [sys.executable, os.path.join(ROOT, "examples",
                                              "train_digits.py"),
                 "--quiet", f"--precision={precision}", f"--json={path}"],
                check=True, env=env, cwd=tmp, stdout=subprocess.DEVNULL)
            r = json.load(open(path))
            out[precision] = {"final_train_loss": r["epoch_losses"][-1],
                              "test_accuracy": r["test_accuracy"],
                              "epochs": r["epochs"],
                              "median_step_ms": r["median_step_ms"],
                              "memory": r["memory"]}
            measured.append(out[precision])
    out["final_loss_rel_diff_to_f32"] = (
        abs(out["bf16"]["final_train_loss"] - out["f32"]["final_train_loss"])
        / out["f32"]["final_train_loss"])
    print("train digits", out["final_loss_rel_diff_to_f32"],
          out["f32"]["test_accuracy"], out["bf16"]["test_accuracy"],
          file=sys.stderr, flush=True)
    return out


def strategies(run_bin, steps, measured):
    model = os.path.join(ROOT, "models", "nmt.mlir")
    out = {}
    for precision in ("f32", "bf16", "f16"):
        losses = {s: echo_run(run_bin, model, precision, s, steps)["losses"]
                  for s in ("none", "mirror", "echo")}
        out[precision] = {"losses": losses,
                          "bitwise_equal": all(l == losses["none"]
                                               for l in losses.values())}
        measured.append(out[precision])
    print("strategies", {p: r["bitwise_equal"] for p, r in out.items()},
          file=sys.stderr, flush=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--paper-steps", type=int, default=2)
    ap.add_argument("--train-steps", type=int, default=300)
    ap.add_argument("--train-lr", type=float, default=0.5)
    ap.add_argument("--skip-paper", action="store_true",
                    help="keep the paper-size rows of an earlier run")
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "mixed_precision.json"))
    args = ap.parse_args()
    run_bin = os.path.join(args.build, "bin", "echo-run")
    results = {}
    if args.skip_paper and os.path.exists(args.out):
        results = json.load(open(args.out))
    record = machine.for_bench()
    measured = []
    if not args.skip_paper:
        results["paper_nmt"] = paper_nmt(run_bin, args.paper_steps,
                                         measured)
    results["train_nmt"] = train_nmt(run_bin, args.train_steps,
                                     args.train_lr, measured)
    results["train_digits"] = train_digits(run_bin, measured)
    results["strategies_nmt"] = strategies(run_bin, 3, measured)
    results["gemm_paths"] = {
        "bf16": "oneDNN bf16 matmul (echo_gemm_bf16, echo_batched_gemm_bf16)",
        "f16": "f32 OpenBLAS SGEMM on operands converted to f32",
        "convolutions": "f32 oneDNN on operands converted to f32"}
    machine.attach(results, record, measured)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
