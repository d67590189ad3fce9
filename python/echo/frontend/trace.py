"""Traces a PyTorch module into an ATen graph with concrete shapes (torch 1.13).

The only file of the importer that knows torch 1.13's quirks (see
``shared/design/importer-aten.md``). :func:`trace_module` does what
AOTAutograd's training path does, in real mode:

* the function traced is ``f(params, buffers, *inputs) =
  functional_call(module, {every alias name: its tensor}, inputs)``, under
  ``functorch.functionalize(remove="mutations")`` (1.13's make_fx keeps
  in-place ops; functionalize rewrites them, except the running statistics
  that batch norm writes back, which end as ``copy_`` into their
  placeholders and are dropped), through ``make_fx`` with the explicit
  decomposition list of :mod:`echo.frontend.decomp`;
* parameters are the module's own ``Parameter`` objects, one placeholder per
  tensor however many names it has (a tied weight is one Echo parameter
  used twice; functional_call in 1.13 swaps attributes by name, so LSTM's
  ``_flat_weights`` only resolve to placeholders because they are the very
  objects traced); buffers are traced from clones, so the module's running
  statistics are left as they were; after tracing, a ``get_attr`` that holds
  a parameter (a weight baked as a constant) is an error;
* the module is traced in training mode with autograd on (its parameters
  require grad, as when it trains): both rule out the fused inference paths
  of ``MultiheadAttention`` and ``TransformerEncoderLayer``; under
  functionalize the graph has no ``detach`` noise (a ``detach`` left is the
  user's own), and each node records whether autograd was on where it was
  made (``meta["echo_grad"]``), so that a value computed from parameters
  under ``torch.no_grad()`` — a stop-gradient — is seen;
* dropout keeps one node: ``aten::dropout``, ``feature_dropout`` (Dropout2d),
  ``alpha_dropout`` and ``feature_alpha_dropout`` (and their in-place forms)
  are overridden, while tracing only, at the dispatch keys that decompose
  them (``Functionalize``, and functorch's ``FuncTorchDynamicLayerFrontMode``
  which holds its own dropout), by a kernel that calls the op
  ``echo_trace::dropout(x, p, shared_dims, alpha)``; the same goes for
  torchvision's ``stochastic_depth`` (a pure-Python function, patched in its
  module while tracing). The LSTM's dropout between layers, called from
  C++, is caught the same way; so is ``F.one_hot``
  (``echo_trace::one_hot(ids, num_classes)``), whose 1.13 kernel reads the
  ids' values;
* ``torch.utils.checkpoint`` (both ``use_reentrant`` forms, and
  ``checkpoint_sequential``) is traced through: functorch cannot trace its
  ``autograd.Function`` nor its saved-tensor hooks, so while tracing the
  two entry points ``checkpoint`` calls (``CheckpointFunction.apply`` and
  ``_checkpoint_without_reentrant``, looked up in the module at every
  call, so that ``from torch.utils.checkpoint import checkpoint`` is caught
  too) call the checkpointed function directly, in the caller's autograd
  mode (a checkpointed call differentiates as the call would); every
  node made inside records the region (``meta["echo_checkpoint"]``: the
  number of the outermost checkpoint call it is in, in call order), which
  the importer writes on the ops as ``echo.checkpoint_region``, a hint to
  the recompute strategies;
* every node records where it was made (``meta["echo_site"]``: the
  innermost frame outside torch, functorch and this package) and in which
  submodule (``meta["echo_scope"]``: its qualified name, from forward
  hooks), since 1.13's make_fx records neither.

Exceptions raised by the module while tracing propagate; the caller
(:mod:`echo.frontend.importer`) turns them into located errors.
"""

import contextlib
import os
import sys
import warnings

import torch

__all__ = ["Traced", "trace_module", "CROSS_ENTROPY", "DROPOUT", "NLL_LOSS",
           "ONE_HOT"]

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _functorch_dir():
    module = sys.modules.get("functorch")
    return os.path.dirname(module.__file__) + os.sep if module else _TORCH_DIR


# -- the dropout op ---------------------------------------------------------

_LIBRARY = []  # the echo_trace library, defined once per process


def _run_dropout(x, p, shared_dims, alpha):
    """What ``echo_trace::dropout`` computes while tracing (its values only
    feed the rest of the trace): inverted dropout, or alpha dropout, with a
    mask shared along ``shared_dims``."""
    shape = [1 if d in shared_dims else s for d, s in enumerate(x.shape)]
    keep = torch.empty(shape, dtype=x.dtype).bernoulli_(1.0 - p)
    if not alpha:
        return x * keep / (1.0 - p)
    a_prime = -1.7580993408473766  # -SELU scale * alpha
    a = ((1.0 - p) * (1.0 + p * a_prime ** 2)) ** -0.5
    return a * (x * keep + a_prime * (1.0 - keep)) - a * a_prime * p


