"""Imports a PyTorch ``nn.Module`` into an Echo model, at the ATen level:
the driver.

:func:`import_module` traces the module (:mod:`echo.frontend.trace`:
make_fx over functionalize, real mode, concrete shapes) and hands the graph
to the node visitor (:mod:`echo.frontend.visitor`), which maps every node
the loss needs through the table of :mod:`echo.frontend.aten`.

The model function follows the convention: the inputs in the order given,
the labels, the frozen parameters (``requires_grad=False``, or not read by
the output: ``{echo.frozen}`` data), then one ``{echo.param}`` argument per
trained parameter, as ``named_parameters()`` lists them (a tied weight
once), and last, when the module has dropout, the step's seed (``tensor<i64>
{echo.rng_seed}``: a fresh value every step gives fresh masks); the only
result is the loss the importer appends (``cross_entropy`` over PyTorch's
class dim 1 of the module's output, or over its last dim for ``[B, T, C]``
outputs with ``[B, T]`` labels, with PyTorch's ``ignore_index`` and
``label_smoothing``; or ``mse``).

Anything Echo cannot express is an :class:`UnsupportedError` naming the
node, its op, the submodule and the user's source line; whatever else
Python raises inside becomes an :class:`ImporterError` at the same place.
"""

import inspect
import os
import re

import torch

from echo.frontend.attention import check_attention, fuse_attention
from echo.frontend.errors import (ImporterError, InternalError, ModuleError,
                                  UnsupportedError, UsageError, at_node,
                                  describe, one_line, raise_site)
from echo.frontend.trace import trace_module
from echo.frontend.visitor import NodeImporter, sanitize
from echo.models import ShapeError

__all__ = ["ImportedModel", "LossSpec", "import_module", "parse_input"]

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_DTYPES = {"f32": "f32", "float32": "f32", "i32": "i32", "int32": "i32"}

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
    return shape, _DTYPES[dtype]


class LossSpec(object):
    """The loss: ``kind`` "cross_entropy" (appended to the module's output,
    with PyTorch's ``ignore_index``, None for none, and
    ``label_smoothing``), "mse" (appended), "module" (the module returns
    its loss: the labels are passed to it, as ``labels=`` when its forward
    has a parameter of that name, else as its last argument) or "function"
    (``function(output, labels)``, traced with the module)."""

    KINDS = ("cross_entropy", "mse", "module", "function")

    def __init__(self, kind="cross_entropy", ignore_index=-100,
                 label_smoothing=0.0, function=None):
        if kind is None:
            kind = "module"
        elif callable(kind):
            kind, function = "function", kind
        if kind not in self.KINDS or (kind == "function") != (
                function is not None):
            raise UnsupportedError("--loss must be cross_entropy, mse or "
                                   "none, not '%s'" % kind)
        self.function = function
        if ignore_index is not None and (
                isinstance(ignore_index, bool) or
                not isinstance(ignore_index, int) or
                not -2 ** 31 <= ignore_index < 2 ** 31):
            raise UsageError("ignore_index must be None or an int32, not %r"
                             % (ignore_index,))
        if isinstance(label_smoothing, bool) or \
                not isinstance(label_smoothing, (int, float)) or \
                not 0.0 <= label_smoothing <= 1.0:
            raise UsageError("label_smoothing must be a number in [0, 1], "
                             "not %r" % (label_smoothing,))
        self.kind = kind
        self.ignore_index = ignore_index if kind == "cross_entropy" else None
        self.label_smoothing = float(label_smoothing) \
            if kind == "cross_entropy" else 0.0


class ImportedModel(object):
    """What :func:`import_module` returns.

    ``text``: the MLIR of the model function; ``weights``: a list of
    ``(argument index, numpy array)`` for every parameter;
    ``num_data_args``: inputs plus the labels; ``notes``: what the import
    left out (running statistics); ``arguments``: what each argument of the
    function is (see :meth:`NodeImporter.run`); ``constant_buffers``: the
    names of the module's buffers whose values the model holds as constants;
    ``updated_buffers``: of those the forward updates in place (updates not
    imported).
    """

    def __init__(self, text, weights, num_data_args, name, notes=(),
                 arguments=(), constant_buffers=(), updated_buffers=()):
        self.text = text
        self.weights = weights
        self.num_data_args = num_data_args
        self.name = name
        self.notes = list(notes)
        self.arguments = list(arguments)
        self.constant_buffers = list(constant_buffers)
        self.updated_buffers = list(updated_buffers)

    def write_weights(self, directory):
        """Writes ``directory/argN.npy`` for every parameter."""
        import numpy as np
        os.makedirs(directory, exist_ok=True)
        for index, array in self.weights:
            np.save(os.path.join(directory, "arg%d.npy" % index),
                    np.ascontiguousarray(array, dtype=np.float32))


def _input_names(module, count):
    """The names of forward's first ``count`` parameters."""
    try:
        params = list(inspect.signature(module.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                   p.POSITIONAL_OR_KEYWORD)]
    return (names + ["input%d" % i for i in range(len(names), count)])[:count]


