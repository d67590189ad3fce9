"""Compares two echo-run --dump directories element by element.

usage: compare_dumps.py [--atol=A] DIR_A DIR_B TOLERANCE NAME...

For each NAME (out1.npy, ...), prints the norm-wise relative difference
||a - b|| / ||b|| and whether it is within TOLERANCE (or, with --atol, every
element within A of the other: a gradient that vanishes, such as a key
bias's, is rounding noise on both sides); exits 1 otherwise.
"""
import os
import sys

import numpy as np


def main(argv):
    atol = None
    if argv[1].startswith("--atol="):
        atol = float(argv[1][len("--atol="):])
        argv = argv[:1] + argv[2:]
    a_dir, b_dir, tol = argv[1], argv[2], float(argv[3])
    status = 0
    for name in argv[4:]:
        a = np.load(os.path.join(a_dir, name)).astype(np.float64)
        b = np.load(os.path.join(b_dir, name)).astype(np.float64)
        if a.shape != b.shape:
            print("%s: shapes %s and %s differ" % (name, a.shape, b.shape))
            status = 1
            continue
        norm = np.linalg.norm(b)
        rel = np.linalg.norm(a - b) / norm if norm else np.linalg.norm(a)
        diff = float(np.abs(a - b).max()) if a.size else 0.0
        ok = bool(np.isfinite(a).all()) and (
            rel <= tol or (atol is not None and diff <= atol))
        print("%s: rel diff %s, max abs diff %.1e: %s" % (
            name, "%.1e" % rel if rel else "0", diff,
            "ok" if ok else "FAILED"))
        status |= 0 if ok else 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
