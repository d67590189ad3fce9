"""Checks the integer draws of index-ranges.mlir through its gradients
(check_index_ranges.py DIR), or writes ids and labels in range but for one
value (check_index_ranges.py write DIR ARG POSITION VALUE)."""
import os
import sys

import numpy as np

if sys.argv[1] == "write":
    d, arg, position, value = sys.argv[2], *map(int, sys.argv[3:6])
    os.makedirs(d, exist_ok=True)
    a = np.zeros(64, np.int32)
    a[position] = value
    np.save(os.path.join(d, f"arg{arg}.npy"), a)
    sys.exit(0)

d = sys.argv[1]
dtable = np.load(os.path.join(d, "out1.npy"))[:, 0]
dlogits = np.load(os.path.join(d, "out2.npy"))
counts = np.rint(dtable).astype(int)
assert counts.sum() == 64, f"ids outside [0, 3): row counts {counts}"
assert np.all(counts > 0), f"some id in [0, 3) never drawn: {counts}"
labels = np.argmin(dlogits, axis=1)
assert np.all((dlogits < 0).sum(axis=1) == 1), "one label per row"
assert set(labels) == set(range(5)), f"labels {sorted(set(labels))} != 0..4"
print("ids", counts, "labels", np.bincount(labels))
