#!/usr/bin/python3
"""The chunked output layer and loss at paper size (not a test; writes JSON).

For the NMT (B=128, T=50, H=512, V=8000: logits [6400, 8000] f32, 204.8
MB) and the Transformer (B=32, S=128, V=8000: logits [4096, 8000], 131.1
MB) of bench/recompute.py, runs `echo-run --report --dump` for none and
echo with the loss whole (`--chunk-loss=off`), echo as it is
(`chunk-loss=auto`: the loss in the chunks the estimate picks, each
chunk's logits formed once with its gradient) and none in those chunks:
the estimated, planned and measured bytes, the median step time, the
recompute share of the step's FLOPs, the compile time, and the loss and
every gradient against none's (how many are bitwise equal, the largest
relative difference on the norm of the others). Each run is repeated,
alternating, and takes its fastest median step.

Writes bench/results/chunk_loss.json (with bench/machine.py's record) and
puts its section in docs/results.md (recompute.chunk_loss_markdown, which
bench/recompute.py's full regeneration also writes): replaced where the
section is, else inserted after the paper-size CPU steps. `--markdown`
only rewrites the section from the JSON.

Usage: bench/chunk_loss.py [--build build] [--models nmt,transformer]
                           [--steps 3] [--repeats 2] [--markdown]
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
import machine  # noqa: E402
import recompute  # noqa: E402

KEYS = ["compile_ms", "compile_mlir_ms", "compile_llvm_ms", "step_time_ms",
        "losses", "peak_live_bytes", "planned_bytes", "step_bytes",
        "measured_peak_bytes", "library_workspace_bytes", "recompute_flops",
        "forward_flops", "backward_flops", "loss_chunks",
        "logits_bytes_saved", "categories"]


def echo_run(echo_run_bin, model, options, steps, dump):
    report = dump + ".json"
    subprocess.run([echo_run_bin, model] + options +
                   [f"--steps={steps}", "--quiet", f"--report={report}",
                    f"--dump={dump}"], check=True)
    r = json.load(open(report))[0]
    out = {k: r.get(k) for k in KEYS}  # step_time_ms: the median step
    out["categories"] = {k: v.get("measured")
                         for k, v in (r.get("categories") or {}).items()}
    return out


def compare(dump_a, dump_b):
    """How many results of `dump_b` are bitwise those of `dump_a`, and the
    largest difference of the others, relative to the result's norm or,
    for a gradient that is zero up to rounding (an attention key's bias),
    to 1% of the step's RMS gradient (numerics.distances' scale)."""
    outputs = sorted(os.listdir(dump_a), key=lambda n: int(n[3:-4]))
    a = [np.load(os.path.join(dump_a, n)).astype(np.float64) for n in outputs]
    b = [np.load(os.path.join(dump_b, n)).astype(np.float64) for n in outputs]
    grads = a[1:]
    rms = np.sqrt(sum(float(np.sum(g * g)) for g in grads) /
                  max(sum(g.size for g in grads), 1))
    worst, bitwise = 0.0, 0
    for x, y in zip(a, b):
        if np.array_equal(x, y):
            bitwise += 1
            continue
        scale = max(np.linalg.norm(x), 0.01 * rms * np.sqrt(x.size), 1e-300)
        worst = max(worst, float(np.linalg.norm(x - y) / scale))
    return {"results": len(outputs), "bitwise": bitwise,
            "worst_relative": worst}


def write_section():
    """docs/results.md with this benchmark's section from its JSON (new:
    after the paper-size CPU steps)."""
    recompute.replace_section(recompute.chunk_loss_markdown(),
                              after="## Paper-size steps on the CPU")


def run_model(name, echo_run_bin, tmp, steps, repeats):
    builder, kwargs, _ = recompute.CONFIGS[name]
    model = os.path.join(tmp, name + ".mlir")
    recompute.build_model(builder, kwargs, model)
    entry = {"config": kwargs, "runs": {}}
    # echo as it is first: the chunks auto picks, which none then takes.
    runs = [("echo", ["--strategy=echo"]),
            ("none", ["--strategy=none", "--chunk-loss=off"]),
            ("echo, loss whole", ["--strategy=echo", "--chunk-loss=off"])]
    for repeat in range(repeats):
        for run, options in runs:
            dump = os.path.join(tmp, name + "." + run)
            r = echo_run(echo_run_bin, model, options, steps, dump)
            r["options"] = options
            r["step_times_ms"] = [r["step_time_ms"]]
            if repeat:
                first = entry["runs"][run]
                r["step_times_ms"] = first["step_times_ms"] + \
                    r["step_times_ms"]
                r["step_time_ms"] = min(r["step_times_ms"])
                for key in ["step_bytes", "measured_peak_bytes", "losses"]:
                    assert r[key] == first[key], (name, run, key)
            entry["runs"][run] = r
            print(name, run, {k: r[k] for k in ["loss_chunks", "step_bytes",
                                                "measured_peak_bytes",
                                                "step_times_ms"]},
                  file=sys.stderr, flush=True)
            if run == "echo" and repeat == 0 and r["loss_chunks"]:
                runs.append(("none, chunked",
                             ["--strategy=none",
                              f"--chunk-loss={r['loss_chunks']}"]))
    none_dump = os.path.join(tmp, name + ".none")
    for run, r in entry["runs"].items():
        if run != "none":
            r["against_none"] = compare(none_dump,
                                        os.path.join(tmp, name + "." + run))
    return entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="nmt,transformer")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=2,
                    help="run the list this many times, alternating; the "
                    "table takes each run's fastest median step")
    ap.add_argument("--markdown", action="store_true",
                    help="only rewrite docs/results.md's section from "
                    "bench/results/chunk_loss.json")
    args = ap.parse_args()
    if args.markdown:
        write_section()
        return
    echo_run_bin = os.path.join(args.build, "bin", "echo-run")
    record = machine.for_bench()
    result = {"steps": args.steps, "repeats": args.repeats, "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            result["models"][name] = run_model(name, echo_run_bin, tmp,
                                               args.steps, args.repeats)
    record["at_run"]["load_after"] = os.getloadavg()
    machine.attach(result, record)
    out_dir = os.path.join(ROOT, "bench", "results")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "chunk_loss.json"), "w") as f:
        json.dump(result, f, indent=2)
    write_section()


if __name__ == "__main__":
    main()
