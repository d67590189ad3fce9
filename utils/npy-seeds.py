"""Seed corpus of the .npy fuzzer (utils/run-sanitizers.sh): files NumPy
writes for each dtype a step takes and others, several shapes, C and
Fortran order, both byte orders, format versions 1 and 2."""
import os
import sys

import numpy as np
from numpy.lib import format as npy_format

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
n = 0
for dtype in ("<f4", "<f8", "<i4", ">f4", "<i8", "|u1"):
    for shape in ((), (3,), (2, 3), (2, 1, 4), (0, 5)):
        a = (rng.standard_normal(shape) * 10).astype(dtype)
        for order in ("C", "F"):
            for version in ((1, 0), (2, 0)):
                with open(os.path.join(out, f"seed{n}.npy"), "wb") as f:
                    npy_format.write_array(f, np.asarray(a, order=order),
                                           version=version)
                n += 1
