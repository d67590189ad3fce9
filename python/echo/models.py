"""Builders of Echo training graphs, emitted as MLIR text.

Each builder returns the text of one ``func.func @<model>`` that follows the
model convention of the Echo contract (shared/SPEC.md):

* the only result is the scalar loss, ``tensor<f32>``;
* trainable arguments carry the unit attribute ``{echo.param}``; data
  arguments (inputs, ``i32`` ids and labels) carry none.  Data arguments come
  first, then the parameters, each group in the order the model creates them;
* the body is a single block of Echo forward ops in MLIR's *generic* op form
  (``%y = "echo.relu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>``), with
  ``arith.constant`` dense splats for constants (zero initial states, scales).

Every shape is computed and checked here, so a model that builds is also one
that ``echo-opt --echo-verify-model`` accepts; impossible sizes (say, a head
count that does not divide ``d_model``) raise :class:`ShapeError`.

Models (all sizes are keyword arguments; ``--list`` prints the defaults):

``mlp``          linear + relu layers, cross-entropy.
``lstm``         unrolled LSTM over a sequence, classifies the last state.
``nmt``          Sockeye-like encoder-decoder: embeddings, LSTM encoder, LSTM
                 decoder with MLP (Bahdanau) attention and input feeding,
                 dropout, output projection, token-level cross-entropy.
``transformer``  encoder blocks (multi-head self-attention, layer norm,
                 residuals, feed-forward), token-level cross-entropy.
``resnet``       conv-batch_norm-relu basic blocks with residual adds,
                 max and average pooling, linear classifier.
``deepspeech2``  conv front-end, unrolled tanh RNN layers with sequence-wise
                 batch norm, per-timestep classifier.

Command line (with ``PYTHONPATH`` containing the ``python`` directory)::

    python3 -m echo.models nmt --batch=4 --src_len=5 -o nmt.mlir
    python3 -m echo.models --list

The output starts with a comment that repeats the command with every size
spelled out, so a file can be regenerated from its own first line.

Only the Python 3 standard library is used.
"""

import inspect
import math
import struct
import sys

__all__ = [
    "ShapeError",
    "Value",
    "GraphBuilder",
    "MODELS",
    "build",
    "command_line",
    "mlp",
    "lstm",
    "nmt",
    "transformer",
    "resnet",
    "deepspeech2",
    "main",
]


class ShapeError(ValueError):
    """Raised when an op would be built with inconsistent shapes."""


# ---------------------------------------------------------------------------
# Formatting of types and attributes
# ---------------------------------------------------------------------------


def tensor_type(shape, dtype="f32"):
    """Returns the MLIR spelling of a static ranked tensor type.

    >>> tensor_type([4, 8])
    'tensor<4x8xf32>'
    >>> tensor_type([], "f32")
    'tensor<f32>'
    """
    return "tensor<" + "".join("%dx" % d for d in shape) + dtype + ">"


def format_float(value, dtype="f64"):
    """Formats a float so that MLIR parses it back to the same value.

    Uses ``%e`` (``5.000000e-01``) and adds digits only when six are not
    enough to round-trip.  MLIR float literals need a decimal point, which
    the ``%e`` form always has.  Infinities and NaNs have no decimal
    spelling: they are written as MLIR prints them, the bit pattern of the
    ``dtype`` (``f32`` or ``f64``) in hexadecimal (``0xFF800000`` is an
    ``f32`` -inf).
    """
    value = float(value)
    if not math.isfinite(value):
        if dtype == "f32":
            bits = struct.unpack("<I", struct.pack("<f", value))[0]
            return "0x%08X" % bits
        if dtype != "f64":
            raise ValueError("no spelling of %r as %s" % (value, dtype))
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    for digits in range(6, 18):
        text = "%.*e" % (digits, value)
        if float(text) == value:
            return text
    return "%.17e" % value


def format_element(value, dtype="f32"):
    """An element of a dense constant of type ``dtype``: ``true``/``false``
    (``i1``), an integer (``i32``, ``i64``), or :func:`format_float`."""
    if dtype == "i1":
        return "true" if value else "false"
    if dtype in ("i32", "i64"):
        return "%d" % int(value)
    return format_float(value, dtype)


def i64_array_attr(values):
    """``DenseI64ArrayAttr``: ``array<i64: 1, 2>`` (``array<i64>`` if empty)."""
    values = [int(v) for v in values]
    if not values:
        return "array<i64>"
    return "array<i64: " + ", ".join(str(v) for v in values) + ">"


def i64_attr(value):
    """``I64Attr``: ``7 : i64``."""
    return "%d : i64" % int(value)


def f64_attr(value):
    """``F64Attr``: ``5.000000e-01 : f64``."""
    return format_float(value) + " : f64"


def bool_attr(value):
    """``BoolAttr``: ``true`` or ``false``."""
    return "true" if value else "false"


def _shape_str(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _num_elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _check(condition, message, *args):
    if not condition:
        raise ShapeError(message % args if args else message)


def _window_out(size, window, stride, padding, ceil_mode=False):
    """Output extent of a sliding window (as echo.conv2d / pooling).

    ``ceil_mode`` is PyTorch's pooling rule (and echo's ``ceil_mode``): the
    extent rounds up, but a last window that would start inside the far
    padding is dropped.
    """
    span = size + 2 * padding - window
    if not ceil_mode:
        return span // stride + 1 if span >= 0 else 0
    out = (span + stride - 1) // stride + 1  # Python's // rounds down
    if out >= 1 and (out - 1) * stride >= size + padding:
        out -= 1
    return max(out, 0)


# ---------------------------------------------------------------------------
# Graph builder
# ---------------------------------------------------------------------------


class Value(object):
    """An SSA value: its name (``%3``, ``%x``), static shape and element type."""

    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name, shape, dtype="f32"):
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    @property
    def type(self):
        """The MLIR type, e.g. ``tensor<4x8xf32>``."""
        return tensor_type(self.shape, self.dtype)

    @property
    def rank(self):
        return len(self.shape)

    def __repr__(self):
        return "Value(%s : %s)" % (self.name, self.type)


