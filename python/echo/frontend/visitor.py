"""The node visitor of the ATen importer (torch-mlir's
``GraphNodeImporter``).

:class:`NodeImporter` walks the nodes the output needs, in order. For
each, it rewrites it through the canonicalization table
(:mod:`echo.frontend.canonicalize`), normalizes its arguments once from the
op's schema (positional, keyword, defaults) into named arguments, each
through the literal converter map (:mod:`echo.frontend.literals`), then
either folds it — no argument depends on the inputs or parameters, so the
op runs in PyTorch at import time (``arange``, ``full``, ``triu``, masks
built in forward, ``C // heads`` are plain values by then) — or calls its
handler from the table keyed by ``OpOverload`` (:mod:`echo.frontend.aten`),
which builds Echo ops with :class:`echo.models.GraphBuilder`; the shape the
handler built is checked against the one PyTorch traced. It owns the map
``node -> value`` and the helpers the handlers share (they get it as
``ctx``).
"""

import operator
import re

import torch

from echo.frontend import aten, canonicalize
from echo.frontend.aten.stop_gradient import stop_at_no_grad
from echo.frontend.errors import InternalError, UnsupportedError, at_node
from echo.frontend.literals import Const, Unusable, convert, materialize
from echo.frontend.trace import DROPOUT
from echo.models import GraphBuilder, Value

__all__ = ["NodeImporter", "sanitize"]

_TORCH_DTYPES = {"f32": torch.float32, "i32": torch.int64, "i1": torch.bool}

# Ops whose result depends on their first argument's shape only: folded
# even when that argument is not known.
_SHAPE_ONLY = {torch.ops.aten.zeros_like.default,
               torch.ops.aten.fill.Scalar,
               torch.ops.aten.zero.default,
               torch.ops.aten.ones_like.default,
               torch.ops.aten.full_like.default,
               torch.ops.aten.empty_like.default,
               torch.ops.aten.new_zeros.default,
               torch.ops.aten.new_ones.default,
               torch.ops.aten.new_full.default,
               torch.ops.aten.new_empty.default}


