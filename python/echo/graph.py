"""The builder of Echo training graphs as MLIR text: :class:`GraphBuilder`
(one method per Echo op, every shape computed and checked), the values it
hands out (:class:`Value`) and the attribute and literal spellings of the
generic op form. The model builders (:mod:`echo.models`), the random models
and the PyTorch importer build on it.

Only the Python 3 standard library is used.
"""

import math
import struct

__all__ = [
    "ShapeError",
    "Value",
    "GraphBuilder",
    "tensor_type",
    "format_float",
    "format_element",
    "i64_array_attr",
    "i64_attr",
    "f64_attr",
    "bool_attr",
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
    ``seed``, so each dropout op has its own seed.  With ``step_seed``, the
    first dropout adds the step's seed argument (``tensor<i64>
    {echo.rng_seed}``, last) and every dropout reads it, so that each step
    draws fresh masks.
    """

    def __init__(self, name, seed=1, step_seed=False):
        self.name = name
        self.step_seed = step_seed
        self._seed_arg = None
        self._args = []  # (Value, kind): kind "data", "param" or "frozen"
        self._arg_names = set()
        self._lines = []
        self._next_id = 0
        self._next_seed = int(seed)
        self._constants = {}
        # Discardable attributes every op emitted from now on gets (an
        # importer's echo.checkpoint_region), already formatted.
        self.op_attributes = {}

    # -- arguments ----------------------------------------------------------

    def _arg(self, name, shape, dtype, kind):
        base, n = name, 1
        while name in self._arg_names:
            n += 1
            name = "%s_%d" % (base, n)
        self._arg_names.add(name)
        for d in shape:
            _check(int(d) >= 1, "argument %%%s: dimension %s must be >= 1",
                   name, d)
        value = Value("%" + name, shape, dtype)
        self._args.append((value, kind))
        return value

    def data(self, name, shape, dtype="f32"):
        """Declares a data argument (no ``echo.param``)."""
        return self._arg(name, shape, dtype, "data")

    def param(self, name, shape):
        """Declares a trainable ``f32`` argument (``{echo.param}``)."""
        return self._arg(name, shape, "f32", "param")

    def frozen_param(self, name, shape):
        """Declares a parameter that is not trained: an ``f32`` data
        argument marked ``{echo.frozen}`` (no gradient, no update)."""
        return self._arg(name, shape, "f32", "frozen")

    def arguments(self):
        """The arguments in the order :meth:`finish` writes them: a list
        of ``(Value, kind)``, kind "data", "frozen", "param" or "seed"."""
        order = {"data": 0, "frozen": 0, "param": 1, "seed": 2}
        return sorted(self._args, key=lambda a: order[a[1]])

    def seed_argument(self):
        """The step's seed argument, made at the first call."""
        if self._seed_arg is None:
            base, n, name = "rng_seed", 1, "rng_seed"
            while name in self._arg_names:
                n += 1
                name = "%s_%d" % (base, n)
            self._arg_names.add(name)
            self._seed_arg = Value("%" + name, (), "i64")
            self._args.append((self._seed_arg, "seed"))
        return self._seed_arg

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
        if self.op_attributes:
            attrs = dict(attrs or {}, **self.op_attributes)
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

    def triangle(self, shape, dtype, diagonal, inside, outside,
                 kind="lower"):
        """``echo.triangle``: ``inside`` where ``j - i <= diagonal``
        (``kind`` "lower", PyTorch's ``tril``) or ``>= diagonal``
        ("upper", ``triu``) over the last two dims ``[i, j]`` of ``shape``,
        ``outside`` elsewhere (``dtype`` a float type or ``i1``, whose
        values are 0 or 1); shared between identical requests."""
        _check(len(shape) >= 2, "echo.triangle: shape %s has rank < 2",
               _shape_str(shape))
        _check(kind in ("lower", "upper"),
               "echo.triangle: kind %r is not lower or upper", kind)
        key = ("triangle", tuple(shape), dtype, int(diagonal), float(inside),
               float(outside), kind)
        if key not in self._constants:
            self._constants[key] = self._op1(
                "triangle", [], tuple(shape), dtype,
                {"kind": i64_attr(0 if kind == "lower" else 1),
                 "diagonal": i64_attr(diagonal),
                 "inside": f64_attr(float(inside)),
                 "outside": f64_attr(float(outside))})
        return self._constants[key]

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
        args = self.arguments()
        _check(any(k == "param" for _, k in args),
               "model @%s has no parameter", self.name)
        marks = {"data": "", "param": " {echo.param}",
                 "frozen": " {echo.frozen}", "seed": " {echo.rng_seed}"}
        sig = ",\n    ".join("%s: %s%s" % (v.name, v.type, marks[k])
                              for v, k in args)
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
        operands = [x] + ([self.seed_argument()] if self.step_seed else [])
        y, mask = self.op("dropout", operands, [(x.shape, x.dtype),
                                                (x.shape, "i1")], attrs)
        return y, mask

    def embedding(self, ids, table):
        """``ids`` (i32, any rank), ``table`` [V,H] -> ``ids.shape + [H]``."""
        _check(ids.dtype == "i32" and table.rank == 2,
               "echo.embedding: bad operands %s, %s", ids.type, table.type)
        return self._op1("embedding", [ids, table],
                         list(ids.shape) + [table.shape[1]], table.dtype)

    # -- losses -------------------------------------------------------------

    def cross_entropy(self, logits, labels, ignore_index=None,
                      label_smoothing=0.0):
        """Mean softmax cross-entropy of ``logits`` [N,C], ``labels`` [N];
        rows labelled ``ignore_index`` (None: none) count for nothing,
        ``label_smoothing`` in [0, 1] (PyTorch's)."""
        _check(logits.rank == 2 and labels.dtype == "i32" and
               labels.shape == (logits.shape[0],),
               "echo.cross_entropy: bad operands %s, %s", logits.type,
               labels.type)
        _check(logits.shape[1] >= 1, "echo.cross_entropy: %s has no classes",
               logits.type)
        _check(0.0 <= label_smoothing <= 1.0,
               "echo.cross_entropy: label_smoothing %r not in [0, 1]",
               label_smoothing)
        attrs = {}
        if ignore_index is not None:
            attrs["ignore_index"] = i64_attr(int(ignore_index))
        if label_smoothing:
            attrs["label_smoothing"] = f64_attr(label_smoothing)
        return self._op1("cross_entropy", [logits, labels], [],
                         attrs=attrs or None)

    def mse_loss(self, pred, target):
        _check(pred.type == target.type, "echo.mse_loss: types differ")
        return self._op1("mse_loss", [pred, target], [])


# ---------------------------------------------------------------------------
# Layers shared by the models
# ---------------------------------------------------------------------------