class GraphBuilder(object):
    """Builds one model function, op by op, with shape checking.

    Arguments are declared with :meth:`data` and :meth:`param`; each op method
    (``add``, ``linear``, ``conv2d``, ...) checks its operands, computes the
    result shape, emits the op in generic form and returns the result
    :class:`Value` (a tuple for multi-result ops).  :meth:`finish` returns the
    function text given the loss value.

    Op results are numbered ``%0, %1, ...``; arguments keep their given names
    (made unique).  Dropout seeds are drawn from a counter starting at
    ``seed``, so each dropout op has its own seed.
    """

    def __init__(self, name, seed=1):
        self.name = name
        self._args = []  # (Value, is_param)
        self._arg_names = set()
        self._lines = []
        self._next_id = 0
        self._next_seed = int(seed)
        self._constants = {}

    # -- arguments ----------------------------------------------------------

    def _arg(self, name, shape, dtype, param):
        base, n = name, 1
        while name in self._arg_names:
            n += 1
            name = "%s_%d" % (base, n)
        self._arg_names.add(name)
        for d in shape:
            _check(int(d) >= 1, "argument %%%s: dimension %s must be >= 1",
                   name, d)
        value = Value("%" + name, shape, dtype)
        self._args.append((value, param))
        return value

    def data(self, name, shape, dtype="f32"):
        """Declares a data argument (no ``echo.param``)."""
        return self._arg(name, shape, dtype, False)

    def param(self, name, shape):
        """Declares a trainable ``f32`` argument (``{echo.param}``)."""
        return self._arg(name, shape, "f32", True)

    # -- emission -----------------------------------------------------------

    def _fresh(self):
        name = "%%%d" % self._next_id
        self._next_id += 1
        return name

    def comment(self, text):
        """Emits a ``//`` comment line into the body."""
        self._lines.append("  // " + text)

    def op(self, name, operands, results, attrs=None):
        """Emits ``"echo.<name>"`` in generic form.

        ``results`` is a list of ``(shape, dtype)``; ``attrs`` maps attribute
        names to already formatted attribute text.  Returns the list of
        result values.
        """
        values = [Value(self._fresh(), shape, dtype)
                  for shape, dtype in results]
        text = "  "
        if values:
            text += ", ".join(v.name for v in values) + " = "
        text += '"echo.%s"(%s)' % (name, ", ".join(v.name for v in operands))
        if attrs:
            text += " {" + ", ".join(
                "%s = %s" % (k, attrs[k]) for k in sorted(attrs)) + "}"
        text += " : (" + ", ".join(v.type for v in operands) + ") -> "
        if len(values) == 1:
            text += values[0].type
        else:
            text += "(" + ", ".join(v.type for v in values) + ")"
        self._lines.append(text)
        return values

    def _op1(self, name, operands, shape, dtype="f32", attrs=None):
        return self.op(name, operands, [(shape, dtype)], attrs)[0]

    def constant(self, value, shape, dtype="f32"):
        """A splat ``arith.constant`` (shared between identical requests)."""
        text = format_element(value, dtype)
        key = (text, tuple(shape), dtype)
        if key not in self._constants:
            result = Value(self._fresh(), shape, dtype)
            self._lines.append("  %s = arith.constant dense<%s> : %s" % (
                result.name, text, result.type))
            self._constants[key] = result
        return self._constants[key]

    def dense_constant(self, values, shape, dtype="f32"):
        """An ``arith.constant`` of the row-major ``values`` (``f32``, or
        ``i1`` / ``i32`` / ``i64``)."""
        values = list(values)
        texts = [format_element(v, dtype) for v in values]
        _check(len(texts) == _num_elements(shape),
               "dense constant: %d values for shape %s", len(texts),
               _shape_str(shape))
        if len(set(texts)) == 1:
            return self.constant(values[0], shape, dtype)
        values = texts
        result = Value(self._fresh(), shape, dtype)
        flat = ", ".join(values)
        if len(shape) != 1:
            # A flat list of n values is only accepted for rank 1; write
            # the nested form for other ranks.
            def nest(offset, dims):
                if not dims:
                    return values[offset]
                step = _num_elements(dims[1:])
                return "[" + ", ".join(nest(offset + i * step, dims[1:])
                                       for i in range(dims[0])) + "]"
            flat = nest(0, list(shape))[1:-1] if shape else flat
        self._lines.append("  %s = arith.constant dense<[%s]> : %s" % (
            result.name, flat, result.type))
        return result

    def mask_constant(self, values, shape):
        """An ``i1`` ``arith.constant`` of the row-major truth ``values``
        (a mask for :meth:`select`)."""
        texts = ["true" if v else "false" for v in values]
        _check(len(texts) == _num_elements(shape),
               "mask constant: %d values for shape %s", len(texts),
               _shape_str(shape))
        result = Value(self._fresh(), shape, "i1")
        if len(set(texts)) == 1:
            body = texts[0]
        else:
            def nest(offset, dims):
                if not dims:
                    return texts[offset]
                step = _num_elements(dims[1:])
                return "[" + ", ".join(nest(offset + i * step, dims[1:])
                                       for i in range(dims[0])) + "]"
            body = nest(0, list(shape))
        self._lines.append("  %s = arith.constant dense<%s> : %s" % (
            result.name, body, result.type))
        return result

    def zeros(self, shape):
        """An ``f32`` zero tensor (initial recurrent states)."""
        return self.constant(0.0, shape)

    def drop_dead_ops(self, root):
        """Removes the ops and constants that ``root`` does not depend on
        (an importer emits some it folds away later)."""
        import re
        defined = re.compile(r"^  (%[0-9]+(?:, %[0-9]+)*) = ")
        used = {root.name}
        kept = []
        for line in reversed(self._lines):
            match = defined.match(line)
            if match and not any(r in used
                                 for r in match.group(1).split(", ")):
                continue
            used.update(re.findall(r"%[A-Za-z0-9_]+", line))
            kept.append(line)
        self._lines = kept[::-1]

    def finish(self, loss):
        """Returns the function text; ``loss`` must be a ``tensor<f32>``."""
        _check(loss.shape == () and loss.dtype == "f32",
               "the loss must be tensor<f32>, not %s", loss.type)
        args = [a for a in self._args if not a[1]] + \
               [a for a in self._args if a[1]]
        _check(any(p for _, p in args), "model @%s has no parameter",
               self.name)
        sig = ",\n    ".join(
            "%s: %s%s" % (v.name, v.type, " {echo.param}" if p else "")
            for v, p in args)
        lines = ["func.func @%s(\n    %s) -> tensor<f32> {" % (self.name, sig)]
        lines += self._lines
        lines.append("  return %s : tensor<f32>" % loss.name)
        lines.append("}")
        return "\n".join(lines) + "\n"

    # -- elementwise --------------------------------------------------------

    def _binary(self, name, lhs, rhs):
        _check(lhs.shape == rhs.shape and lhs.dtype == rhs.dtype,
               "echo.%s: operand types differ: %s vs %s", name, lhs.type,
               rhs.type)
        return self._op1(name, [lhs, rhs], lhs.shape, lhs.dtype)

    def add(self, lhs, rhs):
        return self._binary("add", lhs, rhs)

    def sub(self, lhs, rhs):
        return self._binary("sub", lhs, rhs)

    def mul(self, lhs, rhs):
        return self._binary("mul", lhs, rhs)

    def div(self, lhs, rhs):
        return self._binary("div", lhs, rhs)

    def _unary(self, name, x):
        return self._op1(name, [x], x.shape, x.dtype)

    def neg(self, x):
        return self._unary("neg", x)

    def exp(self, x):
        return self._unary("exp", x)

    def log(self, x):
        return self._unary("log", x)

    def tanh(self, x):
        return self._unary("tanh", x)

    def sigmoid(self, x):
        return self._unary("sigmoid", x)

    def relu(self, x):
        return self._unary("relu", x)

    def sqrt(self, x):
        return self._unary("sqrt", x)

    # The activations a PyTorch importer maps onto (docs/Contract.md,
    # "Echo's additions").

    def erf(self, x):
        return self._unary("erf", x)

    def silu(self, x):
        """``x * sigmoid(x)``."""
        return self._unary("silu", x)

    def hardswish(self, x):
        """``x * relu6(x + 3) / 6``."""
        return self._unary("hardswish", x)

    def hardsigmoid(self, x):
        """``relu6(x + 3) / 6``."""
        return self._unary("hardsigmoid", x)

    def mish(self, x):
        """``x * tanh(softplus(x))``."""
        return self._unary("mish", x)

    def gelu(self, x, tanh_approximation=False):
        """Exact GELU, or PyTorch's ``approximate='tanh'`` form."""
        attrs = {"tanh_approximation": bool_attr(True)} \
            if tanh_approximation else None
        return self._op1("gelu", [x], x.shape, x.dtype, attrs)

    def clamp(self, x, min_value, max_value):
        """``min(max(x, min_value), max_value)``; either bound may be
        infinite."""
        _check(float(min_value) <= float(max_value),
               "echo.clamp: min %r must be at most max %r", min_value,
               max_value)
        return self._op1("clamp", [x], x.shape, x.dtype,
                         {"min": f64_attr(min_value),
                          "max": f64_attr(max_value)})

    def relu6(self, x):
        return self.clamp(x, 0.0, 6.0)

    def hardtanh(self, x, min_value=-1.0, max_value=1.0):
        return self.clamp(x, min_value, max_value)

    def select(self, cond, a, b):
        """``cond ? a : b`` elementwise; ``cond`` is an ``i1`` mask of the
        shape of ``a`` and ``b``."""
        _check(cond.dtype == "i1" and cond.shape == a.shape and
               a.type == b.type,
               "echo.select: bad operands %s, %s, %s", cond.type, a.type,
               b.type)
        return self._op1("select", [cond, a, b], a.shape, a.dtype)

    # -- shape and reduction ------------------------------------------------

    def broadcast(self, x, shape, dimensions):
        """Broadcasts ``x`` to ``shape``; ``dimensions`` are the added dims."""
        dims = sorted(int(d) for d in dimensions)
        shape = tuple(shape)
        _check(len(shape) == x.rank + len(dims) and
               all(0 <= d < len(shape) for d in dims) and
               len(set(dims)) == len(dims),
               "echo.broadcast: cannot add dims %s to %s to get %s",
               dims, _shape_str(x.shape), _shape_str(shape))
        kept = tuple(s for i, s in enumerate(shape) if i not in dims)
        _check(kept == x.shape, "echo.broadcast: %s does not fit %s",
               _shape_str(x.shape), _shape_str(shape))
        return self._op1("broadcast", [x], shape, x.dtype,
                         {"dimensions": i64_array_attr(dims)})

    def _reduce(self, name, x, dimensions):
        dims = sorted(int(d) for d in dimensions)
        _check(all(0 <= d < x.rank for d in dims) and
               len(set(dims)) == len(dims),
               "echo.%s: bad dimensions %s for %s", name, dims,
               _shape_str(x.shape))
        shape = [s for i, s in enumerate(x.shape) if i not in dims]
        return self._op1(name, [x], shape, x.dtype,
                         {"dimensions": i64_array_attr(dims)})

    def reduce_sum(self, x, dimensions):
        return self._reduce("reduce_sum", x, dimensions)

    def reduce_max(self, x, dimensions):
        return self._reduce("reduce_max", x, dimensions)

    def slice(self, x, offsets, sizes):
        _check(len(offsets) == x.rank and len(sizes) == x.rank,
               "echo.slice: need %d offsets and sizes", x.rank)
        for o, s, e in zip(offsets, sizes, x.shape):
            _check(o >= 0 and s >= 1 and o + s <= e,
                   "echo.slice: [%d, %d) out of bounds of %s", o, o + s,
                   _shape_str(x.shape))
        return self._op1("slice", [x], sizes, x.dtype,
                         {"offsets": i64_array_attr(offsets),
                          "sizes": i64_array_attr(sizes)})

    def concat(self, inputs, axis):
        inputs = list(inputs)
        _check(len(inputs) >= 1, "echo.concat: needs an input")
        first = inputs[0]
        _check(0 <= axis < first.rank, "echo.concat: bad axis %d", axis)
        shape = list(first.shape)
        shape[axis] = 0
        for v in inputs:
            _check(v.rank == first.rank and v.dtype == first.dtype and all(
                v.shape[d] == first.shape[d]
                for d in range(first.rank) if d != axis),
                "echo.concat: %s does not match %s on axis %d", v.type,
                first.type, axis)
            shape[axis] += v.shape[axis]
        return self._op1("concat", inputs, shape, first.dtype,
                         {"axis": i64_attr(axis)})

    def reshape(self, x, shape):
        """Reshapes ``x`` (row-major); returns ``x`` itself if nothing changes."""
        _check(_num_elements(shape) == _num_elements(x.shape),
               "echo.reshape: %s and %s differ in size", _shape_str(x.shape),
               _shape_str(shape))
        if tuple(shape) == x.shape:
            return x
        return self._op1("reshape", [x], shape, x.dtype)

    def transpose(self, x, permutation):
        _check(sorted(permutation) == list(range(x.rank)),
               "echo.transpose: %s is no permutation of rank %d",
               list(permutation), x.rank)
        shape = [x.shape[p] for p in permutation]
        return self._op1("transpose", [x], shape, x.dtype,
                         {"permutation": i64_array_attr(permutation)})

    # -- compute-heavy ------------------------------------------------------

    @staticmethod
    def _flags(transpose_a, transpose_b):
        attrs = {}
        if transpose_a:
            attrs["transpose_a"] = bool_attr(True)
        if transpose_b:
            attrs["transpose_b"] = bool_attr(True)
        return attrs

    def _matmul(self, name, a, b, transpose_a, transpose_b, rank):
        _check(a.rank == rank and b.rank == rank,
               "echo.%s: operands must have rank %d", name, rank)
        m, ka = a.shape[-2:][::-1] if transpose_a else a.shape[-2:]
        kb, n = b.shape[-2:][::-1] if transpose_b else b.shape[-2:]
        _check(ka == kb, "echo.%s: contraction sizes differ: %s, %s", name,
               a.type, b.type)
        shape = [m, n]
        if rank == 3:
            _check(a.shape[0] == b.shape[0], "echo.%s: batch sizes differ",
                   name)
            shape = [a.shape[0], m, n]
        return self._op1(name, [a, b], shape, a.dtype,
                         self._flags(transpose_a, transpose_b))

    def matmul(self, a, b, transpose_a=False, transpose_b=False):
        """``op(a) [M,K] x op(b) [K,N] -> [M,N]``."""
        return self._matmul("matmul", a, b, transpose_a, transpose_b, 2)

    def batch_matmul(self, a, b, transpose_a=False, transpose_b=False):
        """``op(a) [B,M,K] x op(b) [B,K,N] -> [B,M,N]``."""
        return self._matmul("batch_matmul", a, b, transpose_a, transpose_b, 3)

    def linear(self, x, w, b):
        """``x [M,K], w [N,K], b [N] -> x.w^T + b [M,N]``."""
        _check(x.rank == 2 and w.rank == 2 and b.rank == 1 and
               x.shape[1] == w.shape[1] and b.shape[0] == w.shape[0],
               "echo.linear: bad shapes %s, %s, %s", x.type, w.type, b.type)
        return self._op1("linear", [x, w, b], [x.shape[0], w.shape[0]])

    def conv2d(self, x, w, strides=(1, 1), padding=(0, 0), groups=1):
        """NCHW cross-correlation of ``x`` with ``w`` [F,C/groups,KH,KW].

        ``groups`` splits the channels as ``F.conv2d(groups=...)`` does
        (``groups = C``: depthwise); the attribute is emitted only when it
        is not 1.
        """
        groups = int(groups)
        _check(x.rank == 4 and w.rank == 4 and groups >= 1 and
               x.shape[1] % groups == 0 and w.shape[0] % groups == 0 and
               x.shape[1] // groups == w.shape[1],
               "echo.conv2d: bad shapes %s, %s for %d groups", x.type, w.type,
               groups)
        oh = _window_out(x.shape[2], w.shape[2], strides[0], padding[0])
        ow = _window_out(x.shape[3], w.shape[3], strides[1], padding[1])
        _check(oh >= 1 and ow >= 1, "echo.conv2d: %s does not fit %s",
               w.type, x.type)
        attrs = {"strides": i64_array_attr(strides),
                 "padding": i64_array_attr(padding)}
        if groups != 1:
            attrs["groups"] = i64_attr(groups)
        return self._op1("conv2d", [x, w], [x.shape[0], w.shape[0], oh, ow],
                         attrs=attrs)

    def _pool(self, name, x, kernel, strides, padding, ceil_mode=False,
              count_include_pad=False):
        _check(x.rank == 4, "echo.%s: x must be NCHW", name)
        _check(all(p < k for p, k in zip(padding, kernel)),
               "echo.%s: padding must be smaller than the kernel", name)
        oh = _window_out(x.shape[2], kernel[0], strides[0], padding[0],
                         ceil_mode)
        ow = _window_out(x.shape[3], kernel[1], strides[1], padding[1],
                         ceil_mode)
        _check(oh >= 1 and ow >= 1, "echo.%s: window does not fit %s", name,
               x.type)
        attrs = {"kernel": i64_array_attr(kernel),
                 "strides": i64_array_attr(strides),
                 "padding": i64_array_attr(padding)}
        # Flags are emitted only when set (absent = false).
        if ceil_mode:
            attrs["ceil_mode"] = bool_attr(True)
        if count_include_pad:
            attrs["count_include_pad"] = bool_attr(True)
        return self._op1(name, [x], [x.shape[0], x.shape[1], oh, ow],
                         attrs=attrs)

    def max_pool2d(self, x, kernel, strides, padding=(0, 0), ceil_mode=False):
        return self._pool("max_pool2d", x, kernel, strides, padding,
                          ceil_mode)

    def avg_pool2d(self, x, kernel, strides, padding=(0, 0), ceil_mode=False,
                   count_include_pad=False):
        """Average pooling; ``count_include_pad`` counts the padding in each
        window's divisor (PyTorch's default, echo's ``false`` otherwise)."""
        return self._pool("avg_pool2d", x, kernel, strides, padding,
                          ceil_mode, count_include_pad)

    def adaptive_avg_pool2d(self, x, output_size):
        """``x`` [N,C,H,W] averaged into [N,C,OH,OW] as PyTorch's
        ``adaptive_avg_pool2d`` (``output_size`` = [OH, OW])."""
        output_size = [int(d) for d in output_size]
        _check(x.rank == 4 and len(output_size) == 2 and
               all(d >= 1 for d in output_size),
               "echo.adaptive_avg_pool2d: bad operand %s or output size %s",
               x.type, output_size)
        return self._op1("adaptive_avg_pool2d", [x],
                         [x.shape[0], x.shape[1]] + output_size,
                         attrs={"output_size": i64_array_attr(output_size)})

    # -- normalization, softmax, dropout, embedding ---------------------------

    def batch_norm(self, x, gamma, beta, epsilon=1e-5):
        """Training-mode batch norm over channel dim 1 (rank 2 or 4)."""
        _check(x.rank in (2, 4) and gamma.shape == (x.shape[1],) and
               beta.shape == (x.shape[1],),
               "echo.batch_norm: bad shapes %s, %s, %s", x.type, gamma.type,
               beta.type)
        return self._op1("batch_norm", [x, gamma, beta], x.shape,
                         attrs={"epsilon": f64_attr(epsilon)})

    def layer_norm(self, x, gamma, beta, epsilon=1e-5):
        """Layer norm over the last dimension."""
        _check(x.rank >= 1 and gamma.shape == (x.shape[-1],) and
               beta.shape == (x.shape[-1],),
               "echo.layer_norm: bad shapes %s, %s, %s", x.type, gamma.type,
               beta.type)
        return self._op1("layer_norm", [x, gamma, beta], x.shape,
                         attrs={"epsilon": f64_attr(epsilon)})

    def softmax(self, x, axis):
        _check(0 <= axis < x.rank, "echo.softmax: bad axis %d", axis)
        return self._op1("softmax", [x], x.shape, attrs={"axis": i64_attr(axis)})

    def dropout(self, x, ratio, seed=None, broadcast_dims=None):
        """Returns ``(y, mask)``; ``seed`` defaults to the next fresh seed.

        ``broadcast_dims`` (sorted dims of ``x``, not all of them) share one
        keep decision along them: [2, 3] is Dropout2d on NCHW, [1, 2, 3]
        drops whole samples (stochastic depth). The mask keeps ``x``'s shape.
        """
        _check(0.0 <= ratio < 1.0, "echo.dropout: ratio %r not in [0, 1)",
               ratio)
        attrs = {}
        if broadcast_dims:
            dims = [int(d) for d in broadcast_dims]
            _check(all(0 <= d < x.rank for d in dims) and
                   dims == sorted(set(dims)) and len(dims) < x.rank,
                   "echo.dropout: broadcast_dims %s of %s must be sorted, "
                   "unique dims, not all of them", dims, x.type)
            attrs["broadcast_dims"] = i64_array_attr(dims)
        if seed is None:
            seed = self._next_seed
            self._next_seed += 1
        attrs.update({"ratio": f64_attr(ratio), "seed": i64_attr(seed)})
        y, mask = self.op("dropout", [x], [(x.shape, x.dtype),
                                           (x.shape, "i1")], attrs)
        return y, mask

    def embedding(self, ids, table):
        """``ids`` (i32, any rank), ``table`` [V,H] -> ``ids.shape + [H]``."""
        _check(ids.dtype == "i32" and table.rank == 2,
               "echo.embedding: bad operands %s, %s", ids.type, table.type)
        return self._op1("embedding", [ids, table],
                         list(ids.shape) + [table.shape[1]], table.dtype)

    # -- losses -------------------------------------------------------------

    def cross_entropy(self, logits, labels):
        """Mean softmax cross-entropy of ``logits`` [N,C], ``labels`` [N]."""
        _check(logits.rank == 2 and labels.dtype == "i32" and
               labels.shape == (logits.shape[0],),
               "echo.cross_entropy: bad operands %s, %s", logits.type,
               labels.type)
        return self._op1("cross_entropy", [logits, labels], [])

    def mse_loss(self, pred, target):
        _check(pred.type == target.type, "echo.mse_loss: types differ")
        return self._op1("mse_loss", [pred, target], [])


