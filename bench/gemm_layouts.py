#!/usr/bin/python3
"""GEMM operands that are views: pass the strides or copy (not a test;
writes JSON).

A library call's operand is whatever one-shot bufferization made of it,
often a view of a larger buffer. Which views the runtimes should take as
they are and which the compiler should copy (echo-library-call-layouts) is
decided here, on C [M, N] = A [M, K] · B [K, N] in f32 with A

* a column slice of [M, 2K] (rows of unit stride, row stride 2K): OpenBLAS
  takes it with lda = 2K ("lda"), or it is copied first ("lda+copy");
* a column of a [M, K, E] stack (strides K·E, E), the gradient of one
  expert's output in a dense mixture of experts: no BLAS takes it, so it is
  copied ("stacked+copy"; the copy alone: "copy"), or oneDNN's f32 matmul
  takes its strides ("onednn-stacked"; on packed A: "onednn");
* a transposed view of a packed [K, M] (strides 1, M): cblas_sgemm takes it
  as its transpose flag ("transposed"), or it is copied ("transposed+copy");

against A packed ("packed"), each the best of 5 rounds (bench/gemm_layouts.cpp,
compiled here against the OpenBLAS the CPU runtime opens and oneDNN), on
the threads OMP_NUM_THREADS gives (default 1 here: the figures are per
core). Then the dense mixture of experts of test/Python/Inputs/dense_moe.py
at `--moe` size, one step with echo-run: library calls on (the columns
copied) against off (generated contractions, which take any strides).

Writes bench/results/gemm_layouts.json (with bench/machine.py's record)
and prints markdown tables.

Usage: bench/gemm_layouts.py [--shapes 256x128x256x4,...]
                             [--moe BATCHxWIDTHxHIDDENxEXPERTS]
                             [--max-reference 33554432]
                             [--echo-run build/bin/echo-run]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402

VARIANTS = ["packed", "lda", "lda+copy", "stacked+copy", "copy",
            "transposed", "transposed+copy", "onednn", "onednn-stacked"]


def parse_shapes(text, parts):
    shapes = []
    for spec in text.split(","):
        dims = spec.split("x")
        if len(dims) != parts or not all(d.isdigit() and int(d) > 0
                                         for d in dims):
            return None
        shapes.append(tuple(int(d) for d in dims))
    return shapes


def build_driver(directory):
    blas = sorted(glob.glob("/usr/lib/*/openblas-openmp/libopenblas.so.0"))
    blas = blas[0] if blas else "-lopenblas"
    binary = os.path.join(directory, "gemm_layouts")
    cxx = os.environ.get("CXX", "c++")
    subprocess.run([cxx, "-O2", "-std=c++17",
                    os.path.join(ROOT, "bench", "gemm_layouts.cpp"), "-o",
                    binary, blas, "-ldnnl"], check=True)
    return binary, blas


def moe_step(echo_run, work, batch, width, hidden, experts, calls):
    """Step time (ms, best of the steps after the first) and bytes of the
    dense MoE with the library calls on or off."""
    model = os.path.join(work, "moe.mlir")
    if not os.path.exists(model):
        factory = os.path.join(work, "bench_moe.py")
        with open(factory, "w") as f:
            f.write("from dense_moe import DenseMoE\n\n\ndef moe():\n"
                    "    return DenseMoE(%d, %d, %d)\n" % (width, hidden,
                                                         experts))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([
            os.path.join(ROOT, "python"),
            os.path.join(ROOT, "test", "Python", "Inputs"), work]))
        subprocess.run([sys.executable, "-m", "echo.import_torch",
                        "bench_moe:moe", "--input", "%dx%d:f32" % (
                            batch, width), "--loss", "cross_entropy",
                        "--labels", str(batch), "-o", model, "--weights",
                        os.path.join(work, "weights")], check=True, env=env,
                       cwd=work, capture_output=True)
    report = os.path.join(work, "report-%s.json" % calls)
    subprocess.run([echo_run, model, "--strategy=none", "--steps=6",
                    "--library-calls=%s" % calls, "--quiet",
                    "--report=" + report], check=True)
    with open(report) as f:
        r = json.load(f)[0]
    return {"step_ms": min(r["step_times_ms"][1:]),
            "step_bytes": r["step_bytes"],
            "measured_peak_bytes": r["measured_peak_bytes"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="256x128x256x4,512x256x1024x4,"
                        "1024x512x1024x8")
    parser.add_argument("--moe", default="256x128x512x4")
    parser.add_argument("--max-reference", type=int, default=1 << 25,
                        help="time onednn-stacked (oneDNN's reference "
                             "kernel) only up to M·K·N multiply-adds")
    parser.add_argument("--echo-run",
                        default=os.path.join(ROOT, "build", "bin",
                                             "echo-run"))
    parser.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "gemm_layouts.json"))
    args = parser.parse_args()
    shapes = parse_shapes(args.shapes, 4)
    if not shapes:
        parser.error("--shapes wants MxKxNxE,... of positive integers, got "
                     "'%s'" % args.shapes)
    moe = parse_shapes(args.moe, 4)
    if not moe or len(moe) != 1:
        parser.error("--moe wants BATCHxWIDTHxHIDDENxEXPERTS, got '%s'"
                     % args.moe)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    record = machine.for_bench(measure=False)
    result = {"threads": os.environ["OMP_NUM_THREADS"], "gemms": []}
    with tempfile.TemporaryDirectory() as work:
        binary, blas = build_driver(work)
        result["library"] = blas
        print("%s; %s, threads: %s" % (machine.summary(record), blas,
                                       result["threads"]))
        print()
        print("| M×K×N, E | packed ms | lda | lda+copy | stacked+copy | "
              "copy | transposed | transposed+copy | oneDNN | "
              "oneDNN stacked |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for m, k, n, e in shapes:
            # oneDNN's reference kernel takes ~20 s at 2^27 multiply-adds.
            stacked = m * k * n <= args.max_reference
            row = json.loads(subprocess.run(
                [binary, str(m), str(k), str(n), str(e), str(int(stacked))],
                check=True, capture_output=True, text=True).stdout)
            result["gemms"].append(row)
            t = row["seconds"]
            base = t["packed"]
            print("| %d×%d×%d, %d | %.3f | %s |" % (
                m, k, n, e, base * 1e3, " | ".join(
                    "%.2fx" % (t[v] / base) if t[v] is not None else "-"
                    for v in VARIANTS[1:])))
        batch, width, hidden, experts = moe[0]
        result["moe"] = {"batch": batch, "width": width, "hidden": hidden,
                         "experts": experts}
        for calls in ("true", "false"):
            result["moe"]["library_calls_" + calls] = moe_step(
                args.echo_run, work, batch, width, hidden, experts, calls)
    on, off = (result["moe"]["library_calls_true"],
               result["moe"]["library_calls_false"])
    print()
    print("| dense MoE %dx%d, hidden %d, %d experts | step ms | step bytes |"
          % (batch, width, hidden, experts))
    print("|---|---|---|")
    print("| library calls (stacked columns copied) | %.2f | %d |" % (
        on["step_ms"], on["step_bytes"]))
    print("| generated contractions | %.2f | %d |" % (off["step_ms"],
                                                     off["step_bytes"]))
    machine.attach(result, record)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
