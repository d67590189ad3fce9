#!/usr/bin/python3
"""Checks of `echo-run --function` on the adopted steps of examples/adopt.

  mlp-inputs DIR             the TOSA MLP step's arguments as DIR/argN.npy
  mlp-reference IN OUT       OUT/outN.npy (loss, d w1, d w2) against PyTorch
                             f64 autograd of the same MLP on IN/argN.npy
  inputs STEP DIR            the arguments of STEP (cnn, rnn) as DIR/argN.npy
                             (the CNN's labels one-hot rows)
  reference STEP IN OUT      OUT/outN.npy against PyTorch f64 autograd of
                             STEP on IN/argN.npy
  write-npy PATH DTYPE SHAPE  an .npy of DTYPE (float32, ...) and SHAPE
                             (2x3, or - for a 0-d array): 0, 0.5, 1, ...
  sum OUT A B                OUT == A + B elementwise, exactly
  same BASE DIR...           every BASE/outN.npy bitwise equal to DIR/outN.npy
  memory NONE.json S.json... the measured bytes beside the estimates: the
                             measured peak is the plan's step bytes plus the
                             libraries' workspace, and a strategy whose
                             planned step_bytes (for echo and mirror, also
                             whose estimated peak_live_bytes) are below
                             none's measures below none
"""
import json
import os
import sys

import numpy as np


