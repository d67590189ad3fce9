#!/usr/bin/python3
"""Compile time against the number of ops (not a test; writes JSON).

Runs `echo-opt <model> --echo-pipeline=strategy=S --verify-each=0
-o /dev/null` (every pass from the model to the LLVM dialect: autodiff,
recomputation, the lowering, bufferization, the buffer plan and the CPU
lowering; no LLVM code generation; the verifier not run after each of the
~40 passes, as echo-run compiles, which runs it once after the pipeline;
`--verify-each` for echo-opt's default) on training steps of growing
length, for each strategy, and records the wall-clock and CPU seconds, the
peak memory of the compiler and the number of ops of the training step
(echo ops after autodiff).

The families:

* `chain`: a chain of elementwise ops (tanh, sigmoid, a product with one
  parameter, a sum with the input, in turn) of n ops, closed by an MSE loss:
  the longest possible fusion chains, and two tensors read by n/4 ops each;
* `lstm`: an unrolled 2-layer LSTM (batch 8, 32 inputs, 64 hidden) of
  growing length: weights read by every time step, forward and backward;
* `deepspeech2`: the paper-size DeepSpeech2 (5 bidirectional GRU layers
  over 200 time steps), echo and one budget compile (`budget=0.5`).

Each compile runs under a time limit (`--timeout`, default 300 s): one that
does not finish is recorded as such. With `--baseline-build` the same runs
are made with a second build's echo-opt (an earlier version), alternating,
for a before/after comparison on the same machine in the same run.

Writes bench/results/compile_scaling.json (with the machine record of
bench/machine.py) and, with --docs, the section of docs/results.md.

Usage: bench/compile_scaling.py [--build build] [--baseline-build DIR]
       [--chain 1000,2000,...] [--lstm 25,50,...] [--strategies none,echo]
       [--no-deepspeech2] [--timeout 300] [--verify-each] [--docs]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from echo import models  # noqa: E402
from echo.graph import GraphBuilder  # noqa: E402
import machine  # noqa: E402

STRATEGIES = ["none", "mirror", "sublinear", "echo"]
CHAIN = [1000, 2000, 5000, 10000, 20000]
LSTM = [25, 50, 100, 200, 400]
DEEPSPEECH2 = dict(batch=32, freq=161, time=200, channels=32, hidden=800,
                   classes=29, rnn_layers=5, bidirectional=True, cell="gru")


def chain(n):
    """The elementwise chain of n ops (see the module's docstring)."""
    g = GraphBuilder("chain")
    x = g.data("x", [16, 64])
    target = g.data("t", [16, 64])
    p = g.param("p", [16, 64])
    h = g.mul(x, p)
    for i in range(n):
        h = [g.tanh, g.sigmoid, lambda v: g.mul(v, p),
             lambda v: g.add(v, x)][i % 4](h)
    return g.finish(g.mse_loss(h, target))


def lstm(seq_len):
    return models.lstm(batch=8, seq_len=seq_len, input=32, hidden=64,
                       classes=10, layers=2)


def count_ops(echo_opt, model):
    """The training step's echo ops (after autodiff)."""
    out = subprocess.run([echo_opt, model, "--echo-autodiff",
                          "--mlir-print-op-generic", "-o", "-"], check=True,
                         capture_output=True, text=True).stdout
    return out.count('"echo.')


def compile_once(echo_opt, model, options, timeout, verify_each):
    """Wall and CPU seconds and peak RSS of one pipeline run, or a timeout."""
    start = time.monotonic()
    proc = subprocess.Popen([echo_opt, model, f"--echo-pipeline={options}",
                             f"--verify-each={int(verify_each)}",
                             "-o", os.devnull], stderr=subprocess.PIPE,
                            text=True)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            return {"timeout_s": timeout}
        time.sleep(0.05)
    wall = time.monotonic() - start
    err = proc.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"echo-opt {options} failed on {model}:\n{err}")
    return {"wall_s": round(wall, 2),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--baseline-build",
                    help="a second build to time beside this one")
    ap.add_argument("--baseline-label",
                    help="what the baseline build is, for the docs (e.g. "
                         "'the build of <commit>, before <change>')")
    ap.add_argument("--chain", default=",".join(map(str, CHAIN)))
    ap.add_argument("--lstm", default=",".join(map(str, LSTM)))
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--no-deepspeech2", action="store_true")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--verify-each", action="store_true",
                    help="verify the IR after every pass (echo-opt's "
                         "default), not once")
    ap.add_argument("--docs", action="store_true",
                    help="also replace the section of docs/results.md")
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "compile_scaling.json"))
    args = ap.parse_args()
    builds = {"this": os.path.join(args.build, "bin", "echo-opt")}
    if args.baseline_build:
        builds["baseline"] = os.path.join(args.baseline_build, "bin",
                                          "echo-opt")
    for path in builds.values():
        if not os.access(path, os.X_OK):
            sys.exit(f"compile_scaling: no echo-opt at {path}")
    record = machine.for_bench(measure=False)
    strategies = [s for s in args.strategies.split(",") if s]
    jobs = []  # (family, size, builder, [options])
    for n in [int(v) for v in args.chain.split(",") if v]:
        jobs.append(("chain", n, lambda n=n: chain(n),
                     [f"strategy={s}" for s in strategies]))
    for t in [int(v) for v in args.lstm.split(",") if v]:
        jobs.append(("lstm", t, lambda t=t: lstm(t),
                     [f"strategy={s}" for s in strategies]))
    if not args.no_deepspeech2:
        jobs.append(("deepspeech2", DEEPSPEECH2["time"],
                     lambda: models.deepspeech2(**DEEPSPEECH2),
                     ["strategy=echo", "strategy=budget budget=0.5"]))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for family, size, build, option_list in jobs:
            path = os.path.join(tmp, f"{family}{size}.mlir")
            with open(path, "w") as f:
                f.write(build())
            ops = count_ops(builds["this"], path)
            for options in option_list:
                row = {"family": family, "size": size, "train_step_ops": ops,
                       "options": options}
                for name, echo_opt in builds.items():
                    row[name] = compile_once(echo_opt, path, options,
                                             args.timeout, args.verify_each)
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    results = {"rows": rows, "timeout_s": args.timeout,
               "verify_each": args.verify_each,
               "baseline_label": args.baseline_label,
               "builds": {k: os.path.relpath(os.path.dirname(
                   os.path.dirname(v)), ROOT) for k, v in builds.items()}}
    record["at_end"] = {"load_average": [round(x, 2)
                                         for x in os.getloadavg()]}
    machine.attach(results, record)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    if args.docs:
        import recompute  # noqa: E402
        recompute.replace_section(markdown(results),
                                  after=recompute.SECTION_AFTER[
                                      "compile_scaling"])