# ---------------------------------------------------------------------------
# Layers shared by the models
# ---------------------------------------------------------------------------


def _dense(g, x, features, name):
    """A linear layer with fresh parameters ``<name>_w`` [F,K], ``<name>_b``."""
    w = g.param(name + "_w", [features, x.shape[1]])
    b = g.param(name + "_b", [features])
    return g.linear(x, w, b)


def _lstm_params(g, name, input_size, hidden):
    """Weights of one LSTM layer: ``w`` [4H, input+H] (gates i, f, g, o)."""
    return (g.param(name + "_w", [4 * hidden, input_size + hidden]),
            g.param(name + "_b", [4 * hidden]))


def _lstm_cell(g, inputs, h, c, weights):
    """One LSTM step on ``concat(inputs + [h])``; returns ``(h', c')``.

    The four gates come from a single ``echo.linear`` on the concatenated
    input and state, split with ``echo.slice`` (order i, f, g, o):
    ``c' = sigmoid(f)*c + sigmoid(i)*tanh(g)``, ``h' = sigmoid(o)*tanh(c')``.
    """
    w, b = weights
    batch, hidden = h.shape
    x = g.concat(list(inputs) + [h], axis=1)
    gates = g.linear(x, w, b)

    def gate(k):
        return g.slice(gates, [0, k * hidden], [batch, hidden])

    i = g.sigmoid(gate(0))
    f = g.sigmoid(gate(1))
    cand = g.tanh(gate(2))
    o = g.sigmoid(gate(3))
    c = g.add(g.mul(f, c), g.mul(i, cand))
    h = g.mul(o, g.tanh(c))
    return h, c