def mlp_inputs(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(0)
    shapes = [(1, 64, 128), (1, 128, 256), (1, 256, 10), (1, 64, 10)]
    bounds = [1.0, 128 ** -0.5, 256 ** -0.5, 1.0]
    for i, (shape, bound) in enumerate(zip(shapes, bounds)):
        a = rng.uniform(-bound, bound, size=shape).astype(np.float32)
        np.save(os.path.join(out, "arg%d.npy" % i), a)


def mlp_reference(inputs, outputs):
    import torch

    x, w1, w2, y = [
        torch.from_numpy(np.load(os.path.join(inputs, "arg%d.npy" % i))).double()
        for i in range(4)
    ]
    w1.requires_grad_(True)
    w2.requires_grad_(True)
    # The step's forward: matmul, ReLU (clamp at 0), tanh, matmul, the
    # summed squared error.
    t = torch.tanh(torch.relu(x @ w1))
    loss = ((t @ w2 - y) ** 2).sum()
    loss.backward()
    compare(outputs, [loss.detach().reshape(1, 1, 1), w1.grad, w2.grad])


STEPS = {
    # name: (argument shapes, uniform bounds (None: one-hot rows))
    "cnn": ([(4, 16, 16, 3), (8, 3, 3, 3), (1, 512, 10), (1, 4, 10)],
            [1.0, 27 ** -0.5, 512 ** -0.5, None]),
    "rnn": ([(1, 8, 32)] * 3 + [(1, 32, 64), (1, 64, 64), (1, 64, 4),
                                (1, 8, 4)],
            [1.0, 1.0, 1.0, 32 ** -0.5, 64 ** -0.5, 64 ** -0.5, 1.0]),
}


def step_inputs(step, out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(1)
    for i, (shape, bound) in enumerate(zip(*STEPS[step])):
        if bound is None:
            a = np.zeros(shape, np.float32)
            rows = a.reshape(-1, shape[-1])
            rows[np.arange(len(rows)), rng.randint(0, shape[-1], len(rows))] = 1
        else:
            a = rng.uniform(-bound, bound, size=shape).astype(np.float32)
        np.save(os.path.join(out, "arg%d.npy" % i), a)


def cnn_loss(x, wc, wl, y):
    import torch
    import torch.nn.functional as F

    # NHWC images, OHWI filters, as TOSA has them.
    h = F.conv2d(x.permute(0, 3, 1, 2), wc.permute(0, 3, 1, 2), padding=1)
    p = F.avg_pool2d(torch.relu(h), 2).permute(0, 2, 3, 1)
    logits = p.reshape(1, 4, 512) @ wl
    return -(y * torch.log_softmax(logits, dim=2)).sum() / 4


def rnn_loss(x1, x2, x3, w, u, v, y):
    import torch

    h = torch.tanh(x1 @ w)
    h = torch.tanh(x2 @ w + h @ u)
    h = torch.tanh(x3 @ w + h @ u)
    return ((h @ v - y) ** 2).sum()


def step_reference(step, inputs, outputs):
    import torch

    args = [
        torch.from_numpy(np.load(os.path.join(inputs, "arg%d.npy" % i))).double()
        for i in range(len(STEPS[step][0]))
    ]
    params = {"cnn": [1, 2], "rnn": [3, 4, 5]}[step]
    for i in params:
        args[i].requires_grad_(True)
    loss = {"cnn": cnn_loss, "rnn": rnn_loss}[step](*args)
    loss.backward()
    compare(outputs, [loss.detach().reshape(1, 1, 1)] +
            [args[i].grad for i in params])


def compare(outputs, expected):
    import torch

    for i, want in enumerate(expected):
        got = torch.from_numpy(np.load(os.path.join(outputs, "out%d.npy" % i)))
        if got.dtype != torch.float32 or tuple(got.shape) != tuple(want.shape):
            sys.exit("out%d.npy: %s %s, expected float32 %s" %
                     (i, got.dtype, tuple(got.shape), tuple(want.shape)))
        err = float((got.double() - want).norm() / want.norm())
        print("out%d.npy: relative error %.1e against PyTorch f64" % (i, err))
        if not err <= 1e-5:
            sys.exit("out%d.npy: relative error %g > 1e-5" % (i, err))
    print("reference ok")


def same(base, dirs):
    names = sorted(n for n in os.listdir(base) if n.endswith(".npy"))
    if not names:
        sys.exit("%s has no .npy files" % base)
    for d in dirs:
        for n in names:
            with open(os.path.join(base, n), "rb") as a, \
                    open(os.path.join(d, n), "rb") as b:
                if a.read() != b.read():
                    sys.exit("%s differs from %s" %
                             (os.path.join(d, n), os.path.join(base, n)))
        print("bitwise equal: %s (%d files)" % (os.path.basename(d), len(names)))


def memory(none_path, paths):
    def load(path):
        with open(path) as f:
            (entry,) = json.load(f)
        for key in ("measured_peak_bytes", "peak_live_bytes", "step_bytes",
                    "library_workspace_bytes"):
            if not isinstance(entry.get(key), int):
                sys.exit("%s: no integer '%s'" % (path, key))
        if entry["measured_peak_bytes"] != (entry["step_bytes"] +
                                            entry["library_workspace_bytes"]):
            sys.exit("%s: measured_peak_bytes %d is not step_bytes %d plus "
                     "library_workspace_bytes %d" %
                     (path, entry["measured_peak_bytes"], entry["step_bytes"],
                      entry["library_workspace_bytes"]))
        return entry

    none = load(none_path)
    for path in [none_path] + paths:
        e = load(path)
        print("%s: estimated %d, planned %d, measured %d" %
              (e["strategy"], e["peak_live_bytes"], e["step_bytes"],
               e["measured_peak_bytes"]))
        # Echo and mirror are held to their estimate; every strategy to its
        # plan.
        saves = e["step_bytes"] < none["step_bytes"] or (
            e["strategy"] in ("echo", "mirror") and
            e["peak_live_bytes"] < none["peak_live_bytes"])
        if saves and not e["measured_peak_bytes"] < none["measured_peak_bytes"]:
            sys.exit("%s: the estimate saves but %d measured bytes are not "
                     "below none's %d" % (path, e["measured_peak_bytes"],
                                          none["measured_peak_bytes"]))


def write_npy(path, dtype, shape):
    dims = () if shape == "-" else tuple(int(d) for d in shape.split("x"))
    a = (np.arange(int(np.prod(dims))) * 0.5).astype(dtype).reshape(dims)
    np.save(path, a)


def check_sum(out, a, b):
    got, want = np.load(out), np.load(a) + np.load(b)
    if got.dtype != want.dtype or got.shape != want.shape or \
            not np.array_equal(got, want):
        sys.exit("%s is not %s + %s" % (out, a, b))
    print("sum ok: %s %s" % (got.dtype, got.shape))


def main(argv):
    if len(argv) >= 2 and argv[0] == "mlp-inputs":
        mlp_inputs(argv[1])
    elif len(argv) == 3 and argv[0] == "mlp-reference":
        mlp_reference(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "inputs" and argv[1] in STEPS:
        step_inputs(argv[1], argv[2])
    elif len(argv) == 4 and argv[0] == "reference" and argv[1] in STEPS:
        step_reference(argv[1], argv[2], argv[3])
    elif len(argv) == 4 and argv[0] == "write-npy":
        write_npy(argv[1], argv[2], argv[3])
    elif len(argv) == 4 and argv[0] == "sum":
        check_sum(argv[1], argv[2], argv[3])
    elif len(argv) >= 3 and argv[0] == "same":
        same(argv[1], argv[2:])
    elif len(argv) >= 2 and argv[0] == "memory":
        memory(argv[1], argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
