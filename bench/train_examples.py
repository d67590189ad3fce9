#!/usr/bin/python3
"""The training examples with Echo's step and with PyTorch eager, side by
side (not a test; writes JSON).

Runs examples/train_digits.py and examples/train_charlm.py once with
`--backend echo` (echo.torch.compile_step) and once with `--backend torch`
(the same loop, PyTorch's backward), alternating, and records per example:
the final test accuracy or validation loss of each and their relative
difference (target: within 1% after the same epochs), the median step time
of each (Echo's step call against PyTorch's forward + backward), Echo's
compile time and its step's memory report (planned and measured bytes).

Usage: bench/train_examples.py [--out bench/results/train_examples.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = {"digits": ("train_digits.py", "test_accuracy", []),
            "charlm": ("train_charlm.py", "validation_losses", [])}


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def run(script, backend, extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        # A fresh step cache: the compile time is a first compile's.
        env = dict(os.environ, ECHO_CACHE_DIR=os.path.join(tmp, "cache"))
        subprocess.run([sys.executable, os.path.join(ROOT, "examples",
                                                     script),
                        "--backend", backend, "--quiet", "--json", out] +
                       extra, check=True, stdout=subprocess.DEVNULL, env=env)
        with open(out) as f:
            return json.load(f)


def markdown(results):
    """The docs/results.md section."""
    lines = ["## Training in a PyTorch loop (`echo.torch.compile_step`, "
             "`bench/train_examples.py`)", "",
             "Each example once with Echo's compiled step and once with "
             "PyTorch eager's backward, the same loop (DataLoader, "
             "torch.optim.Adam), initial weights and batch order; compile s "
             "is Echo's first compile (import and echo-run). Machine: "
             "%s, %d cores, %s (load average %.1f)." % (
                 results["machine"]["cpu"], results["machine"]["cores"],
                 results["date"], results["machine"]["load_average"][0]), "",
             "| example | Echo | PyTorch | difference | Echo step ms | "
             "PyTorch step ms | Echo / PyTorch | compile s | Echo measured "
             "bytes (planned) |", "|---|---|---|---|---|---|---|---|---|"]
    for name, r in results["examples"].items():
        e, t = r["echo"], r["torch"]
        lines.append("| %s | %s | %s | %.2g%% | %.1f | %.1f | %.2f× | %.1f | "
                     "%d (%d) |" % (
                         name, r["echo_metric"], r["torch_metric"],
                         100 * r["relative_difference"], e["median_step_ms"],
                         t["median_step_ms"],
                         e["median_step_ms"] / t["median_step_ms"],
                         e["compile_s"], e["memory"]["measured_peak_bytes"],
                         e["memory"]["step_bytes"]))
    lines += ["", "digits: test accuracy after 15 epochs (a 2-conv CNN on "
              "scikit-learn's 8×8 digits, 25% held out); charlm: validation "
              "loss (nats per character) after 3 epochs of a 1-layer LSTM "
              "(hidden 128) on Debian's GPL-3 text, windows of 32."]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "train_examples.json"))
    args = ap.parse_args()
    results = {"machine": {"cpu": cpu_model(), "cores": os.cpu_count(),
                           "load_average": os.getloadavg()},
               "date": time.strftime("%Y-%m-%d"), "examples": {}}
    for name, (script, key, extra) in EXAMPLES.items():
        echo = run(script, "echo", extra)
        torch = run(script, "torch", extra)
        a, b = echo[key], torch[key]
        if isinstance(a, list):
            a, b = a[-1], b[-1]
        results["examples"][name] = {
            "echo": echo, "torch": torch, "metric": key,
            "echo_metric": "%.4f" % a, "torch_metric": "%.4f" % b,
            "relative_difference": abs(a - b) / abs(b)}
        print("%s: echo %.4f torch %.4f, step %.1f vs %.1f ms" % (
            name, a, b, echo["median_step_ms"], torch["median_step_ms"]),
            flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