def sanitize(name):
    """``name`` as an MLIR argument name."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return name if name and not name[0].isdigit() else "a" + name


def _num(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


class NodeImporter(object):
    """The node visitor; handlers get it as ``ctx``.

    It owns the map ``node -> value`` (an Echo :class:`Value`, a
    :class:`Const`, a Python value or a tuple of these) and the helpers the
    handlers share: operands of a given shape (numbers and constants become
    ``arith.constant``), broadcasting, the transposes a matmul can fold
    into its flags, fresh dropout seeds.
    """

    def __init__(self, traced, module, name, step_seed=True):
        self.traced = traced
        self.module = module
        # Dropout reads the step's seed (a fresh mask every step).
        self.g = GraphBuilder(name, step_seed=step_seed)
        self.env = {}
        self.node = None
        self.constants = {}
        self.swapped = {}  # name of a last-two-dims transpose -> its source
        self.seed = 0
        # What handlers compute once per import (a value's stop-gradient,
        # the parts of a complex constant), by a key of their own.
        self.memo = {}
        self._from_params = None
        self.trained = set()

    # -- errors -------------------------------------------------------------

    def unsupported(self, reason):
        if self.node is None:
            raise UnsupportedError("%s: %s" % (type(self.module).__name__,
                                               reason))
        raise UnsupportedError(at_node(self.node, reason))

    def require(self, condition, reason):
        if not condition:
            self.unsupported(reason)

    # -- values -------------------------------------------------------------

    def value(self, node):
        return self.env[node]

    def out_meta(self, index=None):
        """The traced result's metadata (shape, dtype, strides); of result
        ``index`` for ops with several (make_fx records those on the
        ``getitem`` nodes)."""
        meta = self.node.meta.get("tensor_meta")
        if hasattr(meta, "shape") and not index:
            return meta
        if isinstance(meta, (list, tuple)) and not hasattr(meta, "shape"):
            return meta[index or 0]
        for user in self.node.users:
            if user.target is operator.getitem and \
                    user.args[1] == (index or 0):
                return user.meta.get("tensor_meta")
        raise InternalError(at_node(self.node, "internal error: no traced "
                                               "shape for result %s" % index))

    def out_shape(self, index=None):
        return tuple(self.out_meta(index).shape)

    def tensor(self, v, dtype=None, what="operand"):
        """``v`` as an Echo value (a constant is materialized; ``dtype``
        "i32" asks for ids, "i1" for a mask)."""
        if isinstance(v, Unusable):
            self.unsupported("the %s uses %s, which Echo does not compute" %
                             (what, v.what))
        if isinstance(v, Const):
            try:
                return materialize(self.g, v, self.constants, dtype)
            except ValueError as e:
                self.unsupported(str(e))
        if not isinstance(v, Value):
            self.unsupported("the %s is %r, not a tensor" % (what, v))
        if dtype is not None and v.dtype != dtype:
            promoted = aten.masks.promoted(self, v, dtype)
            if promoted is not None:
                return promoted
            self.unsupported("the %s is %s where Echo needs %s" % (
                what, v.type, dtype))
        return v

    def operand(self, v, shape, dtype="f32"):
        """``v`` (a tensor, a constant or a number) as an Echo value of
        ``shape``, broadcast as PyTorch broadcasts."""
        shape = tuple(shape)
        if isinstance(v, Const) and v.tensor.numel() == 1:
            v = v.tensor.reshape(()).item()
        if isinstance(v, (bool, int, float)):
            return self.g.constant(v, shape, dtype)
        return self.broadcast_to(self.tensor(v, dtype), shape)

    def reshape(self, x, shape):
        shape = [int(d) for d in shape]
        if -1 in shape:
            known = _num([d for d in shape if d != -1])
            shape[shape.index(-1)] = _num(x.shape) // max(known, 1)
        return self.g.reshape(x, shape)

    def broadcast_to(self, x, shape):
        """``x`` broadcast to ``shape`` (numpy rules): size-1 dims are
        dropped with ``echo.reshape``, then ``echo.broadcast`` adds
        dims."""
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

    def transpose(self, x, perm):
        """``echo.transpose``; a swap of the last two dims of a rank-2/3
        value is remembered, so a matmul can take its source with a
        transpose flag instead (the transpose is then dead and dropped)."""
        perm = [int(p) for p in perm]
        if perm == list(range(x.rank)):
            return x
        y = self.g.transpose(x, perm)
        if x.rank in (2, 3) and perm == list(range(x.rank - 2)) + [
                x.rank - 1, x.rank - 2]:
            self.swapped[y.name] = x
        return y

    def next_seed(self):
        self.seed += 1
        return self.seed

    # -- the visitor --------------------------------------------------------

    def normalize(self, target, node):
        """``{argument name: value}`` from the op's schema: positional
        arguments, then keywords, then the schema's defaults."""
        args = {}
        for i, arg in enumerate(target._schema.arguments):
            if i < len(node.args) and not arg.kwarg_only:
                raw = node.args[i]
            elif arg.name in node.kwargs:
                raw = node.kwargs[arg.name]
            elif arg.has_default_value():
                raw = arg.default_value
            else:
                raise InternalError(at_node(node, "no value for the "
                                                  "argument '%s'" % arg.name))
            args[arg.name] = convert(raw, self.value)
        return args

    def fold(self, target, node, shapes_only=False):
        """Runs the op in PyTorch on the known values of its arguments."""
        def known(v):
            if isinstance(v, Const):
                return v.tensor
            if isinstance(v, Value):  # only its shape matters (_SHAPE_ONLY)
                return torch.zeros(v.shape, dtype=_TORCH_DTYPES[v.dtype])
            if isinstance(v, (list, tuple)):
                return type(v)(known(u) for u in v)
            return v
        args = tuple(known(convert(a, self.value)) for a in node.args)
        kwargs = {k: known(convert(v, self.value))
                  for k, v in node.kwargs.items()}
        return _wrap(target(*args, **kwargs))

    def visit(self, node):
        target = node.target
        if target is operator.getitem:
            seq, index = self.env[node.args[0]], node.args[1]
            if isinstance(seq, Const):
                return Const(seq.tensor[index])
            return seq[index]
        if not isinstance(target, torch._ops.OpOverload):
            self.unsupported("Echo has no mapping for %s" % (target,))
        target, rewrite = canonicalize.lookup(target)
        flat = [v for v in _flatten(
            [convert(a, self.value) for a in node.args] +
            [convert(v, self.value) for v in node.kwargs.values()])]
        dynamic = any(isinstance(v, (Value, Unusable)) for v in flat)
        random = target is DROPOUT or \
            torch.Tag.nondeterministic_seeded in target.tags
        if random and target is not DROPOUT and \
                target is not torch.ops.aten.native_dropout.default:
            self.unsupported("%s draws random numbers (Echo's only "
                             "randomness is dropout's mask)" % target)
        if not random and not dynamic:
            return self.fold(node.target, node)
        if node.target in _SHAPE_ONLY and not any(
                isinstance(v, (Value, Unusable)) for v in _flatten(
                    [convert(a, self.value) for a in node.args[1:]] +
                    [convert(v, self.value) for v in node.kwargs.values()])):
            return self.fold(node.target, node)
        handler = aten.OPS.get(target)
        if handler is None:
            self.unsupported("Echo has no mapping for %s%s" % (
                target, self.other_unmapped(node)))
        args = self.normalize(node.target, node)
        if rewrite is not None:
            args = rewrite(args)
        if node.meta.get("echo_grad") is False and self.from_params(node):
            args = stop_at_no_grad(self, node, args)
        return handler(self, **args)

    def from_params(self, node):
        """Whether ``node``'s value depends on a trained parameter (a frozen
        one gets no gradient: what is computed from it alone needs none)."""
        if self._from_params is None:
            params = set(p for p, (t, _) in zip(
                self.traced.placeholders, self.traced.params)
                if p in self.trained)
            self._from_params = set()
            for n in self.traced.gm.graph.nodes:
                if n in params or any(a in self._from_params
                                      for a in n.all_input_nodes):
                    self._from_params.add(n)
        return node in self._from_params

    def other_unmapped(self, node):
        """``" (also unmapped: ...)"``: the other ops of the graph that
        have no handler and depend on the inputs or parameters, so that
        one import lists all of them."""
        data = set(self.traced.placeholders[:len(self.traced.params)]) | \
            set(self.traced.placeholders[len(self.traced.params) +
                                         len(self.traced.buffers):])
        dynamic, counts = set(), {}
        for n in self.traced.gm.graph.nodes:
            if n in data or any(a in dynamic for a in n.all_input_nodes):
                dynamic.add(n)
                if n.op != "call_function" or n is node or \
                        n.target is operator.getitem or \
                        n.target in _SHAPE_ONLY:
                    continue
                target = canonicalize.lookup(n.target)[0] \
                    if isinstance(n.target, torch._ops.OpOverload) \
                    else n.target
                if target not in aten.OPS:
                    counts[str(target)] = counts.get(str(target), 0) + 1
        if not counts:
            return ""
        return " (also unmapped: %s)" % ", ".join(
            "%s%s" % (k, " x%d" % v if v > 1 else "")
            for k, v in sorted(counts.items()))

    def check_shape(self, node, result):
        """The shape Echo built is the one PyTorch traced."""
        def walk(value, meta):
            if isinstance(value, Value) and hasattr(meta, "shape"):
                if tuple(meta.shape) != value.shape:
                    raise InternalError(at_node(
                        node, "internal error: Echo's shape %s differs from "
                              "PyTorch's %s" % (list(value.shape),
                                                list(meta.shape))))
            elif isinstance(value, (list, tuple)) and isinstance(
                    meta, (list, tuple)) and len(value) == len(meta):
                for v, m in zip(value, meta):
                    walk(v, m)
        walk(result, node.meta.get("tensor_meta"))

    def run(self, names, inputs, labels, loss):
        """Maps the graph; ``names`` and ``inputs`` (``(shape, dtype)``)
        are the data arguments'. Returns (function text, weights, the
        arguments): weights are ``(argument index, array)`` for every
        parameter; the arguments, in order, are ``("input", i)``,
        ``("labels", None)``, ``("param", i)`` (trained), ``("frozen",
        i)`` (a parameter with ``requires_grad=False``, or one no gradient
        of the loss reaches: unread, or read only under ``torch.no_grad()``,
        through ``detach`` or as integers; PyTorch leaves its ``.grad``
        alone) with
        ``i`` its index in ``named_parameters()``, and ``("seed",
        None)``."""
        g = self.g
        traced = self.traced
        placeholders = traced.placeholders
        num_params = len(traced.params)
        data = placeholders[num_params + len(traced.buffers):]
        kinds = {}
        for i, (node, name, (shape, dtype)) in enumerate(
                zip(data, names, inputs)):
            self.env[node] = g.data(sanitize(name), shape, dtype)
            kinds[self.env[node].name] = ("input", i)
        label_shape, label_dtype = labels
        label_value = g.data("labels", label_shape, label_dtype)
        kinds[label_value.name] = ("labels", None)
        if len(data) > len(inputs):  # the module (or a loss) reads them
            self.env[data[len(inputs)]] = label_value
        live = _live_nodes(traced.gm.graph)
        reached = _gradient_nodes(traced.gm.graph)
        self.trained = set(
            placeholders[i] for i, (param, _) in enumerate(traced.params)
            if param.requires_grad and placeholders[i] in reached)
        arrays = {}
        for i, (param, aliases) in enumerate(traced.params):
            trained = placeholders[i] in self.trained
            declare = g.param if trained else g.frozen_param
            value = declare(sanitize(aliases[0]), tuple(param.shape))
            self.env[placeholders[i]] = value
            kinds[value.name] = ("param" if trained else "frozen", i)
            arrays[value.name] = param.detach().cpu().numpy()
        if not self.trained:
            raise UnsupportedError(
                "%s has no parameters to train (%s)" % (
                    type(self.module).__name__,
                    "every parameter has requires_grad=False or gets no "
                    "gradient from the output: unread, or read only under "
                    "torch.no_grad() or through detach" if traced.params
                    else "it has none"))
        for i, (value, _) in enumerate(traced.buffers):
            self.env[placeholders[num_params + i]] = Const(value)
        output = None
        for node in traced.gm.graph.nodes:
            if node not in live or node.op == "placeholder":
                continue
            self.node = node
            g.op_attributes = _checkpoint_attributes(node)
            if node.op == "output":
                output = self.output(node.args[0], loss)
                break
            if node.op == "get_attr":
                result = self.get_attr(node)
            elif node.op == "call_function":
                result = self.visit(node)
            else:
                self.unsupported("a %s node" % node.op)
            self.check_shape(node, result)
            self.env[node] = result
        self.node = None
        g.op_attributes = {}
        text = self.finish(output, label_value, loss)
        arguments, weights = [], []
        for position, (value, kind) in enumerate(g.arguments()):
            arguments.append(kinds.get(value.name, ("seed", None)))
            if value.name in arrays:
                weights.append((position, arrays[value.name]))
        return text, weights, arguments

    def get_attr(self, node):
        value = getattr(self.traced.gm, node.target)
        params = [p for p, _ in self.traced.params]
        if isinstance(value, torch.nn.Parameter) or any(
                value is p for p in params):
            names = [n for p, ns in self.traced.params if p is value
                     for n in ns]
            raise InternalError(at_node(
                node, "internal error: the parameter %s was traced as a "
                      "constant" % (names[0] if names else node.target)))
        if isinstance(value, torch.Tensor):
            return Const(value.detach())
        return value

    def output(self, result, loss):
        """What the traced function returns: the module's output, or, when
        it computes the loss, the loss (a dict's "loss", else the first of
        a tuple: Hugging Face's ``(loss, logits, ...)``)."""
        name = type(self.module).__name__
        if loss.kind in ("module", "function"):
            if isinstance(result, dict):
                if "loss" not in result:
                    raise UnsupportedError(
                        "%s returns a dict without 'loss' (%s); with "
                        "loss=None the module returns its loss" % (
                            name, ", ".join(map(str, result))))
                result = result["loss"]
            elif isinstance(result, (list, tuple)) and result:
                result = result[0]
            return convert(result, self.value)
        if isinstance(result, dict):
            raise UnsupportedError(
                "%s returns a dict (%s); the importer appends the loss to "
                "one output tensor (or pass loss=None when the module "
                "returns its loss)" % (name, ", ".join(map(str, result))))
        return convert(result, self.value)

    def finish(self, output, labels, loss):
        g = self.g
        name = type(self.module).__name__
        if loss.kind in ("module", "function"):
            what = "the module" if loss.kind == "module" else \
                "the loss function"
            if not isinstance(output, Value) or output.dtype != "f32" or \
                    output.shape != ():
                raise UnsupportedError(
                    "%s returns %s, not the scalar loss (a 0-d float tensor)"
                    % (what, output.type if isinstance(output, Value)
                       else type(output).__name__))
            g.drop_dead_ops(output)
            return g.finish(output)
        if isinstance(output, (list, tuple)):
            raise UnsupportedError(
                "%s returns %d values; the importer appends the loss to "
                "one output tensor" % (name, len(output)))
        if isinstance(output, Const):
            raise UnsupportedError("%s's output does not depend on its "
                                   "inputs or parameters" % name)
        if not isinstance(output, Value) or output.dtype != "f32":
            raise UnsupportedError("%s's output is not an f32 tensor" % name)
        if loss.kind == "cross_entropy":
            logits = self.class_dim_last(output, labels)
            n, classes = logits.shape[0], logits.shape[1]
            if classes < 1:
                raise UnsupportedError(
                    "cross_entropy: the output %s has no classes" %
                    output.type)
            value = g.cross_entropy(logits, g.reshape(labels, [n]),
                                    loss.ignore_index, loss.label_smoothing)
        else:
            if labels.dtype != "f32" or labels.shape != output.shape:
                raise UnsupportedError(
                    "mse: labels must be f32 of the output's shape %s, not "
                    "%s" % ("x".join(map(str, output.shape)), labels.type))
            value = g.mse_loss(output, labels)
        g.drop_dead_ops(value)
        return g.finish(value)

    def class_dim_last(self, output, labels):
        """The logits as [rows, classes] for labels of ``labels``' shape:
        PyTorch's class dim 1 (``[N, C, d...]`` logits with ``[N, d...]``
        labels, per pixel or per token), or else the last dim (``[B, T, C]``
        logits with ``[B, T]`` labels, which PyTorch would take after a
        ``view(-1, C)``)."""
        g = self.g
        shape = output.shape
        channel = (shape[0],) + shape[2:] if len(shape) >= 2 else None
        if labels.dtype == "i32" and len(shape) >= 2 and \
                labels.shape == channel:
            if len(shape) > 2:
                output = g.transpose(output, [0] + list(range(2, len(shape)))
                                     + [1])
            return g.reshape(output, [_num(channel), shape[1]])
        if labels.dtype == "i32" and len(shape) >= 2 and \
                labels.shape == shape[:-1]:
            return g.reshape(output, [_num(shape[:-1]), shape[-1]])
        accepted = "x".join(map(str, channel or ())) or "()"
        if len(shape) > 2:
            accepted += " (the output %s without its class dim 1, as " \
                "PyTorch) or %s (without its last dim)" % (
                    output.type, "x".join(map(str, shape[:-1])))
        else:
            accepted += " (the output %s without its class dim)" % \
                output.type
        raise UnsupportedError(
            "cross_entropy: labels must be i32 of shape %s, not %s" % (
                accepted, labels.type))


