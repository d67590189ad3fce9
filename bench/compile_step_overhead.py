#!/usr/bin/python3
"""What echo.torch.compile_step adds to each step: the Python side of a
call (reading the module, checking and passing the tensors, drawing the
step's seed, the gradients' buffers) against the compiled step's own time,
on the main job's NMT (B=64, T=30, H=256, V=2000, dropout 0.3) written in
PyTorch (bench/peers/torch_models.py) and trained with compile_step.

    bench/compile_step_overhead.py [--steps 20] [--json FILE]

Writes bench/results/compile_step_overhead.json: per call, the median
wall time of `step(...)`, of the library call inside it, their difference
(the overhead) and its share of the step, with the machine's record.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "peers"))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import echo.torch  # noqa: E402
import machine  # noqa: E402
import torch_models  # noqa: E402

NMT = dict(batch=64, src_len=30, tgt_len=30, vocab=2000, embed=256,
           hidden=256, dropout=0.3)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--json", default=os.path.join(
        HERE, "results", "compile_step_overhead.json"))
    args = ap.parse_args(argv)
    if args.steps < 3:
        ap.error("--steps must be at least 3")
    torch.manual_seed(0)
    model, arguments = torch_models.make_peer("nmt", NMT)
    with torch.no_grad():
        for p in model.parameters():
            p.uniform_(-0.1, 0.1)
    # The builder's data arguments: the inputs, then the labels.
    data = [torch.randint(0, NMT["vocab"], tuple(shape))
            for _, shape, _, is_param in arguments if not is_param]
    (src, tgt), labels = data[:-1], data[-1]
    start = time.perf_counter()
    step = echo.torch.compile_step(model, (src, tgt), labels, strategy="echo")
    compile_s = time.perf_counter() - start

    library = step._first.library
    inner = []
    run = library.lib.echo_step_run_wide

    def timed(*a):
        t = time.perf_counter()
        status = run(*a)
        inner.append(time.perf_counter() - t)
        return status
    library.lib.echo_step_run_wide = timed
    outer = []
    for _ in range(args.steps):
        t = time.perf_counter()
        step(src, tgt, labels=labels)
        outer.append(time.perf_counter() - t)
    library.lib.echo_step_run_wide = run
    # The first call pages the arena in: left out.
    outer, inner = outer[1:], inner[1:]
    overheads = [o - i for o, i in zip(outer, inner)]
    result = {
        "model": "nmt-mid (B=64, T=30, H=256, V=2000, dropout 0.3), "
                 "bench/peers/torch_models.py",
        "strategy": "echo",
        "steps_timed": len(outer),
        "compile_s": compile_s,
        "call_ms_median": 1e3 * statistics.median(outer),
        "library_ms_median": 1e3 * statistics.median(inner),
        "overhead_ms_median": 1e3 * statistics.median(overheads),
        "overhead_share_median": statistics.median(
            o / i for o, i in zip(overheads, inner)),
        "machine": machine.describe_cpu(),
    }
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
    print("compile_step overhead on nmt-mid: %.2f ms a call (median) over a "
          "%.1f ms step: %.2f%% (%d calls; %s)" % (
              result["overhead_ms_median"], result["library_ms_median"],
              100 * result["overhead_share_median"], len(outer),
              result["machine"].get("model", "?")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