def _gru_step(g, proj, t, batch, h, w_g, w_n):
    """One GRU step of ``deepspeech2`` on rows ``t`` of ``proj`` [T*B, 3H]
    (``h`` is None at the first step, standing for zeros)."""
    hidden = w_n.shape[0]

    def part(k, width):
        return g.slice(proj, [t * batch, k * hidden], [batch, width])

    x_n = part(2, hidden)
    if h is None:  # z = sigmoid(x_z), n = tanh(x_n), h' = n - z*n
        z = g.sigmoid(part(0, hidden))
        n = g.tanh(x_n)
        return g.sub(n, g.mul(z, n))
    gates = g.sigmoid(g.add(part(0, 2 * hidden),
                            g.matmul(h, w_g, transpose_b=True)))
    z = g.slice(gates, [0, 0], [batch, hidden])
    r = g.slice(gates, [0, hidden], [batch, hidden])
    n = g.tanh(g.add(x_n, g.matmul(g.mul(r, h), w_n, transpose_b=True)))
    return g.add(h, g.mul(z, g.sub(n, h)))


def _time_step(g, seq, t):
    """Row ``t`` of a batch-major sequence [B,T,F], as a [B,F] matrix."""
    b, _, f = seq.shape
    return g.reshape(g.slice(seq, [0, t, 0], [b, 1, f]), [b, f])


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


