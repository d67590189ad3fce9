"""The fused attention kernels of every ISA the CPU runs, and both backward
schemes at several thread counts.

usage: check_isas.py WORK_DIR TILES_MLIR

For each function of TILES_MLIR (tiles.mlir) runs echo-run (library calls,
so echo.attention runs in the CPU runtime) with $ECHO_CPU_ISA set to
baseline, avx2 and avx512 in turn: each result (the loss and the gradients
out1..out4) within 1e-5 norm-wise of the baseline's and of echo-run's f64
reference. An ISA this CPU (or this build) does not run must be refused
with the runtime's message; it is then skipped with a note. With the best
ISA, the backward in one pass and in two passes
($ECHO_CPU_ATTENTION_BACKWARD) on 1 and 2 threads
($ECHO_CPU_KERNEL_THREADS), and the scheme the runtime chooses on 3
threads, must give the same bits. Prints a line per check and FAILED on a
failure.
"""
import os
import subprocess
import sys

import numpy as np

FUNCTIONS = ("causal_gqa_dropout", "cross_bias", "causal_long_queries",
             "causal_d64_view", "cross_d72_view")
ISAS = ("baseline", "avx2", "avx512")
OUTPUTS = ("out0.npy", "out1.npy", "out2.npy", "out3.npy", "out4.npy")
TOLERANCE = 1e-5


def run(mlir, function, dump, env_extra, reference=None):
    env = dict(os.environ)
    for name in ("ECHO_CPU_ISA", "ECHO_CPU_ATTENTION_BACKWARD",
                 "ECHO_CPU_KERNEL_THREADS", "OMP_NUM_THREADS"):
        env.pop(name, None)
    env.update(env_extra)
    command = ["echo-run", mlir, "--function=" + function, "--seed=3",
               "--dump=" + dump, "--quiet"]
    if reference:
        command.append("--reference-dump=" + reference)
    return subprocess.run(command, env=env, capture_output=True, text=True)


def load(directory, name):
    return np.load(os.path.join(directory, name))


def rel_diff(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    norm = np.linalg.norm(b)
    return np.linalg.norm(a - b) / norm if norm else np.linalg.norm(a)


def main(argv):
    work, mlir = argv[1], argv[2]
    failed = False
    ran = []
    for function in FUNCTIONS:
        base = os.path.join(work, function + "-baseline")
        reference = os.path.join(work, function + "-reference")
        done = run(mlir, function, base, {"ECHO_CPU_ISA": "baseline"},
                   reference)
        if done.returncode != 0:
            print("%s baseline: echo-run failed: %s FAILED" %
                  (function, done.stderr.strip()))
            failed = True
            continue
        best = "baseline"
        for isa in ISAS:
            dump = base if isa == "baseline" else os.path.join(
                work, function + "-" + isa)
            if isa != "baseline":
                done = run(mlir, function, dump, {"ECHO_CPU_ISA": isa})
                if done.returncode != 0:
                    if "does not run" in done.stderr:
                        print("%s %s: skipped (this CPU or build does not "
                              "run it)" % (function, isa))
                        continue
                    print("%s %s: echo-run failed: %s FAILED" %
                          (function, isa, done.stderr.strip()))
                    failed = True
                    continue
                best = isa
            worst_base = max(rel_diff(load(dump, n), load(base, n))
                             for n in OUTPUTS)
            worst_ref = max(rel_diff(load(dump, n), load(reference, n))
                            for n in OUTPUTS[1:])
            ok = worst_base <= TOLERANCE and worst_ref <= TOLERANCE
            failed |= not ok
            print("%s %s: rel diff to baseline %.1e, to f64 reference %.1e: %s"
                  % (function, isa, worst_base, worst_ref,
                     "ok" if ok else "FAILED"))
        ran.append(best)
        # The backward's schemes and thread counts, with the best ISA.
        first = None
        # Auto on 3 threads: one pass where B·Hkv >= 3, else two passes.
        for scheme, threads in (("one-pass", "1"), ("one-pass", "2"),
                                ("two-pass", "1"), ("two-pass", "2"),
                                ("auto", "3")):
            dump = os.path.join(work, "%s-%s-%s" % (function, scheme,
                                                    threads))
            extra = {"ECHO_CPU_ISA": best, "ECHO_CPU_KERNEL_THREADS": threads,
                     "OMP_NUM_THREADS": threads}
            if scheme != "auto":
                extra["ECHO_CPU_ATTENTION_BACKWARD"] = scheme
            done = run(mlir, function, dump, extra)
            if done.returncode != 0:
                print("%s %s %s threads: echo-run failed: %s FAILED" %
                      (function, scheme, threads, done.stderr.strip()))
                failed = True
                continue
            if first is None:
                first = dump
                continue
            same = all(np.array_equal(load(dump, n), load(first, n))
                       for n in OUTPUTS)
            failed |= not same
            print("%s %s %s %s threads: %s" % (
                function, best, scheme, threads,
                "same bits" if same else "different bits FAILED"))
    print("best ISA run: %s" % ", ".join(sorted(set(ran))))
    if failed:
        print("FAILED")
        return 1
    print("every ISA within %g; same bits on every scheme and thread count"
          % TOLERANCE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