def _examples(inputs):
    generator = torch.Generator().manual_seed(0)
    examples = []
    for shape, dtype in inputs:
        if dtype == "f32":
            examples.append(torch.randn(shape, generator=generator))
        else:
            examples.append(torch.zeros(shape, dtype=torch.int64))
    return examples


def _forward_arity(module):
    try:
        params = list(inspect.signature(module.forward).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    required = [p.name for p in params if p.default is p.empty and p.kind in (
        p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    allowed = [p.name for p in params if p.kind in (
        p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return required, allowed


def _labels_passed(module, loss):
    """How the labels reach the traced function: None (the importer
    appends the loss), "keyword" (``labels=``), "positional" (the last
    argument) or "function" (the loss function's)."""
    if loss.kind in ("cross_entropy", "mse"):
        return None
    if loss.kind == "function":
        return "function"
    try:
        params = inspect.signature(module.forward).parameters
    except (TypeError, ValueError):
        return "positional"
    return "keyword" if "labels" in params else "positional"


def _trace(module, inputs, labels=None, loss=None):
    """Traces ``module`` on examples of ``inputs`` (and of the labels when
    the module or a loss function computes the loss)."""
    name = type(module).__name__
    passed = _labels_passed(module, loss) if loss is not None else None
    arity = _forward_arity(module)
    count = len(inputs) + (passed == "positional")
    if arity is not None:
        required, allowed = arity
        if passed == "keyword":
            required = [r for r in required if r != "labels"]
            allowed = [a for a in allowed if a != "labels"]
        if not len(required) <= count <= len(allowed):
            raise UnsupportedError(
                "%s.forward takes %d input(s) (%s); %d --input given%s" % (
                    name, len(required), ", ".join(required), len(inputs),
                    " and the labels (the module returns its loss)"
                    if passed == "positional" else ""))
    examples = list(inputs) + ([labels] if passed else [])
    try:
        return trace_module(module, _examples(examples),
                            labels=passed if passed != "function" else None,
                            loss_fn=loss.function if passed == "function"
                            else None)
    except Exception as e:
        site = raise_site(e)
        scope = getattr(e, "echo_scope", None)
        where = ""
        if scope is not None and scope[0]:
            where = " in %s (%s)" % scope
        if site and not site.startswith(_TORCH_DIR):
            where += " at " + site
        if "get value out of a tracing tensor" in str(e):
            raise UnsupportedError(
                "%s depends on tensor values%s (Echo imports one static "
                "graph: Python control flow on tensor values (if, while, "
                "bool(tensor), .item(), .tolist()) cannot be traced; make "
                "it depend on Python values or module attributes instead)"
                % (name, where))
        raise ModuleError("%s does not run on inputs %s%s: %s" % (
            name, ", ".join("%s:%s" % ("x".join(map(str, s)), d)
                            for s, d in inputs), where, describe(e)))


def import_module(module, inputs, loss="cross_entropy", labels=None,
                  name="model", attention="fused"):
    """Imports ``module`` (an ``nn.Module``; traced in training mode).

    ``inputs``: a list of ``(shape, dtype)``; ``loss``: ``cross_entropy``
    or ``mse`` (PyTorch's defaults: ``ignore_index`` −100), None (the
    module returns its loss), a function ``loss(output, labels)``, or a
    :class:`LossSpec`; ``labels``: ``(shape, dtype)``; ``attention``:
    "fused" (echo-fuse-attention on the imported function: attention
    written with materialized ops becomes ``echo.attention`` where it
    matches exactly, :mod:`echo.frontend.attention`) or "materialized"
    (the ops as written). Returns an :class:`ImportedModel`.
    """
    check_attention(attention)
    if not isinstance(loss, LossSpec):
        loss = LossSpec(loss)
    if labels is None:
        raise UnsupportedError("the labels' shape is needed (--labels)")
    traced = _trace(module, inputs, labels, loss)
    if traced.written:
        raise UnsupportedError(
            "%s.forward writes the parameter%s %s in place (Echo's "
            "parameters change by the optimizer only)" % (
                type(module).__name__, "s" if len(traced.written) > 1 else "",
                ", ".join(traced.written)))
    importer = NodeImporter(traced, module, sanitize(name))
    try:
        text, weights, arguments = importer.run(
            _input_names(module, len(inputs)), inputs, labels, loss)
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
        raise error(at_node(importer.node, reason))
    notes = []
    if traced.dropped:
        notes.append("%d buffers the forward updates in place are not "
                     "imported (running statistics: %s)" % (
                         len(traced.dropped), ", ".join(
                             traced.dropped[:3] + (
                                 ["..."] if len(traced.dropped) > 3
                                 else []))))
    text = fuse_attention(text, attention)
    constant = [names[0] for _, names in traced.buffers
                if names[0] not in traced.dropped]
    return ImportedModel(text, weights, len(inputs) + 1, sanitize(name),
                         notes, arguments, constant, traced.dropped)
