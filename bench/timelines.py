#!/usr/bin/python3
"""Memory timelines of the paper-size steps (not a test; writes PNGs).

For the NMT, Transformer, ResNet and DeepSpeech2 configurations of
bench/recompute.py, compiles the training step for the CPU with strategies
none and echo (`echo-opt --echo-pipeline="strategy=S report=..."`) and draws
each strategy's plan as a stacked area per memory category (the bytes the
planned step holds at each op: live arena slots by the category of the
buffer each holds, plus parameters, data and results) with the estimate's
total (the tensor-level live bytes, dashed) over it, with
python/echo/plot_memory.py, into docs/timelines/<model>.png. The plan is what a CPU execution allocates
(test/Integration/measured-memory.test checks it to the byte); the
measured peaks are in docs/results.md.

Usage: bench/timelines.py [--build build] [--models nmt,...]
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from echo import plot_memory  # noqa: E402
import recompute  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="nmt,transformer,resnet,deepspeech2")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "timelines"))
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "echo-opt")
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            builder, kwargs, _ = recompute.CONFIGS[name]
            path = os.path.join(tmp, name + ".mlir")
            recompute.build_model(builder, kwargs, path)
            reports = []
            for strategy in ("none", "echo"):
                report = os.path.join(tmp, f"{name}-{strategy}.json")
                subprocess.run([opt, path, "--echo-pipeline=strategy=%s "
                                "report=%s" % (strategy, report),
                                "-o", os.devnull], check=True)
                reports.append(report)
            png = os.path.join(args.out, name + ".png")
            plot_memory.main(reports + ["-o", png, "--title",
                                        "%s (paper size): the plan by category, "
                                        "the estimate's total dashed"
                                        % name])
            print("wrote", png, file=sys.stderr)


if __name__ == "__main__":
    main()
