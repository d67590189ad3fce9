"""NaN propagation through every op family (see nan-propagation.test).

For each family, a small model whose data argument %x holds one NaN (or, for
dropout, a NaN that the mask drops) runs one step of echo-run per strategy.
PyTorch propagates NaN through every one of these ops, so the loss must not
be finite and echo-run must stop with its non-finite-loss error. Prints one
line per family and strategy.
"""
import os
import subprocess
import sys

import numpy as np

tmp = sys.argv[1]
os.makedirs(tmp, exist_ok=True)

T = "tensor<%sxf32>"


def model(args, body, result):
    """A model over `args` (name, type, is-param) whose ops `body` end in the
    value `result` of type `tensor<4x8xf32>`-like; the loss is its mse
    against a zero target."""
    sig = ", ".join("%%%s: %s%s" % (n, t, " {echo.param}" if p else "")
                    for n, t, p in args)
    rtype = result[1]
    return """func.func @m(%s) -> tensor<f32> {
%s
  %%zero = arith.constant dense<0.0> : %s
  %%loss = "echo.mse_loss"(%s, %%zero) : (%s, %s) -> tensor<f32>
  return %%loss : tensor<f32>
}
""" % (sig, body, rtype, result[0], rtype, rtype)


X = [("x", "tensor<4x8xf32>", False), ("w", "tensor<4x8xf32>", True)]
X4 = [("x", "tensor<2x3x4x4xf32>", False)]


def un(op):
    return model(X, '  %%y = "echo.%s"(%%x) : (tensor<4x8xf32>) -> '
                 'tensor<4x8xf32>\n  %%r = "echo.mul"(%%y, %%w) : '
                 '(tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>' % op,
                 ("%r", "tensor<4x8xf32>"))


def bin_(op):
    return model(X, '  %%r = "echo.%s"(%%x, %%w) : (tensor<4x8xf32>, '
                 'tensor<4x8xf32>) -> tensor<4x8xf32>' % op,
                 ("%r", "tensor<4x8xf32>"))


families = {}
for op in ("add", "sub", "mul", "div"):
    families[op] = bin_(op)
for op in ("neg", "exp", "log", "tanh", "sigmoid", "relu", "sqrt"):
    families[op] = un(op)
# The activations of the PyTorch importer; clamp (relu6, hardtanh),
# hardsigmoid and hardswish bound with NaN-propagating min/max as
# torch.clamp does.
for op in ("erf", "silu", "hardswish", "hardsigmoid", "mish", "gelu"):
    families[op] = un(op)
families["gelu_tanh"] = un('gelu"(%x) {tanh_approximation = true} : '
                           '(tensor<4x8xf32>) -> tensor<4x8xf32>\n'
                           '  %unused = "echo.neg')
families["clamp"] = un('clamp"(%x) {min = 0.0 : f64, max = 6.0 : f64} : '
                       '(tensor<4x8xf32>) -> tensor<4x8xf32>\n'
                       '  %unused = "echo.neg')
# select: the NaN (element 5) is in the chosen operand.
families["select"] = model(
    X, '  %m = arith.constant dense<[[false, true, false, true, false, true, '
    'false, true], [true, false, true, false, true, false, true, false], '
    '[false, true, false, true, false, true, false, true], [true, false, '
    'true, false, true, false, true, false]]> : tensor<4x8xi1>\n'
    '  %r = "echo.select"(%m, %x, %w) : (tensor<4x8xi1>, tensor<4x8xf32>, '
    'tensor<4x8xf32>) -> tensor<4x8xf32>', ("%r", "tensor<4x8xf32>"))
families["softmax"] = un("softmax\"(%x) {axis = 1 : i64} : (tensor<4x8xf32>) "
                         "-> tensor<4x8xf32>\n  %unused = \"echo.neg")
families["reduce_sum"] = model(
    X, '  %s = "echo.reduce_sum"(%x) {dimensions = array<i64: 1>} : '
    '(tensor<4x8xf32>) -> tensor<4xf32>\n  %r = "echo.broadcast"(%s) '
    '{dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<4x8xf32>\n'
    '  %q = "echo.mul"(%r, %w) : (tensor<4x8xf32>, tensor<4x8xf32>) -> '
    'tensor<4x8xf32>', ("%q", "tensor<4x8xf32>"))
families["reduce_max"] = families["reduce_sum"].replace("reduce_sum",
                                                        "reduce_max")
families["matmul"] = model(
    X, '  %r = "echo.matmul"(%x, %w) {transpose_b = true} : '
    '(tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>',
    ("%r", "tensor<4x4xf32>"))
families["linear"] = model(
    X + [("b", "tensor<4xf32>", True)],
    '  %r = "echo.linear"(%x, %w, %b) : (tensor<4x8xf32>, tensor<4x8xf32>, '
    'tensor<4xf32>) -> tensor<4x4xf32>', ("%r", "tensor<4x4xf32>"))
