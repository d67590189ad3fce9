"""Cross-checks the ops of EchoMoreOps.td against PyTorch in f64 autograd
(see torch-more-ops.test): transposed convolution (F.conv_transpose2d),
nearest and bilinear upsampling (F.interpolate), sin, cos and the
stop-gradient (Tensor.detach).

For each case one model is built with echo.models.GraphBuilder: the op's
inputs are parameters, and the loss is the mean squared error of its output
against a data target. The same f32 inputs (from NumPy, fixed seed) go to

- echo-run --inputs --dump (the f32 step; with --library-calls=false as
  well where the op has a library call) and --reference-dump (the f64
  reference of that step, generated code), and
- PyTorch in f64: the op, F.mse_loss, backward.

Per case it prints the relative error (norm-wise, over the loss and every
gradient together) of echo's f64 reference and of its f32 steps against
PyTorch's f64, and FAILED past 1e-12 and 2e-6 respectively; a summary
line ends the output. Usage: check_torch_more_ops.py WORK_DIR
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

from echo.models import GraphBuilder, bool_attr, f64_attr, i64_array_attr, \
    i64_attr

F64_TOLERANCE = 1e-12
F32_TOLERANCE = 2e-6

work = sys.argv[1]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(20261129)


def out_shape_of(torch_op, shapes):
    with torch.no_grad():
        return list(torch_op(*[torch.zeros(s, dtype=torch.float64)
                               for s in shapes]).shape)


def conv_transpose(x_shape, w_shape, stride, padding, output_padding=(0, 0),
                   groups=1):
    def torch_op(x, w):
        return F.conv_transpose2d(x, w, None, stride, padding,
                                  output_padding, groups)

    def echo(g, x, w):
        attrs = {"strides": i64_array_attr(stride),
                 "padding": i64_array_attr(padding)}
        if any(output_padding):
            attrs["output_padding"] = i64_array_attr(output_padding)
        if groups != 1:
            attrs["groups"] = i64_attr(groups)
        shape = out_shape_of(torch_op, [x_shape, w_shape])
        return g.op("conv_transpose2d", [x, w], [(shape, "f32")], attrs)[0]
    return [x_shape, w_shape], echo, torch_op, True


def upsample(x_shape, mode, size=None, scale=None, align_corners=None):
    def torch_op(x):
        return F.interpolate(x, size=size, scale_factor=scale, mode=mode,
                             align_corners=align_corners)

    def echo(g, x):
        attrs = {}
        if align_corners:
            attrs["align_corners"] = bool_attr(True)
        elif scale is not None:
            attrs["scales_h"] = f64_attr(float(scale))
            attrs["scales_w"] = f64_attr(float(scale))
        shape = out_shape_of(torch_op, [x_shape])
        return g.op("upsample_%s2d" % mode, [x], [(shape, "f32")],
                    attrs)[0]
    return [x_shape], echo, torch_op, False


def unary(name, scale):
    def torch_op(x):
        return getattr(torch, name)(x * scale)

    def echo(g, x):
        y = g.mul(x, g.constant(scale, x.shape))
        return g.op(name, [y], [(y.shape, "f32")])[0]
    return [[3, 5, 7]], echo, torch_op, False


def detached_product(shape):
    """x · stop(tanh(x)): the gradient is tanh(x), not tanh(x) + x·tanh'."""
    def torch_op(x):
        return x * torch.tanh(x).detach()

    def echo(g, x):
        t = g.op("stop_gradient", [g.tanh(x)], [(x.shape, "f32")])[0]
        return g.mul(x, t)
    return [shape], echo, torch_op, False


