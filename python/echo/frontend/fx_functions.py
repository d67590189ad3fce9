"""Function-level handlers of the PyTorch importer, keyed by the op's name.

Each entry of :data:`FUNCTIONS` maps the name of a torch function (or
``torch.nn.functional`` function, or Tensor method of the same name) to a
small handler and the op's signature; :func:`call` binds the node's
arguments to that signature once, and the handler builds the Echo ops from
the bound arguments.  Statistics Echo has no op for are decomposed into the
ones it has: ``var`` is the mean of the squared deviations from the mean
(``reduce_sum``, ``broadcast``, ``sub``, ``mul``), ``std`` its ``sqrt``.
"""

import ast

import torch
import torch.nn.functional as F

from echo.models import ShapeError

__all__ = ["FUNCTIONS", "call", "normalize_dim", "pair", "num_elements"]

# name -> (handler, signature); a signature is a list of (name, default),
# with _REQUIRED for arguments that have none.
FUNCTIONS = {}
_REQUIRED = object()


def handles(*names, **signature_text):
    """Registers the decorated handler for ``names`` with the signature
    ``"input, dim=None, keepdim=False"`` (defaults are Python literals)."""
    signature = []
    for part in signature_text["signature"].split(","):
        name, _, default = part.strip().partition("=")
        signature.append((name, ast.literal_eval(default) if default
                          else _REQUIRED))

    def register(handler):
        for name in names:
            FUNCTIONS[name] = (handler, signature)
        return handler
    return register


def normalize_dim(dim, rank):
    dim = int(dim)
    if not -rank <= dim < max(rank, 1):
        raise ShapeError("dim %d out of range for rank %d" % (dim, rank))
    return dim + rank if dim < 0 else dim


def pair(v):
    return (int(v), int(v)) if isinstance(v, int) else tuple(int(x) for x in v)


def num_elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _is_torch_op(target, name):
    """A Tensor method, or torch's / torch.nn.functional's own function of
    that name (not a user's function that happens to share it)."""
    return isinstance(target, str) or any(
        target is getattr(ns, name, None) for ns in (torch, F))


def call(imp, target, name, args, kwargs):
    """The handler's result for the node calling ``target``, or
    ``NotImplemented`` when :data:`FUNCTIONS` has no entry for it."""
    entry = FUNCTIONS.get(name)
    if entry is None or not _is_torch_op(target, name):
        return NotImplemented
    handler, signature = entry
    if name in ("var", "std", "var_mean", "std_mean"):
        args, kwargs = _unbiased_overload(args, kwargs)
    imp.require(len(args) <= len(signature), "%d arguments to %s" % (
        len(args), name))
    bound = {}
    for (arg, default), value in zip(signature, args):
        bound[arg] = value
    for arg, value in kwargs.items():
        imp.require(arg in dict(signature) and arg not in bound,
                    "the argument '%s' of %s" % (arg, name))
        bound[arg] = value
    for arg, default in signature:
        if arg not in bound:
            imp.require(default is not _REQUIRED, "%s without its '%s'" % (
                name, arg))
            bound[arg] = default
    return handler(imp, **bound)


# -- reductions ---------------------------------------------------------------

def _dims(x, dim):
    if dim is None:
        return list(range(x.rank))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted(set(normalize_dim(d, x.rank) for d in dims))


def _keep(imp, y, x, dims, keepdim):
    if not keepdim:
        return y
    return imp.g.reshape(y, [1 if i in dims else d
                             for i, d in enumerate(x.shape)])


def reduce(imp, x, dim, keepdim, mean):
    """sum (or mean) of ``x`` over ``dim`` (all dims when None)."""
    x = imp.tensor(x)
    dims = _dims(x, dim)
    y = imp.g.reduce_sum(x, dims)
    if mean:
        count = num_elements([x.shape[d] for d in dims])
        y = imp.g.mul(y, imp.g.constant(1.0 / count, y.shape))
    return _keep(imp, y, x, dims, keepdim)


@handles("sum", signature="input, dim=None, keepdim=False, dtype=None")
def _sum(imp, input, dim, keepdim, dtype):
    imp.require(dtype is None, "sum with a dtype")
    return reduce(imp, input, dim, keepdim, mean=False)


