#!/usr/bin/python3
"""An output layer's GEMMs against their rows (not a test; writes JSON).

The chunked output layer and loss (`chunk-loss=`) runs the layer's three
GEMMs on each chunk's rows: the logits x·Wᵀ ([M, K] × [K, N]), the input
gradient dlogits·W ([M, N] × [N, K], accumulated) and the weight gradient
dlogitsᵀ·x ([N, M] × [M, K], accumulated), M the chunk's rows. This bench
times the three, row-major f32 through `cblas_sgemm`, for M from 32 to the
layer's whole rows, in the OpenBLAS the CPU runtime opens (its OpenMP
build where installed, else libopenblas.so.0; `--library` names another),
with the threads OMP_NUM_THREADS / OPENBLAS_NUM_THREADS give it, and
reports each GEMM's GFLOP/s (best of `--repeats` rounds, each long enough
to time) and the three together as a share of the whole layer's rate.
`chooseLossChunks` gives no chunk fewer than 128 rows (kMinLossChunkRows)
from this measurement.

Layers (`--layers N:K:R,...`, classes:hidden:rows): the NMT of
utils/run-demo.sh (2000:256:1920) and the paper-size NMT (8000:512:6400).

Writes bench/results/gemm_rows.json (with bench/machine.py's record) and
prints a markdown table.

Usage: bench/gemm_rows.py [--layers 2000:256:1920,8000:512:6400]
                          [--rows 32,64,128,192,256,512,1024] [--repeats 5]
"""
import argparse
import ctypes
import glob
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112


def open_blas(path):
    """The OpenBLAS the CPU runtime would open (runtime/cpu: the OpenMP
    build where installed, else libopenblas.so.0), or `path`."""
    if not path:
        builds = sorted(glob.glob(
            "/usr/lib/*/openblas-openmp/libopenblas.so.0"))
        path = builds[0] if builds else "libopenblas.so.0"
    try:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        sys.exit(f"gemm_rows: cannot open OpenBLAS ({path}): {e}")
    if not hasattr(lib, "cblas_sgemm"):
        sys.exit(f"gemm_rows: {path} has no cblas_sgemm")
    lib.cblas_sgemm.restype = None
    lib.cblas_sgemm.argtypes = [
        ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
        ctypes.c_int, ctypes.c_float, ctypes.c_void_p, ctypes.c_int,
        ctypes.c_void_p, ctypes.c_int, ctypes.c_float, ctypes.c_void_p,
        ctypes.c_int]
    return lib, path


def buffer(count, seed):
    data = (ctypes.c_float * count)()
    for i in range(0, count, 97):
        data[i] = ((i * seed) % 13) * 0.01
    return data


def time_call(call, min_seconds=0.05):
    """Seconds per call, over enough calls to take `min_seconds`."""
    call()
    calls, start = 0, time.perf_counter()
    while True:
        call()
        calls += 1
        spent = time.perf_counter() - start
        if spent >= min_seconds:
            return spent / calls


def measure_layer(lib, classes, hidden, rows_list, repeats):
    top = max(rows_list)
    x = buffer(top * hidden, 3)
    w = buffer(classes * hidden, 5)
    logits = buffer(top * classes, 7)
    dx = buffer(top * hidden, 11)
    dw = buffer(classes * hidden, 13)
    sgemm = lib.cblas_sgemm
    out = []
    for m in rows_list:
        gemms = {
            # logits [M, N] = x [M, K] · Wᵀ
            "logits": lambda: sgemm(ROW_MAJOR, NO_TRANS, TRANS, m, classes,
                                    hidden, 1.0, x, hidden, w, hidden, 0.0,
                                    logits, classes),
            # dx [M, K] += dlogits [M, N] · W [N, K]
            "dx": lambda: sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, m, hidden,
                                classes, 1.0, logits, classes, w, hidden, 1.0,
                                dx, hidden),
            # dW [N, K] += dlogitsᵀ [N, M] · x [M, K]
            "dw": lambda: sgemm(ROW_MAJOR, TRANS, NO_TRANS, classes, hidden,
                                m, 1.0, logits, classes, x, hidden, 1.0, dw,
                                hidden),
        }
        best = {name: min(time_call(g) for _ in range(repeats))
                for name, g in gemms.items()}
        flops = 2.0 * m * classes * hidden
        out.append({"rows": m,
                    "seconds": best,
                    "gflops": {k: flops / s / 1e9 for k, s in best.items()},
                    "all_gflops": 3 * flops / sum(best.values()) / 1e9})
    whole = out[-1]["all_gflops"]
    for row in out:
        row["share_of_whole"] = row["all_gflops"] / whole
    return out


def parse_layers(text):
    """`classes:hidden:rows,...` as tuples of positive integers, or None."""
    layers = []
    for spec in text.split(","):
        parts = spec.split(":")
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0
                                      for p in parts):
            return None
        layers.append(tuple(int(p) for p in parts))
    return layers


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="2000:256:1920,8000:512:6400")
    parser.add_argument("--rows", default="32,64,128,192,256,512,1024")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--library", default="")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results",
                                                      "gemm_rows.json"))
    args = parser.parse_args()
    layers = parse_layers(args.layers)
    if not layers:
        parser.error(f"--layers wants classes:hidden:rows,... of positive "
                     f"integers, got '{args.layers}'")
    if not all(r.isdigit() and int(r) > 0 for r in args.rows.split(",")):
        parser.error(f"--rows wants positive integers, got '{args.rows}'")
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    rows = [int(r) for r in args.rows.split(",")]
    record = machine.for_bench()
    lib, path = open_blas(args.library)
    result = {"library": path,
              "threads": os.environ.get("OMP_NUM_THREADS",
                                        os.environ.get("OPENBLAS_NUM_THREADS",
                                                       "all CPUs")),
              "layers": []}
    print(f"{machine.summary(record)}; {path}, threads: {result['threads']}")
    print()
    print("| layer (classes × hidden) | rows (M) | logits GFLOP/s | "
          "dx GFLOP/s | dW GFLOP/s | all three | share of the whole layer's |")
    print("|---|---|---|---|---|---|---|")
    for classes, hidden, whole in layers:
        measured = measure_layer(lib, classes, hidden,
                                 sorted(set(r for r in rows if r < whole)) +
                                 [whole], args.repeats)
        result["layers"].append({"classes": classes, "hidden": hidden,
                                 "rows": whole, "by_rows": measured})
        for row in measured:
            g = row["gflops"]
            print(f"| {classes} × {hidden} | {row['rows']} | "
                  f"{g['logits']:.1f} | {g['dx']:.1f} | {g['dw']:.1f} | "
                  f"{row['all_gflops']:.1f} | {row['share_of_whole']:.2f} |")
    machine.attach(result, record)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
