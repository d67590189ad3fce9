"""Writes the three index arguments of data-index-ranges.mlir into DIR:
zeros but for one value (write_data_indices.py DIR ARG POSITION VALUE), or
each at the top of its range (write_data_indices.py DIR edge)."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
edge = sys.argv[2] == "edge"
arrays = [np.full((8, 2), 3 if edge else 0, np.int32),
          np.full((8, 2), 5 if edge else 0, np.int32),
          np.full(8, 2 if edge else 0, np.int32)]
if not edge:
    arg, position, value = map(int, sys.argv[2:5])
    arrays[arg].reshape(-1)[position] = value
for i, a in enumerate(arrays):
    np.save(os.path.join(d, "arg%d.npy" % i), a)
