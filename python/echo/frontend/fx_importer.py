"""Imports a PyTorch ``nn.Module`` into an Echo model (torch.fx).

:func:`import_module` traces the module with torch.fx, propagates the static
shapes of the given inputs through it (``ShapeProp``: the module runs once
on random data), and maps every node of the graph onto Echo forward ops with
:class:`echo.models.GraphBuilder`.  The result is one ``func.func`` in
generic op form that follows the model convention: the inputs in the order
given, the labels, then one ``{echo.param}`` argument per entry of
``named_parameters()``, in that order; the only result is the loss that
the importer appends (``cross_entropy`` over the last dim of the module's
output, or ``mse``).

What maps (and how):

* modules (``fx_modules``), when they run torch.nn's own forward (a
  subclass with a forward of its own is traced through): Linear, Conv2d (groups 1, no dilation), BatchNorm1d/2d (training
  mode: batch statistics; running statistics are not tracked), LayerNorm,
  ReLU, Tanh, Sigmoid, GELU(approximate='tanh') (decomposed), Softmax,
  MaxPool2d, AvgPool2d (padding excluded from the count), AdaptiveAvgPool2d
  (output dividing the input: a fixed window), Dropout (identity when p=0,
  else ``echo.dropout``: Echo's own masks), Embedding, Flatten, Identity,
  LSTM and GRU (unrolled into cells: layers, batch_first, bidirectional,
  initial states), MultiheadAttention (decomposed; no masks),
  TransformerEncoderLayer and TransformerEncoder (decomposed as PyTorch's
  slow path computes them);
* functions and methods: + - * / (with broadcasting and scalars), neg,
  matmul / @ / bmm, relu, tanh, sigmoid, exp, log, sqrt, softmax, linear,
  dropout, flatten, view / reshape, permute, transpose, t, contiguous,
  unsqueeze, squeeze, cat, stack, chunk, split, slicing with ``[...]``
  (unit steps), size / shape / dim, pooling and layer_norm functions; and,
  in ``fx_functions``, sum and mean over dims, var / std / var_mean /
  std_mean (decomposed), conv2d with any weight.

Buffers and constants may hold infinities and NaNs (a causal mask of
-inf): they are emitted in MLIR's hexadecimal spelling.  Anything else
raises :class:`UnsupportedError` naming the node, its target and the source
line it was traced from — never a silently different graph; whatever else
Python raises is reported the same way, as an :class:`ImporterError`
(``errors``).
"""

import contextlib
import dis
import io
import inspect
import math
import operator
import os
import re

import torch
import torch.fx
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp

from echo.frontend import fx_functions
from echo.frontend.errors import (ImporterError, InternalError, ModuleError,
                                  UnsupportedError, UsageError, at_node,
                                  describe, one_line, raise_site)
from echo.frontend.fx_functions import (normalize_dim as _normalize_dim,
                                        num_elements as _num, pair as _pair)
from echo.frontend.fx_modules import MODULES, library_class
from echo.models import GraphBuilder, ShapeError, Value

__all__ = ["ImporterError", "UnsupportedError", "ImportedModel",
           "import_module", "library_class", "parse_input"]


class _Proxy(torch.fx.Proxy):
    """fx's Proxy, with tuple unpacking that works on Python 3.11.

    torch 1.13 finds the UNPACK_SEQUENCE that iterates a proxy (``out, state
    = self.lstm(x)``) at instruction index ``f_lasti // 2``, which Python
    3.11's inline caches break (an IndexError); the instruction is looked up
    by its offset here.
    """

    def __iter__(self):
        frame = inspect.currentframe().f_back
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti:
                if inst.opname == "UNPACK_SEQUENCE":
                    return (self[i] for i in range(inst.argval))
                break
        return super().__iter__()


class _Tracer(torch.fx.Tracer):
    def __init__(self):
        super().__init__()
        # Every node keeps the stack it was traced from (errors name the
        # source line).
        self.record_stack_traces = True

    def proxy(self, node):
        return _Proxy(node, self)

    def is_leaf_module(self, m, qualname):
        if library_class(m) is not None:
            return True
        if any(base in MODULES for base in type(m).__mro__):
            return False  # a forward of its own: traced through
        return super().is_leaf_module(m, qualname)


class _ShapeProp(ShapeProp):
    """fx's ShapeProp, remembering the node it runs (errors name it)."""

    node = None

    def run_node(self, n):
        self.node = n
        return super().run_node(n)


_DTYPES = {"f32": ("f32", torch.float32), "float32": ("f32", torch.float32),
           "i32": ("i32", torch.int32), "int32": ("i32", torch.int32)}