def _run_one_hot(ids, num_classes):
    """What ``echo_trace::one_hot`` computes while tracing: PyTorch's
    one_hot without its checks of the ids' values (an id out of range
    raises in scatter_)."""
    out = torch.zeros(list(ids.shape) + [num_classes], dtype=torch.int64)
    return out.scatter_(-1, ids.unsqueeze(-1), 1)


def _echo_trace_ops():
    """The ops the trace makes of what it keeps whole: dropout, one_hot,
    and the losses (see below)."""
    if not _LIBRARY:
        lib = torch.library.Library("echo_trace", "DEF")
        lib.define("dropout(Tensor x, float p, int[] shared_dims, "
                   "bool alpha) -> Tensor")
        lib.impl("dropout", _run_dropout, "CPU")
        lib.define("one_hot(Tensor ids, int num_classes) -> Tensor")
        lib.impl("one_hot", _run_one_hot, "CPU")
        lib.define("cross_entropy(Tensor x, Tensor target, Tensor? weight, "
                   "int reduction, int ignore_index, float label_smoothing) "
                   "-> Tensor")
        lib.impl("cross_entropy", lambda x, t, w, r, i, s: torch.ops.aten
                 .cross_entropy_loss(x, t, w, r, i, s), "CPU")
        lib.define("nll_loss(Tensor x, Tensor target, Tensor? weight, "
                   "int reduction, int ignore_index) -> Tensor")
        lib.impl("nll_loss", lambda x, t, w, r, i: torch.ops.aten
                 .nll_loss_nd(x, t, w, r, i), "CPU")
        _LIBRARY.append(lib)
    ops = torch.ops.echo_trace
    return (ops.dropout.default, ops.one_hot.default,
            ops.cross_entropy.default, ops.nll_loss.default)


DROPOUT, ONE_HOT, CROSS_ENTROPY, NLL_LOSS = _echo_trace_ops()

# aten op -> (mask shared along the dims after the channel dim, alpha)
_DROPOUTS = {"dropout": (False, False), "feature_dropout": (True, False),
             "alpha_dropout": (False, True),
             "feature_alpha_dropout": (True, True)}


def _dropout_kernel(feature, alpha, inplace):
    def kernel(x, p, train):
        if not train or p == 0 or x.numel() == 0:
            return x
        shared = list(range(2, x.dim())) if feature else []
        y = DROPOUT(x, p, shared, alpha)
        return x.copy_(y) if inplace else y
    return kernel


def _stochastic_depth(input, p, mode, training=True):
    """torchvision.ops.stochastic_depth as one dropout node: the mask is
    shared along every dim but the batch ("row") or every dim ("batch")."""
    if p < 0.0 or p > 1.0:
        raise ValueError("drop probability has to be between 0 and 1, but "
                         "got %s" % p)
    if mode not in ("batch", "row"):
        raise ValueError("mode has to be either 'batch' or 'row', but got "
                         "%s" % mode)
    if not training or p == 0.0:
        return input
    first = 1 if mode == "row" else 0
    return DROPOUT(input, p, list(range(first, input.dim())), False)


def _one_hot_kernel(ids, num_classes=-1):
    """F.one_hot as one node: 1.13's reads the ids' minimum and maximum
    (``.item()``), which a trace cannot."""
    if num_classes < 0:
        raise RuntimeError(
            "one_hot without num_classes takes the class count from the "
            "ids' values; pass num_classes (Echo imports one static graph)")
    return ONE_HOT(ids, num_classes)