def mlp(batch=8, sizes=(32, 64, 64, 10)):
    """Multi-layer perceptron.

    ``sizes`` lists the layer widths, input first and classes last: a linear
    layer joins each consecutive pair, with relu between them.  Arguments:
    ``x`` [batch, sizes[0]], ``labels`` [batch] (i32).
    """
    sizes = [int(s) for s in sizes]
    _check(len(sizes) >= 2, "mlp: sizes needs at least input and classes")
    g = GraphBuilder("mlp")
    h = g.data("x", [batch, sizes[0]])
    labels = g.data("labels", [batch], "i32")
    for i, width in enumerate(sizes[1:]):
        h = _dense(g, h, width, "fc%d" % i)
        if i + 2 < len(sizes):
            h = g.relu(h)
    return g.finish(g.cross_entropy(h, labels))


def lstm(batch=4, seq_len=6, input=8, hidden=16, classes=5, layers=1):
    """Unrolled (stacked) LSTM sequence classifier.

    Arguments: ``x`` [batch, seq_len, input] (batch-major), ``labels``
    [batch].  Each of ``layers`` layers runs ``seq_len`` LSTM steps from
    zero states (a single gate matmul per step on ``[x_t, h]``); a linear
    layer classifies the last hidden state of the top layer.
    """
    g = GraphBuilder("lstm")
    x = g.data("x", [batch, seq_len, input])
    labels = g.data("labels", [batch], "i32")
    zero = g.zeros([batch, hidden])
    outputs = None
    for layer in range(layers):
        weights = _lstm_params(g, "lstm%d" % layer,
                               input if layer == 0 else hidden, hidden)
        h, c, steps = zero, zero, []
        for t in range(seq_len):
            g.comment("layer %d, step %d" % (layer, t))
            x_t = _time_step(g, x, t) if layer == 0 else outputs[t]
            h, c = _lstm_cell(g, [x_t], h, c, weights)
            steps.append(h)
        outputs = steps
    logits = _dense(g, outputs[-1], classes, "fc")
    return g.finish(g.cross_entropy(logits, labels))