def parse_input(text, default_dtype="f32"):
    """``2x3x32x32:f32`` (or ``2,3,32,32``) -> ``((2, 3, 32, 32), 'f32')``."""
    shape_text, _, dtype = text.partition(":")
    dtype = dtype or default_dtype
    if dtype not in _DTYPES:
        raise UsageError(
            "'%s': dtype '%s' is not one of f32, i32 (Echo's data and id "
            "types)" % (text, dtype))
    parts = [p for p in re.split(r"[x,]", shape_text.strip()) if p]
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        shape = ()
    if not parts or not shape or any(d < 1 for d in shape):
        raise UsageError(
            "'%s': a shape is dimensions >= 1 separated by 'x' (e.g. "
            "2x3x32x32:f32)" % text)
    return shape, _DTYPES[dtype][0]


class ImportedModel(object):
    """What :func:`import_module` returns.

    ``text``: the MLIR of the model function; ``weights``: a list of
    ``(argument index, numpy array)`` for every parameter;
    ``num_data_args``: inputs plus the labels.
    """

    def __init__(self, text, weights, num_data_args, name):
        self.text = text
        self.weights = weights
        self.num_data_args = num_data_args
        self.name = name

    def write_weights(self, directory):
        """Writes ``directory/argN.npy`` for every parameter."""
        import numpy as np
        os.makedirs(directory, exist_ok=True)
        for index, array in self.weights:
            np.save(os.path.join(directory, "arg%d.npy" % index),
                    np.ascontiguousarray(array, dtype=np.float32))