@contextlib.contextmanager
def _dropout_as_one_node():
    """Dropout (and one_hot) as one node each, while tracing."""
    lib = torch.library.Library("aten", "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Overriding a previously ..."
        for key in ("Functionalize", "FuncTorchDynamicLayerFrontMode"):
            for name, (feature, alpha) in _DROPOUTS.items():
                for inplace in (False, True):
                    kernel = _dropout_kernel(feature, alpha, inplace)
                    lib.impl(name + ("_" if inplace else ""), kernel, key)
            lib.impl("one_hot", _one_hot_kernel, key)
    depth = sys.modules.get("torchvision.ops.stochastic_depth")
    original = getattr(depth, "stochastic_depth", None)
    if original is not None:
        depth.stochastic_depth = _stochastic_depth
    try:
        yield
    finally:
        if original is not None:
            depth.stochastic_depth = original
        lib.__del__()  # the registrations go with the library
        lib._op_impls = set()


# -- losses -------------------------------------------------------------------
#
# F.cross_entropy and F.nll_loss decompose, at the keys the trace runs at,
# into ops whose shapes depend on the labels' values (label smoothing's
# masked_select) or into a log-softmax and a gather Echo maps as one
# cross-entropy anyway: while tracing they are one node each,
# ``echo_trace::cross_entropy`` and ``echo_trace::nll_loss``, whose
# handlers (echo.frontend.aten.loss) build echo.cross_entropy.

@contextlib.contextmanager
def _losses_as_one_node():
    lib = torch.library.Library("aten", "IMPL")

    def cross_entropy(x, target, weight=None, reduction=1, ignore_index=-100,
                      label_smoothing=0.0):
        return CROSS_ENTROPY(x, target, weight, reduction, ignore_index,
                             label_smoothing)

    def nll_loss(x, target, weight=None, reduction=1, ignore_index=-100):
        return NLL_LOSS(x, target, weight, reduction, ignore_index)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Overriding a previously ..."
        for key in ("Functionalize", "FuncTorchDynamicLayerFrontMode"):
            lib.impl("cross_entropy_loss", cross_entropy, key)
            for name in ("nll_loss_nd", "nll_loss", "nll_loss2d"):
                lib.impl(name, nll_loss, key)
    try:
        yield
    finally:
        lib.__del__()  # the registrations go with the library
        lib._op_impls = set()


# -- checkpoints ------------------------------------------------------------

class _Checkpoints(object):
    """The checkpoint regions of one trace: the number of the outermost
    checkpoint call running (None outside any), and how many were made."""

    def __init__(self):
        self.depth = 0
        self.count = 0
        self.current = None

    def run(self, function, *args, **kwargs):
        if self.depth == 0:
            self.current = self.count
            self.count += 1
        self.depth += 1
        try:
            return function(*args, **kwargs)
        finally:
            self.depth -= 1
            if self.depth == 0:
                self.current = None


@contextlib.contextmanager
def _checkpoints_traced_through(regions):
    """While tracing, ``torch.utils.checkpoint`` calls the checkpointed
    function directly (see the module's docstring); ``regions`` numbers
    the calls."""
    import torch.utils.checkpoint as checkpoint

    class TracedCheckpoint(object):
        @staticmethod
        def apply(function, preserve_rng_state, *args):
            return regions.run(function, *args)

    def without_reentrant(function, preserve_rng_state=True, *args,
                          **kwargs):
        return regions.run(function, *args, **kwargs)

    saved = {name: getattr(checkpoint, name, None) for name in
             ("CheckpointFunction", "_checkpoint_without_reentrant")}
    checkpoint.CheckpointFunction = TracedCheckpoint
    checkpoint._checkpoint_without_reentrant = without_reentrant
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                delattr(checkpoint, name)
            else:
                setattr(checkpoint, name, value)


# -- provenance -------------------------------------------------------------

def _user_site(skip):
    """(file, line) of the innermost frame outside ``skip`` (torch,
    functorch, this package, code made by ``eval``)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith("<") and not name.startswith(skip):
            return name, frame.f_lineno
        frame = frame.f_back
    return None


@contextlib.contextmanager
def _provenance(module, regions):
    """Stamps every node make_fx creates with ``echo_site``,
    ``echo_scope`` (the qualified name of the innermost submodule of
    ``module`` running), ``echo_grad`` and ``echo_checkpoint`` (the region
    of ``regions`` running, or None)."""
    from torch.fx.experimental import proxy_tensor
    from torch.nn.modules import module as nn_module
    names = {}
    for name, sub in module.named_modules(remove_duplicate=False):
        names.setdefault(id(sub), (name, type(sub).__name__))
    scopes = []
    skip = (_TORCH_DIR, _functorch_dir(), _HERE)

    def pre(sub, inputs):
        scopes.append(names.get(id(sub)))

    def post(sub, inputs, output):
        if scopes:
            scopes.pop()

    tracer_cls = proxy_tensor.PythonKeyTracer
    own = tracer_cls.__dict__.get("create_node")
    base = tracer_cls.create_node

    def create_node(self, *args, **kwargs):
        node = base(self, *args, **kwargs)
        node.meta["echo_site"] = _user_site(skip)
        inner = [s for s in scopes if s is not None]
        node.meta["echo_scope"] = inner[-1] if inner else None
        node.meta["echo_grad"] = torch.is_grad_enabled()
        node.meta["echo_checkpoint"] = regions.current
        return node

    handles = [nn_module.register_module_forward_pre_hook(pre),
               nn_module.register_module_forward_hook(post)]
    tracer_cls.create_node = create_node
    try:
        yield
    except Exception as e:
        # Where the module raised: the innermost submodule running.
        inner = [s for s in scopes if s is not None]
        e.echo_scope = inner[-1] if inner else None
        raise
    finally:
        if own is None:
            del tracer_cls.create_node
        else:
            tracer_cls.create_node = own
        for handle in handles:
            handle.remove()


# -- tracing ----------------------------------------------------------------

def _alias_groups(module, kind):
    """``[(tensor, [every name it has])]`` for the module's parameters
    (``kind`` "_parameters") or buffers, grouped by identity, in
    ``named_parameters()`` / ``named_buffers()`` order."""
    groups = {}
    listed = module.named_parameters() if kind == "_parameters" else \
        module.named_buffers()
    for name, tensor in listed:
        groups.setdefault(id(tensor), (tensor, []))
    for prefix, sub in module.named_modules(remove_duplicate=False):
        for name, tensor in getattr(sub, kind).items():
            if tensor is not None and id(tensor) in groups:
                full = prefix + "." + name if prefix else name
                if full not in groups[id(tensor)][1]:
                    groups[id(tensor)][1].append(full)
    return list(groups.values())


class Traced(object):
    """What :func:`trace_module` returns.

    ``gm``: the ATen ``GraphModule``; its placeholders are the parameters
    (``params``: ``[(Parameter, names)]``, ``named_parameters()`` order),
    then the buffers (``buffers``: ``[(value before tracing, names)]``),
    then the inputs. ``dropped``: names of the buffers the forward updates
    (running statistics), whose updates are not imported; ``written``: of
    the parameters it writes in place.
    """

    def __init__(self, gm, params, buffers, num_inputs, dropped):
        self.gm = gm
        self.params = params
        self.buffers = buffers
        self.num_inputs = num_inputs
        self.dropped = dropped
        self.placeholders = [n for n in gm.graph.nodes
                             if n.op == "placeholder"]


def trace_module(module, examples, labels=None, loss_fn=None):
    """Traces ``module`` (in training mode) on the example tensors. With
    ``labels`` ("keyword" or "positional") the last example is the labels,
    passed to the module as ``labels=`` or as its last argument (a module
    that returns its loss); with ``loss_fn`` the last example is the labels
    and the traced function is ``loss_fn(module(*inputs), labels)``."""
    import functorch
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.nn.utils.stateless import functional_call
    from echo.frontend.decomp import decompositions
    params = _alias_groups(module, "_parameters")
    buffers = [(t.detach().clone(), names)
               for t, names in _alias_groups(module, "_buffers")]
    groups = params + buffers

    def forward(*flat):
        tensors = {}
        for value, (_, names) in zip(flat, groups):
            for name in names:
                tensors[name] = value
        args = tuple(flat[len(groups):])
        if loss_fn is not None:
            return loss_fn(functional_call(module, tensors, args[:-1]),
                           args[-1])
        if labels == "keyword":
            return functional_call(module, tensors, args[:-1],
                                   {"labels": args[-1]})
        return functional_call(module, tensors, args)

    tensors = [t for t, _ in params] + [t.clone() for t, _ in buffers] + \
        list(examples)
    was_training = module.training
    rng = torch.get_rng_state()
    module.train()
    regions = _Checkpoints()
    try:
        with torch.enable_grad(), _dropout_as_one_node(), \
                _losses_as_one_node(), _checkpoints_traced_through(regions), \
                _provenance(module, regions):
            gm = make_fx(functorch.functionalize(forward, remove="mutations"),
                         decompositions())(*tensors)
    finally:
        torch.set_rng_state(rng)
        module.train(was_training)
    dropped, written = _drop_state_updates(gm, len(params), len(buffers),
                                           params, buffers)
    traced = Traced(gm, params, buffers, len(examples), dropped)
    traced.written = written
    return traced


def _drop_state_updates(gm, num_params, num_buffers, params, buffers):
    """Removes the trailing ``copy_`` of functionalization into buffer and
    input placeholders (running statistics, ``num_batches_tracked``, inputs
    the forward overwrote) and the ops only they used; returns the names of
    the buffers concerned, and of the parameters written in place (which the
    importer refuses)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    index = {n: i for i, n in enumerate(placeholders)}
    dropped, written = [], []
    # 1.13's native_batch_norm updates its running statistics in place
    # without saying so in its schema: no copy_ for them.
    for node in gm.graph.nodes:
        if node.target is torch.ops.aten.native_batch_norm.default and \
                len(node.args) > 5 and node.args[5]:
            for stat in node.args[3:5]:
                if stat in index and index[stat] >= num_params:
                    dropped.append(buffers[index[stat] - num_params][1][0])
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and \
                node.target is torch.ops.aten.copy_.default and \
                node.args[0] in index and not node.users:
            i = index[node.args[0]]
            if i < num_params:
                written.append(params[i][1][0])
                continue
            if i < num_params + num_buffers:
                dropped.append(buffers[i - num_params][1][0])
            gm.graph.erase_node(node)
    gm.graph.eliminate_dead_code()
    return dropped, written
