"""Writes inputs for npy.mlir and checks echo-run's dumps against NumPy."""
import json
import os
import sys

import numpy as np



def swap(raw, header_len, old, new):
    """`raw` with `old` replaced by `new` in the header, whose space padding
    absorbs the difference (the header keeps its length)."""
    header = raw[10:10 + header_len]
    assert old in header
    header = header.replace(old, new).replace(b" " * (len(new) - len(old)) + b"\n", b"\n")
    assert len(header) == header_len
    return raw[:10] + header + raw[10 + header_len:]


mode = sys.argv[1]
rng = np.random.default_rng(0)
if mode == "write":
    d = sys.argv[2]
    np.save(os.path.join(d, "arg0.npy"), rng.standard_normal((4, 3)).astype(np.float32))
    np.save(os.path.join(d, "arg1.npy"), rng.standard_normal((3, 2)).astype(np.float32))
    # arg2 (b) is left to the seed; arg3 is the target.
    np.save(os.path.join(d, "arg3.npy"), rng.standard_normal((4, 2)).astype(np.float32))
elif mode == "check":
    din, dout, report = sys.argv[2:5]
    x = np.load(os.path.join(din, "arg0.npy")).astype(np.float64)
    w = np.load(os.path.join(din, "arg1.npy")).astype(np.float64)
    t = np.load(os.path.join(din, "arg3.npy")).astype(np.float64)
    loss = np.load(os.path.join(dout, "out0.npy"))
    dw = np.load(os.path.join(dout, "out1.npy"))
    db = np.load(os.path.join(dout, "out2.npy"))
    assert loss.shape == () and loss.dtype == np.float32, (loss.shape, loss.dtype)
    assert dw.shape == (3, 2) and db.shape == (4, 2)
    # b is unknown here (drawn from the seed) but recoverable: db = 2(xw+b-t)/8.
    r = db.astype(np.float64) * 8 / 2
    b = r - (x @ w - t)
    np.testing.assert_allclose(loss, np.mean(r * r), rtol=1e-5)
    np.testing.assert_allclose(dw, x.T @ (2 * r / 8), rtol=1e-4, atol=1e-6)
    assert np.all(np.abs(b) <= 0.5), "b should be the seeded U(-0.5, 0.5) vector"
    rep = json.load(open(report))
    assert rep[0]["function"] == "reg_train" and len(rep[0]["losses"]) == 2
    assert abs(rep[0]["losses"][0] - float(loss)) < 1e-6
    assert rep[0]["step_time_ms"] > 0
    times = rep[0]["step_times_ms"]
    assert len(times) == 2 and all(t > 0 for t in times), times
    assert sorted(times)[1] == rep[0]["step_time_ms"], times
    print("npy ok")
elif mode == "bad-dtype":
    os.makedirs(sys.argv[2], exist_ok=True)
    np.save(os.path.join(sys.argv[2], "arg1.npy"), np.zeros((3, 2), np.float64))
elif mode == "bad-shape":
    os.makedirs(sys.argv[2], exist_ok=True)
    np.save(os.path.join(sys.argv[2], "arg1.npy"), np.zeros((4, 2), np.float32))
elif mode == "malformed":
    # One malformed arg1.npy (the argument is 3x2 f32) per case.
    d, case = sys.argv[2], sys.argv[3]
    os.makedirs(d, exist_ok=True)
    good = np.zeros((3, 2), np.float32)
    path = os.path.join(d, "arg1.npy")
    if case == "fortran":
        np.save(path, np.asfortranarray(np.arange(6, dtype=np.float32).reshape(3, 2)))
        raw = open(path, "rb").read()
        assert b"'fortran_order': True" in raw
    elif case == "big-endian":
        np.save(path, good.astype(">f4"))
    else:
        np.save(path, good)
        raw = open(path, "rb").read()
        header_len = int.from_bytes(raw[8:10], "little")
        if case == "truncated-data":
            raw = raw[:-5]
        elif case == "trailing":
            raw = raw + b"\0" * 8
        elif case == "truncated-header":
            raw = raw[:40]
        elif case == "absurd-header":
            raw = raw[:6] + bytes([2, 0]) + (0xFFFFFFF0).to_bytes(4, "little") + raw[10:]
        elif case == "magic":
            raw = b"PK" + raw[2:]
        elif case == "version":
            raw = raw[:6] + bytes([9]) + raw[7:]
        elif case == "dict":
            raw = swap(raw, header_len, b"'shape': ", b"'shape'  ")
        elif case == "negative":
            raw = swap(raw, header_len, b"(3, 2)", b"(-3, 2)")
        elif case == "huge":
            raw = swap(raw, header_len, b"(3, 2)", b"(4611686018427387904, 4)")
        else:
            raise SystemExit("unknown case " + case)
        open(path, "wb").write(raw)