def seconds(run):
    if "timeout_s" in run:
        return "> %.0f" % run["timeout_s"]
    return "%.1f (%.1f)" % (run["wall_s"], run["cpu_s"])


def markdown(results):
    """The docs/results.md section."""
    rec = results["machine"]
    rows = results["rows"]
    baseline = any("baseline" in r for r in rows)
    lines = [
        "## Compile time against the number of ops "
        "(`bench/compile_scaling.py`)", "",
        "`echo-opt --echo-pipeline=strategy=S --verify-each=%d` from the "
        "model to the LLVM dialect (%s; no LLVM code generation; the result "
        "printed to /dev/null), seconds wall-clock (CPU) on "
        "machine `%s` (%s), load average %s at the start and %s at the end "
        "(other work shared the cores: wall-clock figures are high, CPU "
        "figures count the compiler's own threads). Size: the chain's ops, "
        "the LSTM's or DeepSpeech2's time steps; training-step ops: echo "
        "ops after autodiff; `> N`: stopped at the wall-clock limit, which "
        "a loaded machine can reach well before the compile's CPU time "
        "would." % (
            int(results.get("verify_each", True)),
            "the IR verified after every pass" if results.get(
                "verify_each", True) else
            "the verifier not run between passes: echo-run runs it once "
            "after the pipeline",
            rec["key"], rec.get("summary", ""),
            rec["at_run"]["load_average"][0],
            rec.get("at_end", {}).get("load_average", ["?"])[0]),
        ""]
    header = "| model | size | training-step ops | options | seconds |"
    rule = "|---|---|---|---|---|"
    if baseline:
        header += " before |"
        rule += "---|"
    if baseline:
        lines += ["Before: %s, in the same run, alternating with this "
                  "build." % (results.get("baseline_label") or
                              results["builds"]["baseline"]), ""]
    lines += [header, rule]
    for r in rows:
        line = "| %s | %d | %d | `%s` | %s |" % (
            r["family"], r["size"], r["train_step_ops"], r["options"],
            seconds(r["this"]))
        if baseline:
            line += " %s |" % seconds(r["baseline"]) if "baseline" in r \
                else " |"
        lines.append(line)
    return lines


if __name__ == "__main__":
    main()
