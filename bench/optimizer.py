#!/usr/bin/python3
"""The optimizer inside the step at paper size (not a test; writes JSON).

Builds the paper-size models of bench/recompute.py (by default the NMT),
compiles each step with `echo-opt --echo-pipeline="strategy=echo
optimizer=O report=FILE"` for O = none (the step returns every gradient,
the caller runs the optimizer) and adam (the update inside the step, each
parameter updated in place as soon as its gradient is final), optionally
runs one step of each with echo-run (`--measure`: the measured peak), and
writes bench/results/optimizer.json and the table of docs/results.md.

PyTorch-style training keeps Adam's two moments beside the step, so the
comparison is: none's step bytes + 2 x the parameters' bytes, against the
step with Adam inside (which holds the same moments as arguments).

Usage: bench/optimizer.py [--build build] [--models nmt,...] [--measure]
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import recompute  # noqa: E402  (CONFIGS, build_model)

OPTIMIZERS = ["none", "adam"]
KEYS = ["peak_live_bytes", "feature_map_bytes", "optimizer_state_bytes",
        "planned_bytes", "step_bytes"]


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def planned(echo_opt, model, optimizer, tmp):
    out = os.path.join(tmp, "report-%s.json" % optimizer)
    subprocess.run([echo_opt, model, "--echo-pipeline=strategy=echo "
                    "optimizer=%s report=%s" % (optimizer, out), "-o",
                    os.devnull], check=True)
    with open(out) as f:
        r = json.load(f)[0]
    entry = {k: r[k] for k in KEYS}
    entry["argument_bytes"] = r["plan"]["argument_bytes"]
    # The estimate's live bytes where the step ends: what is still held
    # (none: every gradient, returned to the caller).
    entry["live_bytes_at_return"] = r["timeline"][-1]
    return entry


def measured(echo_run, model, optimizer, tmp):
    out = os.path.join(tmp, "run-%s.json" % optimizer)
    subprocess.run([echo_run, model, "--strategy=echo", "--steps=1",
                    "--optimizer=" + optimizer, "--lr=0.001",
                    "--report=" + out], check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        r = json.load(f)[0]
    return {k: r[k] for k in ("measured_peak_bytes", "library_workspace_bytes",
                              "step_time_ms")}


def markdown(results):
    """The docs/results.md section."""
    mib = 1024.0 ** 2
    m = results["machine"]
    lines = [
        "## The optimizer inside the step (`optimizer=adam`, "
        "`bench/optimizer.py`)", "",
        "Paper-size steps (bench/recompute.py's configurations, strategy "
        "echo) compiled with `echo-opt --echo-pipeline=\"strategy=echo "
        "optimizer=O report=-\"`. *PyTorch-style* is the step returning every "
        "gradient (optimizer=none) plus Adam's two moments kept beside it; "
        "*inside* is the step with `echo.adam_update` after each "
        "parameter's last gradient op, written in place, taking the moments "
        "as arguments and returning only the loss. Bytes in MiB; measured: "
        "one `echo-run` step, the counting allocator's peak. Machine: %s, "
        "%d cores, %s." % (m["cpu"], m["cores"], results["date"]), "",
        "| model | parameters | Adam state | | peak_live_bytes (estimate) | "
        "arena | step_bytes (plan) | measured peak | gradient bytes held at "
        "the end |", "|---|---|---|---|---|---|---|---|---|"]
    for name, e in results["models"].items():
        none, adam = e["none"], e["adam"]
        state = adam["optimizer_state_bytes"]
        rows = [
            ("PyTorch-style", none["peak_live_bytes"] + state,
             none["planned_bytes"], none["step_bytes"] + state,
             none.get("measured_peak_bytes"), e["gradient_bytes"]),
            ("inside", adam["peak_live_bytes"], adam["planned_bytes"],
             adam["step_bytes"], adam.get("measured_peak_bytes"),
             adam["live_bytes_at_return"] - adam["argument_bytes"]),
        ]
        for i, (what, peak, arena, step, meas, grads) in enumerate(rows):
            if meas is not None and what == "PyTorch-style":
                meas += state
            lines.append("| %s | %s | %s | %s | %.1f | %.1f | %.1f | %s | %s |"
                         % (name if i == 0 else "",
                            "%.1f" % (e["parameter_bytes"] / mib)
                            if i == 0 else "",
                            "%.1f" % (state / mib) if i == 0 else "", what,
                            peak / mib, arena / mib, step / mib,
                            "%.1f" % (meas / mib) if meas else "n/a",
                            "%.1f" % (max(grads, 0) / mib)))
        lines.append("")
        lines.append(
            "%s: the step with Adam inside takes %s bytes (%.1f MiB) fewer "
            "than the PyTorch-style step plus state: of its %s gradient "
            "bytes, the caller no longer holds any; they live in the arena "
            "only between their last op and their update, which grew it by "
            "%s bytes. The estimate's peak is the same plus 24 bytes (the "
            "hyperparameters): it lies early in the backward pass, before "
            "many gradients exist." % (
                name, "{:,}".format(e["saved_bytes"]),
                e["saved_bytes"] / mib, "{:,}".format(e["gradient_bytes"]),
                "{:,}".format(adam["planned_bytes"] - none["planned_bytes"])))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="nmt",
                    help="comma-separated names of bench/recompute.py's "
                         "CONFIGS")
    ap.add_argument("--measure", action="store_true",
                    help="also run one step of each with echo-run")
    args = ap.parse_args()
    echo_opt = os.path.join(args.build, "bin", "echo-opt")
    echo_run = os.path.join(args.build, "bin", "echo-run")
    results = {"machine": {"cpu": cpu_model(), "cores": os.cpu_count()},
               "date": datetime.date.today().isoformat(), "models": {}}
    for name in args.models.split(","):
        builder, kwargs, _ = recompute.CONFIGS[name]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, builder + ".mlir")
            recompute.build_model(builder, kwargs, path)
            entry = {"config": kwargs}
            for optimizer in OPTIMIZERS:
                entry[optimizer] = planned(echo_opt, path, optimizer, tmp)
                if args.measure:
                    entry[optimizer].update(
                        measured(echo_run, path, optimizer, tmp))
        state = entry["adam"]["optimizer_state_bytes"]
        entry["parameter_bytes"] = state // 2
        # Every parameter is f32 and gets one gradient of its size.
        entry["gradient_bytes"] = state // 2
        entry["saved_bytes"] = (entry["none"]["step_bytes"] + state -
                                entry["adam"]["step_bytes"])
        results["models"][name] = entry
        print(name, entry["saved_bytes"], file=sys.stderr)
    out = os.path.join(ROOT, "bench", "results", "optimizer.json")
    with open(out, "w") as f:
        json.dump(results, f, indent=2)
    print("\n".join(markdown(results)))


if __name__ == "__main__":
    main()
