"""What the attention import checks share (check_attention_idioms.py,
check_hf_masks.py): a property line counted when it fails, the norm-wise
relative difference, and whether an IR text has a [.., t, t] tensor."""
import re

import numpy as np

failures = 0


def check(ok, line):
    global failures
    failures += not ok
    print(line + ("" if ok else "  FAILED"))


def rel(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def square(text, t):
    """Whether a tensor type of ``text`` has the trailing dims t, t."""
    return re.search(r"[<x]%dx%dx[fib]" % (t, t), text) is not None
