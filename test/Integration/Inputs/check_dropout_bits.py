"""Re-implements Echo's dropout generator and compares it with a dumped mask.

Element i (row-major) of a dropout with seed s is kept iff
  mix(i + s * 0x9E3779B97F4A7C15) >> 40 >= round(ratio * 2^24)
with mix the SplitMix64 finalizer (see convert-echo-to-linalg).
"""
import sys

import numpy as np

grad = np.load(sys.argv[1])
seed, ratio = int(sys.argv[2]), float(sys.argv[3])
M = (1 << 64) - 1


def keep(i):
    z = (i + seed * 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    z ^= z >> 31
    return (z >> 40) >= round(ratio * (1 << 24))


expected = np.array([keep(i) for i in range(grad.size)]).reshape(grad.shape)
got = grad != 0
assert np.array_equal(got, expected), f"{np.sum(got != expected)} mask bits differ"
np.testing.assert_allclose(grad[got], 1.0 / (1.0 - ratio), rtol=1e-6)
frac = got.mean()
assert abs(frac - (1 - ratio)) < 0.03, f"kept fraction {frac}"
print(f"mask matches; kept {frac:.3f}")