CASES = [
    ("conv_transpose 2x2/2 (UNet)", conv_transpose([2, 4, 3, 3],
                                                    [4, 3, 2, 2], (2, 2),
                                                    (0, 0))),
    ("conv_transpose 4x4/2 pad 1 (DCGAN)",
     conv_transpose([2, 4, 4, 4], [4, 2, 4, 4], (2, 2), (1, 1))),
    ("conv_transpose 3x3/2 pad 1 output_padding 1",
     conv_transpose([2, 3, 4, 5], [3, 2, 3, 3], (2, 2), (1, 1), (1, 1))),
    ("conv_transpose 3x3/2 output_padding 1 > padding 0",
     conv_transpose([2, 3, 4, 4], [3, 2, 3, 3], (2, 2), (0, 0), (1, 1))),
    ("conv_transpose groups 2 stride 1x2 pad 1x0",
     conv_transpose([2, 4, 5, 4], [4, 3, 3, 2], (1, 2), (1, 0), (0, 1), 2)),
    ("conv_transpose depthwise groups=C=3",
     conv_transpose([2, 3, 4, 4], [3, 1, 3, 3], (2, 2), (1, 1), (1, 0), 3)),
    ("nearest x2", upsample([2, 3, 4, 5], "nearest", scale=2)),
    ("nearest size 7x9", upsample([2, 3, 4, 5], "nearest", size=(7, 9))),
    ("nearest scale 1.7", upsample([2, 3, 5, 5], "nearest", scale=1.7)),
    ("nearest down 5x7 -> 3x2", upsample([2, 3, 5, 7], "nearest",
                                         size=(3, 2))),
    ("bilinear x2", upsample([2, 3, 4, 5], "bilinear", scale=2,
                             align_corners=False)),
    ("bilinear x2 align_corners", upsample([2, 3, 4, 5], "bilinear",
                                           scale=2, align_corners=True)),
    ("bilinear size 7x9", upsample([2, 3, 4, 5], "bilinear", size=(7, 9),
                                   align_corners=False)),
    ("bilinear size 7x9 align_corners",
     upsample([2, 3, 4, 5], "bilinear", size=(7, 9), align_corners=True)),
    ("bilinear scale 1.7", upsample([2, 3, 5, 5], "bilinear", scale=1.7,
                                    align_corners=False)),
    ("bilinear down 9x7 -> 4x3", upsample([2, 3, 9, 7], "bilinear",
                                          size=(4, 3), align_corners=False)),
    ("bilinear down 9x7 -> 4x1 align_corners",
     upsample([2, 3, 9, 7], "bilinear", size=(4, 1), align_corners=True)),
    ("sin (x 4)", unary("sin", 4.0)),
    ("cos (x 4)", unary("cos", 4.0)),
    ("x * tanh(x).detach()", detached_product([3, 5, 7])),
]


def relative(mine, theirs):
    """Norm-wise relative error over lists of arrays taken together."""
    diff = sum(float(np.sum((np.asarray(a, np.float64) - b) ** 2))
               for a, b in zip(mine, theirs))
    norm = sum(float(np.sum(np.asarray(b, np.float64) ** 2)) for b in theirs)
    return (diff / norm) ** 0.5


def echo_run(model, inputs_dir, dump, extra):
    return subprocess.run(
        ["echo-run", "--opt-level=0", model, "--inputs=" + inputs_dir,
         "--dump=" + dump, "--quiet"] + extra, capture_output=True,
        text=True)


failures = 0
for index, (name, (shapes, echo_op, torch_op, library)) in enumerate(CASES):
    case_dir = os.path.join(work, "case%d" % index)
    inputs_dir = os.path.join(case_dir, "inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    values = [rng.standard_normal(s).astype(np.float32) for s in shapes]

    g = GraphBuilder("case%d" % index)
    params = [g.param("p%d" % i, s) for i, s in enumerate(shapes)]
    out_shape = out_shape_of(torch_op, shapes)
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

    ref = os.path.join(case_dir, "f64")
    runs = [("f32", ["--reference-dump=" + ref])]
    if library:
        runs.append(("generated", ["--library-calls=false"]))
    results = {}
    for label, extra in runs:
        dump = os.path.join(case_dir, label)
        run = echo_run(model, inputs_dir, dump, extra)
        if run.returncode != 0:
            print("%s: echo-run FAILED\n%s" % (name, run.stderr))
            break
        results[label] = dump
    if len(results) != len(runs):
        failures += 1
        continue

    tensors = [torch.tensor(v, dtype=torch.float64, requires_grad=True)
               for v in values]
    loss = F.mse_loss(torch_op(*tensors),
                      torch.from_numpy(target).double())
    loss.backward()
    theirs = [loss.detach().numpy()] + [p.grad.numpy() for p in tensors]
    count = len(theirs)

    def load(directory):
        return [np.load(os.path.join(directory, "out%d.npy" % i))
                for i in range(count)]
    f64 = load(ref)
    assert all(a.shape == b.shape for a, b in zip(f64, theirs)), name
    errors = [("f64", relative(f64, theirs), F64_TOLERANCE)]
    for label in results:
        errors.append((label, relative(load(results[label]), theirs),
                       F32_TOLERANCE))
    bad = any(e > tol for _, e, tol in errors)
    failures += bad
    print("%-52s %s%s" % (name + ":", "  ".join(
        "%s %.2e" % (label, e) for label, e, _ in errors),
        "  FAILED" if bad else ""))

print("%d cases, %d failed" % (len(CASES), failures))
sys.exit(1 if failures else 0)
