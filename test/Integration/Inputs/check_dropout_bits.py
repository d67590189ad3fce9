"""Re-implements Echo's dropout generator and compares it with a dumped mask.

Element i (row-major) of a dropout with seed s is kept iff
  mix(i + s * 0x9E3779B97F4A7C15) >> 40 >= round(ratio * 2^24)
with mix the SplitMix64 finalizer (see convert-echo-to-linalg). With
broadcast dims (the optional fourth argument, comma-separated), i is the
element's row-major index over the shape without those dims: one draw per
index of the other dims, shared along them.

A dropout that reads the step's seed t (`echo.rng_seed`) replaces
s * 0x9E3779B97F4A7C15 by (s * 0x9E3779B97F4A7C15) ^ mix(t +
0x9E3779B97F4A7C15); echo-run passes t = stepSeed(run seed, step) =
SplitMix64(run seed * 0x9E3779B97F4A7C15 + step).next() >> 11.

Usage: check_dropout_bits.py GRAD.npy SEED RATIO [DIMS] [--run-seed=R
--step=K]; GRAD is the gradient of sum(dropout(w)) with respect to w,
mask / (1 - ratio) (DIMS "-" for none).
"""
import sys

import numpy as np

options = dict(a[2:].split("=") for a in sys.argv if a.startswith("--"))
args = [a for a in sys.argv if not a.startswith("--")]
grad = np.load(args[1])
seed, ratio = int(args[2]), float(args[3])
dims = [int(d) for d in args[4].split(",")] \
    if len(args) > 4 and args[4] != "-" else []
M = (1 << 64) - 1
PHI = 0x9E3779B97F4A7C15


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


key = (seed * PHI) & M
if "run-seed" in options:
    # echo-run's step seed (EchoHostData.h stepSeed): SplitMix64's first
    # draw from run seed * PHI + step, shifted to 53 bits.
    state = (int(options["run-seed"]) * PHI + int(options["step"])) & M
    step_seed = mix((state + PHI) & M) >> 11
    key ^= mix((step_seed + PHI) & M)


def keep(i):
    z = mix((i + key) & M)
    return (z >> 40) >= round(ratio * (1 << 24))


# One draw per index of the dims that are not broadcast, then spread along
# the broadcast dims (size 1 there, broadcast by NumPy).
drawn = [1 if d in dims else n for d, n in enumerate(grad.shape)]
draws = int(np.prod(drawn))
expected = np.array([keep(i) for i in range(draws)]).reshape(drawn)
expected = np.broadcast_to(expected, grad.shape)
got = grad != 0
assert np.array_equal(got, expected), f"{np.sum(got != expected)} mask bits differ"
np.testing.assert_allclose(grad[got], 1.0 / (1.0 - ratio), rtol=1e-6)
for d in dims:
    first = np.take(got, [0], axis=d)
    assert (got == first).all(), f"the mask varies along broadcast dim {d}"
# The share kept over the draws, within 4 standard deviations of 1 - ratio
# (and 0.03, the old bound, for many draws).
frac = expected.mean()
bound = max(0.03, 4 * (ratio * (1 - ratio) / draws) ** 0.5)
assert abs(frac - (1 - ratio)) < bound, f"kept fraction {frac}"
print(f"mask matches; {draws} draws; kept {frac:.3f}" +
      (f", constant along dims {dims}" if dims else ""))