def _checkpoint_attributes(node):
    """The attributes of the ops mapping ``node``: its checkpoint region
    (:mod:`echo.frontend.trace`), if any."""
    region = node.meta.get("echo_checkpoint")
    if region is None:
        return {}
    return {"echo.checkpoint_region": "%d : i64" % region}


def _wrap(result):
    if isinstance(result, torch.Tensor):
        return Const(result)
    if isinstance(result, (list, tuple)):
        return tuple(_wrap(r) for r in result)
    return result


def _flatten(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            for u in _flatten(v):
                yield u
        else:
            yield v


def _carries_gradient(node):
    """Whether ``node``'s value can carry a gradient: a float (or complex)
    tensor, or one whose type the trace did not record."""
    meta = node.meta.get("tensor_meta")
    if meta is None:
        return True
    metas = meta if isinstance(meta, (list, tuple)) else [meta]
    return any(not hasattr(m, "dtype") or m.dtype.is_floating_point or
               m.dtype.is_complex for m in metas)


def _gradient_nodes(graph):
    """The nodes a gradient of the output reaches: back from the output
    through float values, never into what a node made under
    ``torch.no_grad()`` reads nor through ``detach``. A trained parameter
    outside them gets no gradient in PyTorch (its ``.grad`` stays None: a
    distillation teacher left with ``requires_grad`` and read only under
    no_grad), so Echo takes it as frozen data."""
    reached = set()
    for node in reversed(list(graph.nodes)):
        if node.op == "output":
            reached.add(node)
            continue
        if not _carries_gradient(node):
            continue
        for user in node.users:
            if user in reached and user.meta.get("echo_grad") is not False \
                    and user.target is not torch.ops.aten.detach.default:
                reached.add(node)
                break
    return reached


def _live_nodes(graph):
    """The nodes the output depends on."""
    live = set()
    stack = [n for n in graph.nodes if n.op == "output"]
    while stack:
        node = stack.pop()
        if node in live:
            continue
        live.add(node)
        for arg in node.all_input_nodes:
            stack.append(arg)
    return live