class _Importer(object):
    def __init__(self, module, inputs, loss, labels, name):
        self.module = module
        self.inputs = inputs
        self.loss = loss
        self.labels = labels
        self.g = GraphBuilder(name)
        self.params = {}  # qualified name -> Value
        # Result name of an echo.transpose swapping the last two dims of a
        # rank-2/3 value -> that value (matmul folds it into its flags).
        self.swapped = {}
        self.node = None  # the node being mapped (for errors)

    # -- errors ---------------------------------------------------------------

    def unsupported(self, reason):
        if self.node is None:
            raise UnsupportedError("%s: %s" % (type(self.module).__name__,
                                               reason))
        raise UnsupportedError(at_node(self.node, self.gm, reason))

    def require(self, condition, reason):
        if not condition:
            self.unsupported(reason)

    # -- tracing --------------------------------------------------------------

    def trace(self):
        tracer = _Tracer()
        try:
            graph = tracer.trace(self.module)
        except Exception as e:  # fx raises TraceError, TypeError, ...
            name = type(self.module).__name__
            site = raise_site(e)
            where = " at " + site if site else ""
            if isinstance(e, torch.fx.proxy.TraceError):
                raise UnsupportedError(
                    "torch.fx cannot trace %s%s: %s (Echo imports one "
                    "static graph: Python control flow on tensor values "
                    "(if, while, for over a tensor, bool(tensor)) cannot be "
                    "traced; make it depend on Python values or module "
                    "attributes instead)" % (name, where, describe(e)))
            raise ModuleError("torch.fx cannot trace %s%s: %s" % (
                name, where, describe(e)))
        self.gm = torch.fx.GraphModule(tracer.root, graph,
                                       type(self.module).__name__)
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        self.placeholders = placeholders
        if len(placeholders) != len(self.inputs):
            raise UnsupportedError(
                "%s.forward takes %d input(s) (%s); %d --input given" % (
                    type(self.module).__name__, len(placeholders),
                    ", ".join(n.target for n in placeholders),
                    len(self.inputs)))
        examples = []
        generator = torch.Generator().manual_seed(0)
        for shape, dtype in self.inputs:
            if dtype == "f32":
                examples.append(torch.randn(shape, generator=generator))
            else:
                examples.append(torch.zeros(shape, dtype=torch.int32))
        prop = _ShapeProp(self.gm)
        try:
            # ShapeProp prints the traceback of a failing node itself.
            with torch.no_grad(), contextlib.redirect_stderr(io.StringIO()):
                prop.propagate(*examples)
        except Exception as e:
            reason = "%s does not run on inputs %s: %s" % (
                type(self.module).__name__,
                ", ".join("%s:%s" % ("x".join(map(str, s)), d)
                          for s, d in self.inputs), describe(e))
            if prop.node is None:
                raise ModuleError(reason)
            raise ModuleError(at_node(prop.node, self.gm, reason))

    # -- values ---------------------------------------------------------------

    def value(self, arg):
        """The Echo value (or Python value) of an fx argument."""
        if isinstance(arg, torch.fx.Node):
            return self.env[arg]
        if isinstance(arg, (list, tuple)):
            return type(arg)(self.value(a) for a in arg)
        if isinstance(arg, dict):
            return {k: self.value(v) for k, v in arg.items()}
        return arg

    def tensor(self, arg, what="operand"):
        v = self.value(arg)
        if not isinstance(v, Value):
            self.unsupported("the %s is %r, not a tensor" % (what, v))
        return v

    def param(self, qualname):
        if qualname not in self.params:
            self.unsupported("'%s' is not a parameter of the module" %
                             qualname)
        return self.params[qualname]

    def module_param(self, prefix, name, shape=None, fill=None):
        """The parameter ``prefix.name``, or a constant when the module has
        none (``affine=False``, ``bias=False``)."""
        qualname = "%s.%s" % (prefix, name) if prefix else name
        if qualname in self.params:
            return self.params[qualname]
        if fill is None:
            return None
        return self.g.constant(fill, shape)

    # -- shape helpers --------------------------------------------------------

    def reshape(self, x, shape):
        shape = [int(d) for d in shape]
        if shape.count(-1) > 1:
            self.unsupported("more than one -1 in the shape %s" % shape)
        if -1 in shape:
            known = _num([d for d in shape if d != -1])
            self.require(known > 0 and _num(x.shape) % known == 0,
                         "cannot reshape %s to %s" % (x.type, shape))
            shape[shape.index(-1)] = _num(x.shape) // known
        self.require(_num(shape) == _num(x.shape),
                     "cannot reshape %s to %s" % (x.type, shape))
        return self.g.reshape(x, shape)

    def broadcast_to(self, x, shape):
        shape = tuple(shape)
        if x.shape == shape:
            return x
        offset = len(shape) - x.rank
        self.require(offset >= 0, "cannot broadcast %s to %s" % (
            x.type, list(shape)))
        kept = []
        for i, d in enumerate(x.shape):
            if d == shape[offset + i]:
                kept.append(i)
            else:
                self.require(d == 1, "cannot broadcast %s to %s" % (
                    x.type, list(shape)))
        x = self.g.reshape(x, [x.shape[i] for i in kept])
        kept_dims = set(offset + i for i in kept)
        added = [j for j in range(len(shape)) if j not in kept_dims]
        return self.g.broadcast(x, shape, added) if added else x

    def binary(self, name, lhs, rhs):
        lhs, rhs = self.value(lhs), self.value(rhs)
        if not isinstance(lhs, Value) and not isinstance(rhs, Value):
            return {"add": operator.add, "sub": operator.sub,
                    "mul": operator.mul, "div": operator.truediv}[name](
                        lhs, rhs)
        for v in (lhs, rhs):
            if isinstance(v, Value):
                self.require(v.dtype == "f32",
                             "arithmetic on %s (Echo computes in f32)" %
                             v.type)
            else:
                self.require(isinstance(v, (int, float)) and
                             not isinstance(v, bool),
                             "operand %r is neither a tensor nor a number" %
                             (v,))
        shapes = [v.shape for v in (lhs, rhs) if isinstance(v, Value)]
        try:
            shape = tuple(torch.broadcast_shapes(*shapes))
        except RuntimeError as e:
            self.unsupported(str(e))
        operands = []
        for v in (lhs, rhs):
            if isinstance(v, Value):
                operands.append(self.broadcast_to(v, shape))
            else:
                operands.append(self.g.constant(float(v), shape))
        return getattr(self.g, name)(*operands)

    def matmul(self, a, b):
        a, b = self.tensor(a), self.tensor(b)
        # A swap of the last two dims feeding a matmul becomes its
        # transpose flag (the echo.transpose is then dead and dropped).
        ta, tb = a.name in self.swapped, b.name in self.swapped
        a, b = self.swapped.get(a.name, a), self.swapped.get(b.name, b)
        if a.rank == 2 and b.rank == 2:
            return self.g.matmul(a, b, transpose_a=ta, transpose_b=tb)
        if a.rank == 3 and b.rank == 3 and a.shape[0] == b.shape[0]:
            return self.g.batch_matmul(a, b, transpose_a=ta, transpose_b=tb)
        a = self.g.transpose(a, self.swap_perm(a.rank)) if ta else a
        b = self.g.transpose(b, self.swap_perm(b.rank)) if tb else b
        if a.rank >= 3 and b.rank == 2:
            lead = a.shape[:-1]
            y = self.g.matmul(self.g.reshape(a, [_num(lead), a.shape[-1]]), b)
            return self.g.reshape(y, list(lead) + [b.shape[1]])
        if a.rank == b.rank and a.rank >= 3 and a.shape[:-2] == b.shape[:-2]:
            batch = _num(a.shape[:-2])
            y = self.g.batch_matmul(
                self.g.reshape(a, [batch] + list(a.shape[-2:])),
                self.g.reshape(b, [batch] + list(b.shape[-2:])))
            return self.g.reshape(y, list(a.shape[:-2]) + list(y.shape[-2:]))
        self.unsupported("matmul of %s and %s (Echo: 2-D by 2-D, N-D by "
                         "2-D, or equal batch dims)" % (a.type, b.type))

    def linear(self, x, w, b):
        x = self.tensor(x)
        lead = x.shape[:-1]
        x2 = self.g.reshape(x, [_num(lead), x.shape[-1]])
        if b is None:
            y = self.g.matmul(x2, w, transpose_b=True)
        else:
            y = self.g.linear(x2, w, b)
        return self.g.reshape(y, list(lead) + [w.shape[0]])

    def slice_dim(self, x, dim, start, size):
        offsets = [0] * x.rank
        sizes = list(x.shape)
        offsets[dim] = start
        sizes[dim] = size
        if start == 0 and size == x.shape[dim]:
            return x
        return self.g.slice(x, offsets, sizes)

    def split_sizes(self, x, sizes, dim):
        dim = _normalize_dim(dim, x.rank)
        outs, start = [], 0
        for size in sizes:
            outs.append(self.slice_dim(x, dim, start, size))
            start += size
        return tuple(outs)

    def chunk(self, x, chunks, dim=0):
        x = self.tensor(x)
        d = _normalize_dim(dim, x.rank)
        each = -(-x.shape[d] // int(chunks))
        sizes = []
        left = x.shape[d]
        while left > 0:
            sizes.append(min(each, left))
            left -= each
        return self.split_sizes(x, sizes, d)

    def split(self, x, split_size, dim=0):
        x = self.tensor(x)
        d = _normalize_dim(dim, x.rank)
        if isinstance(split_size, int):
            sizes = [split_size] * (x.shape[d] // split_size)
            if x.shape[d] % split_size:
                sizes.append(x.shape[d] % split_size)
        else:
            sizes = list(split_size)
        return self.split_sizes(x, sizes, d)

    def getitem(self, obj, index):
        obj = self.value(obj)
        if not isinstance(obj, Value):
            return obj[index]
        x = obj
        index = index if isinstance(index, tuple) else (index,)
        if any(i is Ellipsis for i in index):
            at = index.index(Ellipsis)
            fill = x.rank - (len(index) - 1)
            index = index[:at] + (slice(None),) * fill + index[at + 1:]
        offsets, sizes, shape = [], [], []
        for d in range(x.rank):
            i = index[d] if d < len(index) else slice(None)
            if isinstance(i, slice):
                self.require(i.step in (None, 1),
                             "slicing with step %s (Echo slices have unit "
                             "strides)" % i.step)
                start, stop, _ = i.indices(x.shape[d])
                self.require(stop > start, "an empty slice of %s" % x.type)
                offsets.append(start)
                sizes.append(stop - start)
                shape.append(stop - start)
            elif isinstance(i, int):
                i = _normalize_dim(i, x.shape[d])
                offsets.append(i)
                sizes.append(1)
            else:
                self.unsupported("indexing %s with %r (Echo takes integers "
                                 "and unit-step slices)" % (x.type, i))
        self.require(len(index) <= x.rank, "too many indices for %s" % x.type)
        y = x
        if offsets != [0] * x.rank or sizes != list(x.shape):
            y = self.g.slice(x, offsets, sizes)
        return self.g.reshape(y, shape)

    def softmax(self, x, dim):
        x = self.tensor(x)
        self.require(dim is not None, "softmax without a dim")
        return self.g.softmax(x, _normalize_dim(dim, x.rank))

    def permute(self, x, dims):
        x = self.tensor(x)
        if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
            dims = dims[0]
        return self.g.transpose(x, [_normalize_dim(d, x.rank) for d in dims])

    @staticmethod
    def swap_perm(rank):
        return list(range(rank - 2)) + [rank - 1, rank - 2]

    def transpose(self, x, d0, d1):
        x = self.tensor(x)
        perm = list(range(x.rank))
        d0, d1 = _normalize_dim(d0, x.rank), _normalize_dim(d1, x.rank)
        perm[d0], perm[d1] = perm[d1], perm[d0]
        if d0 == d1:
            return x
        y = self.g.transpose(x, perm)
        if x.rank in (2, 3) and perm == self.swap_perm(x.rank):
            self.swapped[y.name] = x
        return y

    def flatten(self, x, start=0, end=-1):
        x = self.tensor(x)
        if x.rank == 0:
            return self.g.reshape(x, [1])
        start, end = _normalize_dim(start, x.rank), _normalize_dim(end, x.rank)
        shape = list(x.shape[:start]) + [_num(x.shape[start:end + 1])] + \
            list(x.shape[end + 1:])
        return self.g.reshape(x, shape)

    def unsqueeze(self, x, dim):
        x = self.tensor(x)
        d = _normalize_dim(dim, x.rank + 1)
        return self.g.reshape(x, list(x.shape[:d]) + [1] + list(x.shape[d:]))

    def squeeze(self, x, dim=None):
        x = self.tensor(x)
        if dim is None:
            shape = [d for d in x.shape if d != 1]
        else:
            d = _normalize_dim(dim, x.rank)
            shape = list(x.shape)
            if shape[d] == 1:
                del shape[d]
        return self.g.reshape(x, shape)

    def cat(self, tensors, dim=0):
        values = [self.tensor(t) for t in tensors]
        return self.g.concat(values, _normalize_dim(dim, values[0].rank))

    def stack(self, tensors, dim=0):
        values = [self.tensor(t) for t in tensors]
        d = _normalize_dim(dim, values[0].rank + 1)
        expanded = [self.g.reshape(v, list(v.shape[:d]) + [1] +
                                   list(v.shape[d:])) for v in values]
        return self.g.concat(expanded, d)

    def dropout(self, x, p, training=True):
        x = self.tensor(x)
        if not training or p == 0:
            return x
        self.require(0 < p < 1, "dropout probability %r" % p)
        return self.g.dropout(x, float(p))[0]

    def gelu(self, x, approximate):
        self.require(approximate == "tanh",
                     "GELU with approximate='%s': Echo has no erf; use "
                     "nn.GELU(approximate='tanh') (decomposed exactly into "
                     "tanh)" % approximate)
        x = self.tensor(x)
        c = lambda v: self.g.constant(v, x.shape)
        cube = self.g.mul(self.g.mul(x, x), x)
        inner = self.g.mul(c(math.sqrt(2.0 / math.pi)),
                           self.g.add(x, self.g.mul(c(0.044715), cube)))
        return self.g.mul(self.g.mul(c(0.5), x),
                          self.g.add(c(1.0), self.g.tanh(inner)))

    def pool(self, kind, x, kernel, stride, padding, ceil_mode=False,
             count_include_pad=True, divisor_override=None, dilation=1,
             return_indices=False):
        x = self.tensor(x)
        self.require(x.rank == 4, "%s of %s (Echo pools NCHW)" % (kind, x.type))
        kernel = _pair(kernel)
        stride = _pair(stride) if stride not in (None, [], ()) else kernel
        padding = _pair(padding)
        self.require(not ceil_mode, "ceil_mode=True")
        self.require(_pair(dilation) == (1, 1), "dilation %s" % (dilation,))
        self.require(not return_indices, "return_indices=True")
        if kind == "avg_pool2d":
            self.require(divisor_override is None, "divisor_override")
            self.require(padding == (0, 0) or not count_include_pad,
                         "count_include_pad=True with padding %s (Echo "
                         "excludes padding from the average's count: pass "
                         "count_include_pad=False)" % (padding,))
        return getattr(self.g, kind)(x, kernel, stride, padding)

    def adaptive_avg_pool(self, x, output_size):
        x = self.tensor(x)
        self.require(x.rank == 4, "adaptive pooling of %s" % x.type)
        out = _pair(output_size) if output_size is not None else None
        out = tuple(x.shape[2 + i] if o is None else o
                    for i, o in enumerate(out))
        h, w = x.shape[2], x.shape[3]
        self.require(h % out[0] == 0 and w % out[1] == 0,
                     "adaptive pooling %dx%d -> %dx%d: the output must "
                     "divide the input (a fixed window)" % (h, w, out[0],
                                                            out[1]))
        if (h, w) == out:
            return x
        kernel = (h // out[0], w // out[1])
        return self.g.avg_pool2d(x, kernel, kernel, (0, 0))

    def layer_norm(self, x, normalized_shape, gamma, beta, eps):
        x = self.tensor(x)
        k = len(normalized_shape)
        self.require(tuple(x.shape[x.rank - k:]) == tuple(normalized_shape),
                     "layer_norm over %s of %s" % (list(normalized_shape),
                                                   x.type))
        d = _num(normalized_shape)
        gamma = self.g.reshape(gamma, [d]) if gamma is not None else \
            self.g.constant(1.0, [d])
        beta = self.g.reshape(beta, [d]) if beta is not None else \
            self.g.constant(0.0, [d])
        flat = self.g.reshape(x, list(x.shape[:x.rank - k]) + [d])
        return self.g.reshape(self.g.layer_norm(flat, gamma, beta, eps),
                              x.shape)

    # -- modules --------------------------------------------------------------

    def call_module(self, node, m, args, kwargs):
        cls = library_class(m)
        if cls is None:
            self.unsupported("Echo has no mapping for %s" % type(m).__name__)
        handler = MODULES[cls][0]
        return handler(self, node, m, node.target, args, kwargs)

    # -- functions and methods ----------------------------------------------

    def call(self, node, target, args, kwargs):
        """A call_function (``target`` callable) or call_method (``target``
        a method name; ``args[0]`` is the tensor)."""
        a = lambda i, name, default=None: (
            args[i] if len(args) > i else kwargs.get(name, default))
        key = target if isinstance(target, str) else getattr(
            target, "__name__", None)
        result = fx_functions.call(self, target, key, args, kwargs)
        if result is not NotImplemented:
            return result
        if target in (operator.add, torch.add) or key in ("add", "__add__"):
            self.require(a(2, "alpha", 1) == 1, "add with alpha")
            return self.binary("add", args[0], args[1])
        if target in (operator.sub, torch.sub) or key == "sub":
            self.require(a(2, "alpha", 1) == 1, "sub with alpha")
            return self.binary("sub", args[0], args[1])
        if target in (operator.mul, torch.mul) or key == "mul":
            return self.binary("mul", args[0], args[1])
        if target in (operator.truediv, torch.div) or key in ("div",
                                                              "truediv"):
            self.require(kwargs.get("rounding_mode") is None,
                         "division with rounding_mode")
            return self.binary("div", args[0], args[1])
        if target in (operator.neg, torch.neg) or key == "neg":
            v = self.value(args[0])
            return -v if not isinstance(v, Value) else self.g.neg(v)
        if target in (operator.matmul, torch.matmul, torch.bmm) or key in (
                "matmul", "bmm"):
            return self.matmul(args[0], args[1])
        unary = {"relu": "relu", "tanh": "tanh", "sigmoid": "sigmoid",
                 "exp": "exp", "log": "log", "sqrt": "sqrt"}
        if key in unary and (isinstance(target, str) or target in (
                getattr(torch, key, None), getattr(F, key, None))):
            return getattr(self.g, unary[key])(self.tensor(args[0]))
        if key == "gelu":
            return self.gelu(args[0], a(1, "approximate", "none"))
        if key in ("softmax", "log_softmax"):
            self.require(key == "softmax", "log_softmax (Echo's loss is "
                         "cross_entropy on logits: return the logits)")
            return self.softmax(args[0], a(1, "dim"))
        if target is F.linear:
            return self.linear(args[0], self.tensor(args[1]),
                               self.value(a(2, "bias")))
        if key == "dropout":
            return self.dropout(args[0], a(1, "p", 0.5),
                                a(2, "training", True))
        if key == "flatten":
            return self.flatten(args[0], a(1, "start_dim", 0),
                                a(2, "end_dim", -1))
        if key in ("view", "reshape"):
            x = self.tensor(args[0])
            shape = args[1:] if key == "view" or isinstance(target, str) \
                else [a(1, "shape")]
            if len(shape) == 1 and isinstance(self.value(shape[0]),
                                              (list, tuple)):
                shape = self.value(shape[0])
            shape = [self.value(s) for s in shape]
            self.require(all(isinstance(s, int) for s in shape),
                         "a shape that is not static: %r" % (shape,))
            return self.reshape(x, shape)
        if key == "permute":
            return self.permute(args[0], [self.value(d) for d in args[1:]]
                                if isinstance(target, str) else a(1, "dims"))
        if key == "transpose":
            return self.transpose(args[0], a(1, "dim0"), a(2, "dim1"))
        if key == "t":
            x = self.tensor(args[0])
            return x if x.rank < 2 else self.transpose(args[0], 0, 1)
        if key in ("contiguous", "clone", "float") and isinstance(target,
                                                                 str):
            x = self.tensor(args[0])
            self.require(key != "float" or x.dtype == "f32",
                         "float() of %s" % x.type)
            return x
        if key in ("long", "int") and isinstance(target, str):
            # Echo's ids are i32; PyTorch's embedding wants int64.
            x = self.tensor(args[0])
            self.require(x.dtype == "i32", "%s() of %s (Echo converts only "
                         "i32 ids)" % (key, x.type))
            return x
        if key in ("new_zeros", "new_ones") and isinstance(target, str):
            x = self.tensor(args[0])
            shape = args[1:]
            if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
                shape = shape[0]
            self.require(x.dtype == "f32" and all(isinstance(d, int)
                                                  for d in shape),
                         "%s%r" % (key, tuple(shape)))
            return self.g.constant(0.0 if key == "new_zeros" else 1.0,
                                   [int(d) for d in shape])
        if target is F.embedding:
            ids, table = self.tensor(args[0]), self.tensor(args[1])
            self.require(a(2, "padding_idx") is None and
                         a(3, "max_norm") is None,
                         "embedding with padding_idx or max_norm")
            self.require(ids.dtype == "i32", "embedding ids of type %s" %
                         ids.type)
            return self.g.embedding(ids, table)
        if key == "unsqueeze":
            return self.unsqueeze(args[0], a(1, "dim"))
        if key == "squeeze":
            return self.squeeze(args[0], a(1, "dim"))
        if key in ("cat", "concat"):
            return self.cat(a(0, "tensors"), a(1, "dim", 0))
        if key == "stack":
            return self.stack(a(0, "tensors"), a(1, "dim", 0))
        if key == "chunk":
            return self.chunk(args[0], a(1, "chunks"), a(2, "dim", 0))
        if key == "split":
            return self.split(args[0], a(1, "split_size_or_sections",
                                         kwargs.get("split_size")),
                              a(2, "dim", 0))
        if target is operator.getitem:
            return self.getitem(args[0], self.value(args[1]))
        if target is getattr:
            v = self.value(args[0])
            self.require(isinstance(v, Value) and args[1] in ("shape",),
                         "attribute '%s'" % args[1])
            return tuple(v.shape)
        if key == "size":
            x = self.tensor(args[0])
            dim = a(1, "dim")
            return tuple(x.shape) if dim is None else \
                x.shape[_normalize_dim(dim, x.rank)]
        if key == "dim" and isinstance(target, str):
            return self.tensor(args[0]).rank
        if key in ("max_pool2d", "avg_pool2d") and not isinstance(target,
                                                                  str):
            names = ["input", "kernel_size", "stride", "padding"]
            extra = (["dilation", "ceil_mode", "return_indices"]
                     if key == "max_pool2d" else
                     ["ceil_mode", "count_include_pad", "divisor_override"])
            bound = dict(zip(names + extra, args))
            bound.update(kwargs)
            x = bound.pop("input")
            kernel = bound.pop("kernel_size")
            return self.pool(key, x, kernel, bound.pop("stride", None),
                             bound.pop("padding", 0), **bound)
        if key == "adaptive_avg_pool2d":
            return self.adaptive_avg_pool(args[0], a(1, "output_size"))
        if key == "layer_norm" and not isinstance(target, str):
            shape = a(1, "normalized_shape")
            return self.layer_norm(args[0], [shape] if isinstance(shape, int)
                                   else list(shape),
                                   self.value(a(2, "weight")),
                                   self.value(a(3, "bias")),
                                   a(4, "eps", 1e-5))
        self.unsupported("Echo has no mapping for it")

    # -- the graph ------------------------------------------------------------

    def run(self):
        self.trace()
        g = self.g
        self.env = {}
        for n, (shape, dtype) in zip(self.placeholders, self.inputs):
            self.env[n] = g.data(_sanitize(n.target), shape, dtype)
        label_shape, label_dtype = self.labels
        labels = g.data("labels", label_shape, label_dtype)
        weights = []
        first_param = len(self.inputs) + 1
        for i, (qualname, p) in enumerate(self.module.named_parameters()):
            self.params[qualname] = g.param(_sanitize(qualname),
                                            tuple(p.shape))
            weights.append((first_param + i, p.detach().cpu().numpy()))
        if not self.params:
            raise UnsupportedError("%s has no parameters to train" %
                                   type(self.module).__name__)
        output = None
        for node in self.gm.graph.nodes:
            self.node = node
            if node.op == "placeholder":
                continue
            if node.op == "output":
                output = self.value(node.args[0])
                break
            args = self.value(node.args)
            kwargs = self.value(node.kwargs)
            if node.op == "get_attr":
                result = self.get_attr(node)
            elif node.op == "call_module":
                m = self.gm.get_submodule(node.target)
                result = self.call_module(node, m, args, kwargs)
            else:
                result = self.call(node, node.target, args, kwargs)
            self.check_shape(node, result)
            self.env[node] = result
        self.node = None
        return self.finish(output, labels), weights

    def get_attr(self, node):
        if node.target in self.params:
            return self.params[node.target]
        attr = self.gm
        for part in node.target.split("."):
            attr = getattr(attr, part)
        if isinstance(attr, torch.Tensor):
            self.require(attr.dtype == torch.float32 and attr.numel() <= 65536,
                         "a constant tensor of %s %s (Echo takes f32 "
                         "constants up to 64 Ki elements)" % (
                             attr.dtype, list(attr.shape)))
            return self.g.dense_constant(attr.flatten().tolist(),
                                         list(attr.shape))
        return attr

    def check_shape(self, node, result):
        """The shape Echo computed is the one PyTorch ran with."""
        meta = node.meta.get("tensor_meta")

        def walk(value, meta):
            if isinstance(value, Value):
                if meta is not None and hasattr(meta, "shape"):
                    self.require(tuple(meta.shape) == value.shape,
                                 "internal error: Echo's shape %s differs "
                                 "from PyTorch's %s" % (
                                     list(value.shape), list(meta.shape)))
            elif isinstance(value, (list, tuple)) and isinstance(
                    meta, (list, tuple)) and len(value) == len(meta):
                for v, mm in zip(value, meta):
                    walk(v, mm)
        walk(result, meta)

    def finish(self, output, labels):
        g = self.g
        if isinstance(output, (list, tuple)):
            raise UnsupportedError(
                "%s returns %d values; the importer appends the loss to "
                "one output tensor" % (type(self.module).__name__,
                                       len(output)))
        if not isinstance(output, Value) or output.dtype != "f32":
            raise UnsupportedError("the module's output is not an f32 tensor")
        if self.loss == "cross_entropy":
            if labels.dtype != "i32" or labels.shape != output.shape[:-1]:
                raise UnsupportedError(
                    "cross_entropy: labels must be i32 of shape %s (the "
                    "output %s without its class dim), not %s" % (
                        "x".join(map(str, output.shape[:-1])) or "()",
                        output.type, labels.type))
            classes = output.shape[-1]
            n = _num(output.shape[:-1])
            loss = g.cross_entropy(g.reshape(output, [n, classes]),
                                   g.reshape(labels, [n]))
        else:
            if labels.dtype != "f32" or labels.shape != output.shape:
                raise UnsupportedError(
                    "mse: labels must be f32 of the output's shape %s, not "
                    "%s" % ("x".join(map(str, output.shape)), labels.type))
            loss = g.mse_loss(output, labels)
        g.drop_dead_ops(loss)
        return g.finish(loss)


def _sanitize(name):
    name = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return name if name and not name[0].isdigit() else "a" + name


def import_module(module, inputs, loss="cross_entropy", labels=None,
                  name="model"):
    """Imports ``module`` (an ``nn.Module``, in training mode).

    ``inputs``: a list of ``(shape, dtype)``; ``loss``: ``cross_entropy`` or
    ``mse``; ``labels``: ``(shape, dtype)``. Returns an
    :class:`ImportedModel`.
    """
    if loss not in ("cross_entropy", "mse"):
        raise UnsupportedError("--loss must be cross_entropy or mse, not "
                               "'%s'" % loss)
    if labels is None:
        raise UnsupportedError("the labels' shape is needed (--labels)")
    module.train()
    importer = _Importer(module, inputs, loss, labels, _sanitize(name))
    try:
        text, weights = importer.run()
    except ImporterError:
        raise
    except Exception as e:
        # Whatever Python raised inside is reported at the node being
        # mapped: a shape Echo's ops reject is unsupported; anything else
        # is the importer's own failure, with its line.
        if isinstance(e, ShapeError):
            error, reason = UnsupportedError, one_line(e)
        else:
            site = raise_site(e, user=False)
            error, reason = InternalError, "internal error: %s%s" % (
                describe(e), " (at %s)" % site if site else "")
        if importer.node is None:
            raise error("%s: %s" % (type(module).__name__, reason))
        raise error(at_node(importer.node, importer.gm, reason))
    return ImportedModel(text, weights, len(inputs) + 1, _sanitize(name))
