"""compare_dumps.py A B [rtol]: the .npy results in directories A and B agree
norm-wise (|a - b| / max(|a|, |b|, 1e-5) <= rtol for each file)."""
import os
import sys

import numpy as np

a_dir, b_dir = sys.argv[1], sys.argv[2]
rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
names = sorted(os.listdir(a_dir))
assert names == sorted(os.listdir(b_dir)), "different results"
worst = 0.0
for name in names:
    a = np.load(os.path.join(a_dir, name)).astype(np.float64)
    b = np.load(os.path.join(b_dir, name)).astype(np.float64)
    # Gradients that are zero up to f32 rounding (a key bias under softmax)
    # are compared absolutely.
    scale = max(np.linalg.norm(a), np.linalg.norm(b), 1e-5)
    err = np.linalg.norm(a - b) / scale
    worst = max(worst, err)
    if err > rtol:
        print("%s: relative difference %.3e > %.1e" % (name, err, rtol))
        sys.exit(1)
print("%d results agree (worst relative difference %.1e)" % (len(names), worst))