families["batch_matmul"] = model(
    [("x", "tensor<2x4x8xf32>", False), ("w", "tensor<2x8x4xf32>", True)],
    '  %r = "echo.batch_matmul"(%x, %w) : (tensor<2x4x8xf32>, '
    'tensor<2x8x4xf32>) -> tensor<2x4x4xf32>', ("%r", "tensor<2x4x4xf32>"))
families["conv2d"] = model(
    X4 + [("w", "tensor<4x3x3x3xf32>", True)],
    '  %r = "echo.conv2d"(%x, %w) {padding = array<i64: 1, 1>, strides = '
    'array<i64: 1, 1>} : (tensor<2x3x4x4xf32>, tensor<4x3x3x3xf32>) -> '
    'tensor<2x4x4x4xf32>', ("%r", "tensor<2x4x4x4xf32>"))
for pool in ("max_pool2d", "avg_pool2d"):
    families[pool] = model(
        X4 + [("w", "tensor<2x3x2x2xf32>", True)],
        '  %%p = "echo.%s"(%%x) {kernel = array<i64: 2, 2>, padding = '
        'array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) '
        '-> tensor<2x3x2x2xf32>\n  %%r = "echo.mul"(%%p, %%w) : '
        '(tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>'
        % pool, ("%r", "tensor<2x3x2x2xf32>"))
families["batch_norm"] = model(
    X4 + [("g", "tensor<3xf32>", True), ("b", "tensor<3xf32>", True)],
    '  %r = "echo.batch_norm"(%x, %g, %b) {epsilon = 1.0e-05 : f64} : '
    '(tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> '
    'tensor<2x3x4x4xf32>', ("%r", "tensor<2x3x4x4xf32>"))
families["layer_norm"] = model(
    X + [("g", "tensor<8xf32>", True), ("b", "tensor<8xf32>", True)],
    '  %r = "echo.layer_norm"(%x, %g, %b) {epsilon = 1.0e-05 : f64} : '
    '(tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>',
    ("%r", "tensor<4x8xf32>"))
families["shape"] = model(
    X, '  %s = "echo.slice"(%x) {offsets = array<i64: 0, 0>, sizes = '
    'array<i64: 2, 8>} : (tensor<4x8xf32>) -> tensor<2x8xf32>\n'
    '  %c = "echo.concat"(%s, %s) {axis = 0 : i64} : (tensor<2x8xf32>, '
    'tensor<2x8xf32>) -> tensor<4x8xf32>\n'
    '  %t = "echo.transpose"(%c) {permutation = array<i64: 1, 0>} : '
    '(tensor<4x8xf32>) -> tensor<8x4xf32>\n'
    '  %r = "echo.reshape"(%t) : (tensor<8x4xf32>) -> tensor<4x8xf32>\n'
    '  %q = "echo.mul"(%r, %w) : (tensor<4x8xf32>, tensor<4x8xf32>) -> '
    'tensor<4x8xf32>', ("%q", "tensor<4x8xf32>"))
families["embedding"] = model(
    [("x", "tensor<5x8xf32>", True), ("ids", "tensor<4xi32>", False)],
    '  %r = "echo.embedding"(%ids, %x) : (tensor<4xi32>, tensor<5x8xf32>) -> '
    'tensor<4x8xf32>', ("%r", "tensor<4x8xf32>"))
families["cross_entropy"] = """func.func @m(%x: tensor<4x8xf32>, %labels: tensor<4xi32>, %w: tensor<4x8xf32> {echo.param}) -> tensor<f32> {
  %r = "echo.mul"(%x, %w) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %loss = "echo.cross_entropy"(%r, %labels) : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
"""
# A dropped NaN: every element is NaN and the ratio drops all 32 of them
# (at this seed), so only NaN * 0 can make the loss NaN.
families["dropout"] = model(
    X, '  %y, %m = "echo.dropout"(%x) {ratio = 0.999 : f64, seed = 3 : i64}'
    ' : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)\n'
    '  %r = "echo.mul"(%y, %w) : (tensor<4x8xf32>, tensor<4x8xf32>) -> '
    'tensor<4x8xf32>', ("%r", "tensor<4x8xf32>"))

rng = np.random.default_rng(0)
for name, text in families.items():
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.mlir")
    with open(path, "w") as f:
        f.write(text)
    # Argument 0 is %x everywhere: positive data (log and sqrt stay finite
    # elsewhere) with one NaN.
    shape = [int(s) for s in text.split("%x: tensor<")[1].split("xf32>")[0]
             .split("x")]
    x = rng.uniform(0.5, 2.0, shape).astype(np.float32)
    if name in ("dropout", "embedding"):
        x[...] = np.nan
    else:
        x.flat[5] = np.nan
    np.save(os.path.join(d, "arg0.npy"), x)
    for strategy in ("none", "echo"):
        run = subprocess.run(
            ["echo-run", path, "--inputs=" + d, "--steps=1",
             "--strategy=" + strategy], capture_output=True, text=True)
        err = run.stderr.strip().splitlines()
        print("%s %s: exit %d: %s" % (name, strategy, run.returncode,
                                      err[-1] if err else "(no error)"))