def nmt(batch=4, src_len=5, tgt_len=5, vocab=20, embed=16, hidden=16,
        attention=0, dropout=0.1, seed=1):
    """Sockeye-like RNN encoder-decoder with MLP attention, one training step.

    Arguments (data): ``src_ids`` [batch, src_len], ``tgt_ids`` [batch,
    tgt_len] (decoder inputs, i.e. the shifted targets) and ``labels``
    [tgt_len*batch], *time-major* (label of step t, sentence b at
    ``t*batch + b``).  ``attention`` is the attention MLP width (0 = hidden).

    * Encoder: source embedding, dropout, unrolled LSTM from zero states.
    * Decoder state starts at ``tanh(W_init h_enc_last + b)``.  Each step
      feeds ``[embed(y_t), a_{t-1}]`` (input feeding) to an LSTM giving
      ``d_t``; MLP attention ``score_s = v . tanh(W_k h_s + W_q d_t)``,
      softmax over the source positions, ``ctx_t = sum_s alpha_s h_s``
      (batch_matmul); attentional state ``a_t = tanh(W_a [d_t; ctx_t] + b)``.
    * ``dropout`` on each ``a_t`` (one seed per op, from ``seed`` up), one
      output projection over all steps, cross-entropy against ``labels``.

    ``W_k h_s`` is computed once for all source positions.  ``dropout=0``
    leaves the dropout ops out.
    """
    attention = attention or hidden
    b, s_len, t_len = batch, src_len, tgt_len
    g = GraphBuilder("nmt", seed=seed)
    src_ids = g.data("src_ids", [b, s_len], "i32")
    tgt_ids = g.data("tgt_ids", [b, t_len], "i32")
    labels = g.data("labels", [t_len * b], "i32")

    def drop(x, ratio=dropout):
        return g.dropout(x, ratio)[0] if ratio else x

    g.comment("encoder")
    src = drop(g.embedding(src_ids, g.param("src_embed", [vocab, embed])))
    enc = _lstm_params(g, "enc", embed, hidden)
    zero = g.zeros([b, hidden])
    h, c, states = zero, zero, []
    for s in range(s_len):
        g.comment("encoder step %d" % s)
        h, c = _lstm_cell(g, [_time_step(g, src, s)], h, c, enc)
        states.append(h)

    g.comment("attention memory: encoder states [B,S,H] and W_k h_s")
    flat = g.concat(states, axis=1)  # [B, S*H] == [B, S, H] row-major
    memory = g.reshape(flat, [b, s_len, hidden])
    keys = g.reshape(_dense(g, g.reshape(flat, [b * s_len, hidden]),
                            attention, "att_key"), [b, s_len, attention])
    w_query = g.param("att_query_w", [attention, hidden])
    v = g.param("att_v", [1, attention])

    g.comment("decoder")
    d = g.tanh(_dense(g, h, hidden, "dec_init"))
    c = zero
    feed = zero
    tgt = g.embedding(tgt_ids, g.param("tgt_embed", [vocab, embed]))
    dec = _lstm_params(g, "dec", embed + hidden, hidden)
    w_att = g.param("dec_att_w", [hidden, 2 * hidden])
    b_att = g.param("dec_att_b", [hidden])
    outputs = []
    for t in range(t_len):
        g.comment("decoder step %d" % t)
        d, c = _lstm_cell(g, [_time_step(g, tgt, t), feed], d, c, dec)
        query = g.matmul(d, w_query, transpose_b=True)  # [B, A]
        hid = g.tanh(g.add(keys, g.broadcast(query, [b, s_len, attention],
                                             [1])))
        scores = g.matmul(g.reshape(hid, [b * s_len, attention]), v,
                          transpose_b=True)  # [B*S, 1]
        alpha = g.softmax(g.reshape(scores, [b, s_len]), axis=1)
        ctx = g.batch_matmul(g.reshape(alpha, [b, 1, s_len]), memory)
        ctx = g.reshape(ctx, [b, hidden])
        feed = g.tanh(g.linear(g.concat([d, ctx], axis=1), w_att, b_att))
        outputs.append(drop(feed))

    g.comment("output layer over all steps (time-major rows)")
    logits = _dense(g, g.concat(outputs, axis=0), vocab, "out")
    return g.finish(g.cross_entropy(logits, labels))