@handles("mean", signature="input, dim=None, keepdim=False, dtype=None")
def _mean(imp, input, dim, keepdim, dtype):
    imp.require(dtype is None, "mean with a dtype")
    return reduce(imp, input, dim, keepdim, mean=True)


def _unbiased_overload(args, kwargs):
    """``var(x, False)`` is ``var(x, unbiased=False)``: the overload without
    dims takes the flag second."""
    if len(args) >= 2 and isinstance(args[1], bool):
        kwargs = dict(kwargs, unbiased=args[1])
        args = args[:1] + args[2:]
    return args, kwargs


def _variance(imp, x, dim, unbiased, keepdim, correction):
    """(var, mean) of ``x`` over ``dim``: sum((x - mean)^2) / (n - c), with
    c = ``correction`` or, when None, 1 if ``unbiased`` (PyTorch's
    default) else 0.  Both keep the reduced dims when ``keepdim``."""
    x = imp.tensor(x)
    imp.require(x.dtype == "f32", "the variance of %s" % x.type)
    dims = _dims(x, dim)
    if correction is None:
        correction = 1 if unbiased in (None, True) else 0
    count = num_elements([x.shape[d] for d in dims])
    imp.require(count > correction, "the variance of %d values with "
                "correction %s" % (count, correction))
    g = imp.g
    mean = reduce(imp, x, dims, True, mean=True)
    centered = g.sub(x, imp.broadcast_to(mean, x.shape))
    squares = g.reduce_sum(g.mul(centered, centered), dims)
    var = g.mul(squares, g.constant(1.0 / (count - correction),
                                    squares.shape))
    return _keep(imp, var, x, dims, keepdim), \
        mean if keepdim else g.reshape(mean, var.shape)


_VAR = "input, dim=None, unbiased=None, keepdim=False, correction=None"


@handles("var", signature=_VAR)
def _var(imp, input, dim, unbiased, keepdim, correction):
    return _variance(imp, input, dim, unbiased, keepdim, correction)[0]


@handles("var_mean", signature=_VAR)
def _var_mean(imp, input, dim, unbiased, keepdim, correction):
    return _variance(imp, input, dim, unbiased, keepdim, correction)


@handles("std", signature=_VAR)
def _std(imp, input, dim, unbiased, keepdim, correction):
    var = _variance(imp, input, dim, unbiased, keepdim, correction)[0]
    return imp.g.sqrt(var)


@handles("std_mean", signature=_VAR)
def _std_mean(imp, input, dim, unbiased, keepdim, correction):
    var, mean = _variance(imp, input, dim, unbiased, keepdim, correction)
    return imp.g.sqrt(var), mean


# -- convolution --------------------------------------------------------------

def conv2d(imp, x, weight, bias, stride, padding, dilation=1, groups=1,
           padding_mode="zeros"):
    """``echo.conv2d`` (and the bias added over the channel dim); the
    weight may be any value: a parameter or one computed from it."""
    imp.require(groups == 1, "groups=%d" % groups)
    imp.require(pair(dilation) == (1, 1), "dilation %s" % (dilation,))
    imp.require(padding_mode == "zeros", "padding_mode '%s'" % padding_mode)
    imp.require(not isinstance(padding, str),
                "padding '%s' (give the padding in numbers)" % (padding,))
    x, weight = imp.tensor(x), imp.tensor(weight, "weight")
    imp.require(x.rank == 4 and weight.rank == 4,
                "conv2d of %s by %s (Echo convolves NCHW by FCHW)" % (
                    x.type, weight.type))
    g = imp.g
    y = g.conv2d(x, weight, pair(stride), pair(padding))
    if bias is not None:
        bias = imp.tensor(bias, "bias")
        y = g.add(y, g.broadcast(bias, y.shape, [0, 2, 3]))
    return y


@handles("conv2d", signature="input, weight, bias=None, stride=1, "
                             "padding=0, dilation=1, groups=1")
def _conv2d(imp, input, weight, bias, stride, padding, dilation, groups):
    return conv2d(imp, input, weight, bias, stride, padding, dilation,
                  groups)
