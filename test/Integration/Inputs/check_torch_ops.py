"""Cross-checks grouped/depthwise convolution and the pooling options
against PyTorch's F.conv2d, F.max_pool2d, F.avg_pool2d and
F.adaptive_avg_pool2d in f64 autograd (see torch-ops.test).

For each case one model is built with echo.models.GraphBuilder: the op's
inputs are parameters, and the loss is the mean squared error of its output
against a data target. The same f32 inputs (from NumPy, fixed seed) go to

- echo-run --inputs --dump (the f32 step: oneDNN for convolutions) and
  --reference-dump (the f64 reference of that step, generated code), and
- PyTorch in f64: the op, F.mse_loss, backward.

Per case it prints the relative error (norm-wise, over the loss and every
gradient together) of echo's f64 reference and of its f32 step against
PyTorch's f64, and FAILED past 1e-12 and 2e-6 respectively; a summary line
ends the output. Usage: check_torch_ops.py WORK_DIR
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

from echo.models import GraphBuilder

F64_TOLERANCE = 1e-12
F32_TOLERANCE = 2e-6

work = sys.argv[1]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(20261124)


def conv(x_shape, w_shape, stride, padding, groups):
    """F.conv2d(x, w, stride, padding, groups=groups)."""
    def echo(g, x, w):
        return g.conv2d(x, w, stride, padding, groups)

    def torch_op(x, w):
        return F.conv2d(x, w, None, stride, padding, 1, groups)
    return [x_shape, w_shape], echo, torch_op


def max_pool(x_shape, kernel, stride, padding, ceil_mode):
    def echo(g, x):
        return g.max_pool2d(x, kernel, stride, padding, ceil_mode)

    def torch_op(x):
        return F.max_pool2d(x, kernel, stride, padding, ceil_mode=ceil_mode)
    return [x_shape], echo, torch_op


def avg_pool(x_shape, kernel, stride, padding, ceil_mode, include_pad):
    def echo(g, x):
        return g.avg_pool2d(x, kernel, stride, padding, ceil_mode,
                            include_pad)

    def torch_op(x):
        return F.avg_pool2d(x, kernel, stride, padding, ceil_mode=ceil_mode,
                            count_include_pad=include_pad)
    return [x_shape], echo, torch_op


def adaptive(x_shape, size):
    def echo(g, x):
        return g.adaptive_avg_pool2d(x, size)

    def torch_op(x):
        return F.adaptive_avg_pool2d(x, size)
    return [x_shape], echo, torch_op


CASES = [
    ("conv groups=2 stride 2 pad 1",
     conv([2, 4, 7, 7], [6, 2, 3, 3], (2, 2), (1, 1), 2)),
    ("conv groups=3 1x1", conv([2, 6, 5, 5], [9, 2, 1, 1], (1, 1), (0, 0), 3)),
    ("conv depthwise groups=C=4",
     conv([2, 4, 8, 8], [4, 1, 3, 3], (1, 1), (1, 1), 4)),
    ("conv depthwise x2 multiplier stride 2",
     conv([2, 3, 9, 9], [6, 1, 5, 3], (2, 1), (2, 1), 3)),
    ("max_pool 3/2 ceil", max_pool([2, 3, 8, 8], (3, 3), (2, 2), (0, 0),
                                   True)),
    ("max_pool 2/2 ceil odd", max_pool([2, 3, 7, 9], (2, 2), (2, 2), (0, 0),
                                       True)),
    ("max_pool 3/2 pad 1 ceil", max_pool([2, 3, 6, 7], (3, 3), (2, 2),
                                          (1, 1), True)),
    ("max_pool 3/3 pad 1 ceil", max_pool([2, 3, 7, 8], (3, 3), (3, 3),
                                          (1, 1), True)),
    ("max_pool 2/2 pad 1 ceil (last window dropped)",
     max_pool([2, 3, 7, 7], (2, 2), (2, 2), (1, 1), True)),
    ("avg_pool 3/2 pad 1 ceil include_pad",
     avg_pool([2, 3, 6, 6], (3, 3), (2, 2), (1, 1), True, True)),
    ("avg_pool 3/2 pad 1 ceil exclude_pad",
     avg_pool([2, 3, 6, 6], (3, 3), (2, 2), (1, 1), True, False)),
    ("avg_pool 3/2 pad 1 floor include_pad",
     avg_pool([2, 3, 7, 6], (3, 3), (2, 2), (1, 1), False, True)),
    ("avg_pool 2/2 pad 1 ceil include_pad (last window dropped)",
     avg_pool([2, 3, 7, 7], (2, 2), (2, 2), (1, 1), True, True)),
    ("avg_pool 2x3/2x1 pad 1x0 ceil include_pad",
     avg_pool([2, 3, 5, 6], (2, 3), (2, 1), (1, 0), True, True)),
    ("adaptive 2x2 -> 7x7 (vgg at 64x64)", adaptive([2, 4, 2, 2], (7, 7))),
    ("adaptive 7x7 -> 3x3", adaptive([2, 3, 7, 7], (3, 3))),
    ("adaptive 5x5 -> 2x2", adaptive([2, 3, 5, 5], (2, 2))),
    ("adaptive 5x7 -> 3x2", adaptive([2, 3, 5, 7], (3, 2))),
    ("adaptive 6x6 -> 1x1 (global)", adaptive([2, 3, 6, 6], (1, 1))),
]


def relative(mine, theirs):
    """Norm-wise relative error over lists of arrays taken together."""
    diff = sum(float(np.sum((np.asarray(a, np.float64) - b) ** 2))
               for a, b in zip(mine, theirs))
    norm = sum(float(np.sum(np.asarray(b, np.float64) ** 2)) for b in theirs)
    return (diff / norm) ** 0.5


failures = 0
for index, (name, (shapes, echo_op, torch_op)) in enumerate(CASES):
    case_dir = os.path.join(work, "case%d" % index)
    inputs_dir = os.path.join(case_dir, "inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    values = [rng.standard_normal(s).astype(np.float32) for s in shapes]

    g = GraphBuilder("case%d" % index)
    params = [g.param("p%d" % i, s) for i, s in enumerate(shapes)]
    # Shapes of the output from a PyTorch run, then its target (data).
    with torch.no_grad():
        out_shape = list(torch_op(*[torch.from_numpy(v).double()
                                    for v in values]).shape)
    target = rng.standard_normal(out_shape).astype(np.float32)
    y = echo_op(g, *params)
    assert list(y.shape) == out_shape, (name, y.shape, out_shape)
    t = g.data("target", out_shape)
    text = g.finish(g.mse_loss(y, t))
    model = os.path.join(case_dir, "model.mlir")
    with open(model, "w") as f:
        f.write(text)
    # Data arguments come first, then the parameters.
    for i, v in enumerate([target] + values):
        np.save(os.path.join(inputs_dir, "arg%d.npy" % i), v)

    dump, ref = os.path.join(case_dir, "f32"), os.path.join(case_dir, "f64")
    run = subprocess.run(
        ["echo-run", "--opt-level=0", model, "--inputs=" + inputs_dir,
         "--dump=" + dump, "--reference-dump=" + ref, "--quiet"],
        capture_output=True, text=True)
    if run.returncode != 0:
        print("%s: echo-run FAILED\n%s" % (name, run.stderr))
        failures += 1
        continue

    tensors = [torch.tensor(v, dtype=torch.float64, requires_grad=True)
               for v in values]
    loss = F.mse_loss(torch_op(*tensors),
                      torch.from_numpy(target).double())
    loss.backward()
    theirs = [loss.detach().numpy()] + [p.grad.numpy() for p in tensors]
    count = len(theirs)
    f32 = [np.load(os.path.join(dump, "out%d.npy" % i)) for i in range(count)]
    f64 = [np.load(os.path.join(ref, "out%d.npy" % i)) for i in range(count)]
    assert all(a.shape == b.shape for a, b in zip(f64, theirs)), name
    e64, e32 = relative(f64, theirs), relative(f32, theirs)
    bad = e64 > F64_TOLERANCE or e32 > F32_TOLERANCE
    failures += bad
    print("%-58s f64 %.2e  f32 %.2e%s" % (name + ":", e64, e32,
                                          "  FAILED" if bad else ""))

print("%d cases, %d failed" % (len(CASES), failures))
sys.exit(1 if failures else 0)