def transformer(batch=2, seq=8, d_model=16, heads=2, ff=32, layers=2,
                vocab=20, dropout=0.1, attention_dropout=0.0, act_dropout=0.0,
                seed=1):
    """Transformer encoder with a token-level classifier (post-LN blocks).

    Arguments: ``ids`` [batch, seq] and ``labels`` [batch*seq] (batch-major,
    one per token).  Token plus learned position embeddings, then ``layers``
    blocks of ``x = LN(x + Drop(MHA(x)))``, ``x = LN(x + Drop(FF(x)))`` with
    relu in the feed-forward; a linear layer maps every token to ``vocab``
    logits.  Attention heads are formed with reshape/transpose to
    [batch*heads, seq, d_model/heads]; scores use batch_matmul with
    ``transpose_b``, scaled by a constant, softmax over the keys.
    ``dropout`` applies to each sublayer's output before the residual add;
    ``attention_dropout`` to the attention probabilities and
    ``act_dropout`` to the feed-forward's relu output (Sockeye's
    prepost, attention and act dropouts). A ratio of 0 leaves the op out.
    """
    _check(d_model % heads == 0, "transformer: heads (%d) must divide "
           "d_model (%d)", heads, d_model)
    dh = d_model // heads
    n = batch * seq
    g = GraphBuilder("transformer", seed=seed)
    ids = g.data("ids", [batch, seq], "i32")
    labels = g.data("labels", [n], "i32")

    def drop(x, ratio=dropout):
        return g.dropout(x, ratio)[0] if ratio else x

    def split_heads(x):  # [B*S, D] -> [B*H, S, dh]
        x = g.reshape(x, [batch, seq, heads, dh])
        x = g.transpose(x, [0, 2, 1, 3])
        return g.reshape(x, [batch * heads, seq, dh])

    x = g.embedding(ids, g.param("tok_embed", [vocab, d_model]))
    pos = g.param("pos_embed", [seq, d_model])
    x = g.add(x, g.broadcast(pos, [batch, seq, d_model], [0]))
    x = g.reshape(x, [n, d_model])
    scale = g.constant(1.0 / math.sqrt(dh), [batch * heads, seq, seq])
    for l in range(layers):
        g.comment("block %d: self-attention" % l)
        q = split_heads(_dense(g, x, d_model, "l%d_q" % l))
        k = split_heads(_dense(g, x, d_model, "l%d_k" % l))
        v = split_heads(_dense(g, x, d_model, "l%d_v" % l))
        p = g.softmax(g.mul(g.batch_matmul(q, k, transpose_b=True), scale),
                      axis=2)
        o = g.batch_matmul(drop(p, attention_dropout), v)  # [B*H, S, dh]
        o = g.reshape(o, [batch, heads, seq, dh])
        o = g.reshape(g.transpose(o, [0, 2, 1, 3]), [n, d_model])
        o = drop(_dense(g, o, d_model, "l%d_o" % l))
        x = g.layer_norm(g.add(x, o), g.param("l%d_ln1_g" % l, [d_model]),
                         g.param("l%d_ln1_b" % l, [d_model]))
        g.comment("block %d: feed-forward" % l)
        f = drop(g.relu(_dense(g, x, ff, "l%d_ff1" % l)), act_dropout)
        f = drop(_dense(g, f, d_model, "l%d_ff2" % l))
        x = g.layer_norm(g.add(x, f), g.param("l%d_ln2_g" % l, [d_model]),
                         g.param("l%d_ln2_b" % l, [d_model]))
    logits = _dense(g, x, vocab, "out")
    return g.finish(g.cross_entropy(logits, labels))


def resnet(batch=2, channels=8, image=16, blocks=2, classes=10, stages=2,
           in_channels=3):
    """ResNet with basic blocks (CIFAR/ImageNet style, scaled down).

    Arguments: ``x`` [batch, in_channels, image, image], ``labels`` [batch].
    Stem: 3x3 conv, batch norm, relu, 3x3/2 max pool.  ``stages`` stages of
    ``blocks`` basic blocks (conv-bn-relu-conv-bn, residual add, relu); stage
    ``i`` has ``channels * 2**i`` channels and, for ``i > 0``, starts with a
    stride-2 block whose shortcut is a 1x1 stride-2 conv + batch norm.
    Global average pooling (avg_pool2d over the whole map), a linear layer
    and cross-entropy.
    """
    g = GraphBuilder("resnet")
    x = g.data("x", [batch, in_channels, image, image])
    labels = g.data("labels", [batch], "i32")

    def conv_bn(h, out, kernel, stride, name):
        w = g.param(name + "_w", [out, h.shape[1], kernel, kernel])
        pad = kernel // 2
        h = g.conv2d(h, w, [stride, stride], [pad, pad])
        return g.batch_norm(h, g.param(name + "_bn_g", [out]),
                            g.param(name + "_bn_b", [out]))

    g.comment("stem")
    h = g.relu(conv_bn(x, channels, 3, 1, "stem"))
    h = g.max_pool2d(h, [3, 3], [2, 2], [1, 1])
    for i in range(stages):
        width = channels * 2 ** i
        for j in range(blocks):
            name = "s%d_b%d" % (i, j)
            g.comment("stage %d, block %d" % (i, j))
            stride = 2 if i > 0 and j == 0 else 1
            shortcut = h
            if stride != 1 or h.shape[1] != width:
                shortcut = conv_bn(h, width, 1, stride, name + "_proj")
            y = g.relu(conv_bn(h, width, 3, stride, name + "_conv1"))
            y = conv_bn(y, width, 3, 1, name + "_conv2")
            h = g.relu(g.add(y, shortcut))
    g.comment("head")
    _, width, hh, ww = h.shape
    h = g.avg_pool2d(h, [hh, ww], [1, 1])
    logits = _dense(g, g.reshape(h, [batch, width]), classes, "fc")
    return g.finish(g.cross_entropy(logits, labels))


def deepspeech2(batch=2, freq=32, time=16, channels=4, hidden=16,
                classes=10, rnn_layers=2, bidirectional=False, cell="rnn"):
    """DeepSpeech2-like acoustic model (CTC replaced by per-frame labels).

    Arguments: ``x`` [batch, 1, freq, time] (a spectrogram, NCHW) and
    ``labels`` [T'*batch], time-major, where T' is the time extent after the
    convolutions (``time`` halved, rounded up).
    Front end: conv 5x3 stride (2,2) and conv 5x3 stride (2,1), each with
    batch norm and relu.  The feature map is transposed to time-major and
    flattened to [T'*batch, channels*F'].  Each of ``rnn_layers`` layers
    projects its input for all steps at once (matmul + sequence-wise batch
    norm, as in DS2) and runs an unrolled recurrence, the directions summed
    with ``bidirectional``.  ``cell="rnn"``: ``h_t = tanh(x_t + W_hh
    h_{t-1})`` (``h_0 = tanh(x_0)``).  ``cell="gru"`` (as MXNet's DS2
    example): the projection has 3H columns ``[x_z, x_r, x_n]``;
    ``z, r = sigmoid([x_z, x_r] + W_g h)``, ``n = tanh(x_n + W_n (r*h))``,
    ``h' = h + z*(n - h)``, from ``h = 0`` (first step ``n - z*n``).
    A per-frame linear layer and cross-entropy over [T'*batch] rows.
    """
    _check(cell in ("rnn", "gru"), "deepspeech2: cell %r is not 'rnn' or "
           "'gru'", cell)
    g = GraphBuilder("deepspeech2")
    x = g.data("x", [batch, 1, freq, time])

    def conv_bn_relu(h, kernel, strides, name):
        w = g.param(name + "_w", [channels, h.shape[1]] + list(kernel))
        h = g.conv2d(h, w, strides, [kernel[0] // 2, kernel[1] // 2])
        h = g.batch_norm(h, g.param(name + "_bn_g", [channels]),
                         g.param(name + "_bn_b", [channels]))
        return g.relu(h)

    g.comment("convolutional front end")
    h = conv_bn_relu(x, [5, 3], [2, 2], "conv1")
    h = conv_bn_relu(h, [5, 3], [2, 1], "conv2")
    _, ch, f2, t2 = h.shape
    labels = g.data("labels", [t2 * batch], "i32")
    h = g.transpose(h, [3, 0, 1, 2])  # [T', B, C, F']
    seq = g.reshape(h, [t2 * batch, ch * f2])

    for l in range(rnn_layers):
        directions = ["fwd", "bwd"] if bidirectional else ["fwd"]
        outs = None
        for direction in directions:
            name = "rnn%d_%s" % (l, direction)
            g.comment("RNN layer %d (%s)" % (l, direction))
            width = hidden * (3 if cell == "gru" else 1)
            w_ih = g.param(name + "_w_ih", [width, seq.shape[1]])
            proj = g.batch_norm(g.matmul(seq, w_ih, transpose_b=True),
                                g.param(name + "_bn_g", [width]),
                                g.param(name + "_bn_b", [width]))
            if cell == "gru":
                w_g = g.param(name + "_w_hg", [2 * hidden, hidden])
                w_n = g.param(name + "_w_hn", [hidden, hidden])
            else:
                w_hh = g.param(name + "_w_hh", [hidden, hidden])
            order = range(t2) if direction == "fwd" else range(t2 - 1, -1, -1)
            hs, prev = [None] * t2, None
            for t in order:
                if cell == "gru":
                    hs[t] = prev = _gru_step(g, proj, t, batch, prev,
                                             w_g, w_n)
                    continue
                x_t = g.slice(proj, [t * batch, 0], [batch, hidden])
                if prev is not None:
                    x_t = g.add(x_t, g.matmul(prev, w_hh, transpose_b=True))
                hs[t] = prev = g.tanh(x_t)
            outs = hs if outs is None else [g.add(a, b)
                                            for a, b in zip(outs, hs)]
        seq = g.concat(outs, axis=0)  # [T'*B, H], time-major

    g.comment("per-frame classifier")
    logits = _dense(g, seq, classes, "fc")
    return g.finish(g.cross_entropy(logits, labels))


# ---------------------------------------------------------------------------
# Registry and command line
# ---------------------------------------------------------------------------

MODELS = {
    "mlp": mlp,
    "lstm": lstm,
    "nmt": nmt,
    "transformer": transformer,
    "resnet": resnet,
    "deepspeech2": deepspeech2,
}


def _defaults(model):
    return [(p.name, p.default)
            for p in inspect.signature(MODELS[model]).parameters.values()]


def _format_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(int(v)) for v in value)
    return str(value)


def _parse_value(text, default):
    """Parses a command-line value with the type of the keyword's default."""
    if isinstance(default, bool):
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError("expected true or false, got %r" % text)
    if isinstance(default, (list, tuple)):
        return tuple(int(v) for v in text.split(",") if v.strip())
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text


def _complete(model, kwargs):
    """All keyword arguments of ``model``: ``kwargs`` over the defaults."""
    names = [name for name, _ in _defaults(model)]
    for key in kwargs:
        if key not in names:
            raise ValueError("model %s has no size %r (has: %s)" % (
                model, key, ", ".join(names)))
    return [(name, kwargs.get(name, default))
            for name, default in _defaults(model)]


def command_line(model, **kwargs):
    """The canonical command that regenerates ``model`` with ``kwargs``."""
    return "python3 -m echo.models %s %s" % (model, " ".join(
        "--%s=%s" % (k, _format_value(v)) for k, v in _complete(model, kwargs)))


def build(model, **kwargs):
    """Builds ``model`` and returns its MLIR text with a header comment."""
    if model not in MODELS:
        raise ValueError("unknown model %r (known: %s)" % (
            model, ", ".join(MODELS)))
    full = _complete(model, kwargs)
    header = "// Echo model, generated by:\n//   %s\n" % command_line(
        model, **kwargs)
    return header + MODELS[model](**dict(full))


_USAGE = """\
usage: python3 -m echo.models <model> [--key=value ...] [-o out.mlir]
       python3 -m echo.models --list

Emits an Echo training graph (MLIR, generic op form) on stdout or to -o.
Lists take commas (--sizes=784,256,10); flags take true/false.
"""


def _list_models(out):
    for name, fn in MODELS.items():
        summary = inspect.getdoc(fn).splitlines()[0]
        out.write("%-12s %s\n" % (name, summary))
        out.write("%-12s %s\n" % ("", " ".join(
            "--%s=%s" % (k, _format_value(v)) for k, v in _defaults(name))))


def main(argv=None):
    """Command-line entry point; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    model, output, raw = None, None, {}
    i = 0
    try:
        while i < len(argv):
            arg = argv[i]
            i += 1
            if arg in ("-h", "--help"):
                sys.stdout.write(_USAGE)
                return 0
            if arg == "--list":
                _list_models(sys.stdout)
                return 0
            if arg in ("-o", "--output"):
                if i == len(argv):
                    raise ValueError("%s needs a file name" % arg)
                output = argv[i]
                i += 1
            elif arg.startswith("--output="):
                output = arg[len("--output="):]
            elif arg.startswith("--"):
                key, eq, value = arg[2:].partition("=")
                if not eq:
                    if i == len(argv):
                        raise ValueError("--%s needs a value" % key)
                    value = argv[i]
                    i += 1
                raw[key.replace("-", "_")] = value
            elif model is None:
                model = arg
            else:
                raise ValueError("unexpected argument %r" % arg)
        if model is None:
            raise ValueError("no model given (try --list)")
        if model not in MODELS:
            raise ValueError("unknown model %r (known: %s)" % (
                model, ", ".join(MODELS)))
        defaults = dict(_defaults(model))
        kwargs = {}
        for key, value in raw.items():
            if key not in defaults:
                raise ValueError("model %s has no size %r (has: %s)" % (
                    model, key, ", ".join(defaults)))
            try:
                kwargs[key] = _parse_value(value, defaults[key])
            except ValueError as err:
                raise ValueError("--%s: %s" % (key, err))
        text = build(model, **kwargs)
    except ValueError as err:  # includes ShapeError
        sys.stderr.write("echo.models: error: %s\n" % err)
        if not isinstance(err, ShapeError):
            sys.stderr.write(_USAGE)
        return 2
    if output is None or output == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(output, "w") as f:
            f.write(text)
    except OSError as err:
        sys.stderr.write("echo.models: error: %s\n" % err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
