"""Echo's training step inside a PyTorch loop.

    import echo.torch
    step = echo.torch.compile_step(model, (x,), y, loss="cross_entropy",
                                   strategy="echo")
    opt = torch.optim.Adam(model.parameters())
    for x, y in loader:
        loss = step(x, labels=y)      # forward + backward, grads in p.grad
        opt.step(); opt.zero_grad()

:func:`compile_step` imports the module at the example's shapes
(``echo.frontend``), compiles its training step once with ``echo-run
--emit-library`` into a shared library (cached under ``$ECHO_CACHE_DIR``,
default ``~/.cache/echo/steps``, keyed by a digest of the model and the
options, with the library's own digest beside it: a damaged entry is
rebuilt; no MLIR is needed to run it) and loads it with ctypes. Each call
passes the tensors' data pointers: the inputs, the labels, then the module's
own parameters (read where they are, so that any ``torch.optim`` optimizer,
LR scheduler or ``load_state_dict`` acts on what the next step reads); the
step writes the loss and each trained parameter's gradient into ``p.grad``
(overwritten, or added to with ``accumulate_grad=True``, as PyTorch's
backward does). A batch of another shape compiles a second step, cached
beside the first. Evaluation stays PyTorch's (``module.eval()``, the same
parameters).

What each call checks, so that the step never trains something else than
the module:

* the module as it is now: its submodules (their types and hyperparameters,
  e.g. a dropout rate or a swapped activation), its parameters (names,
  shapes, dtypes, ``requires_grad``) and the buffers it holds as constants.
  A change compiles the step of the changed module (or takes it from the
  cache); every submodule must be in training mode;
* ids and labels: every value, as the 64-bit integers PyTorch holds, is in
  the range its use accepts (ids below the embedding's rows, labels below
  the classes or ``ignore_index``) before the step reads anything; a value
  outside is an ``IndexError``, as in PyTorch;
* parameters with ``requires_grad=False`` (and parameters the loss does not
  read) are frozen: the step takes them as data, computes, stores and
  writes no gradient for them and never updates them; their ``p.grad`` is
  left as it is, as PyTorch's backward leaves it;
* dropout draws fresh masks at every call from PyTorch's default generator
  (``torch.manual_seed`` reproduces a run), the same masks wherever a step
  recomputes them;
* a step that runs out of memory or fails raises (:class:`StepError`,
  :class:`StepOutOfMemoryError`, also a ``MemoryError``) and the process
  goes on; calls from several threads run one at a time.

The loss is PyTorch's: ``cross_entropy`` over the class dim 1 of the
output (``[N, C, d...]`` logits with ``[N, d...]`` labels), or over its
last dim for ``[B, T, C]`` logits with ``[B, T]`` labels, with
``ignore_index`` (default -100) and ``label_smoothing``; or ``mse``.

Data parallel: when torch.distributed is initialized with more than one
rank, rank 0's parameters are broadcast at the first step and the
gradients are averaged across ranks after each step, in flat buckets that
``p.grad`` views (``echo.data_parallel``), and the ranks check at the first
step that they run the same compiled step.

Batch norm: the step normalizes with the batch's statistics, as PyTorch
does in training, but does not update ``running_mean``/``running_var``;
call :meth:`Step.update_batch_norm_statistics` with a batch (or a few)
before evaluating a model that has them.

For the last bytes, the optimizer can run inside the step::

    step = echo.torch.compile_step(model, (x,), y, optimizer="adam", lr=1e-3)
    for x, y in loader:
        loss = step(x, labels=y)      # forward, backward and Adam's update

``optimizer="momentum"|"adam"|"adamw"`` (torch.optim's SGD with momentum,
Adam, AdamW) updates each of the module's trained parameters in place as
soon as its gradient is final, so the gradients of all parameters are never
held at once and none is written to ``p.grad``. The step keeps the
optimizer's state (zeros at first; :meth:`Step.optimizer_state` and
:meth:`Step.load_optimizer_state` read and write it in the layout of the
equivalent ``torch.optim`` optimizer's ``state_dict()`` over the trained
parameters); its hyperparameters are arguments of the compiled step, so
``step.lr = ...`` (an LR schedule) or other betas change nothing compiled.
Under torch.distributed such a step is refused: each rank would update from
its own gradients before they are averaged.
"""

import hashlib
import os
import shutil
import subprocess
import threading
import types

import torch

from echo import data_parallel, jsonfile
from echo.frontend import LossSpec, import_module
from echo.step_library import (CompileError, StepCache, StepError,
                               StepLibrary, StepOutOfMemoryError)
from echo.step_optimizer import STATE_NAMES, OptimizerState

__all__ = ["CompileError", "Step", "StepError", "StepOutOfMemoryError",
           "compile_step", "find_tool"]

_LOSSES = ("cross_entropy", "mse")
_STRATEGIES = ("none", "mirror", "sublinear", "echo", "budget")
_PRECISIONS = ("f32", "bf16")
_OFFLOADS = ("none", "heavy", "all")


def machine_calibration():
    """The path of this machine's cached calibration (bench/machine.py's
    ``${XDG_CACHE_HOME:-~/.cache}/echo/machine/<key>.json``, or under
    ``$ECHO_MACHINE_CACHE``), or None where there is none (or no
    bench/machine.py in this checkout to compute the key with)."""
    here = os.path.dirname(os.path.abspath(__file__))
    bench = os.path.normpath(os.path.join(here, "..", "..", "bench"))
    if not os.path.exists(os.path.join(bench, "machine.py")):
        return None
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "echo_bench_machine", os.path.join(bench, "machine.py"))
    machine = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(machine)
        cpu = machine.describe_cpu()
        path = os.path.join(machine.cache_directory(),
                            machine.cache_key(cpu) + ".json")
    except Exception:  # no /proc/cpuinfo: the fixed defaults apply
        return None
    return path if os.path.exists(path) else None


def find_tool(name):
    """The path of an Echo tool: ``$ECHO_<NAME>`` (``ECHO_RUN`` for
    echo-run), then PATH, then this checkout's ``build/bin``, then
    ``/opt/echo/bin``. A tool that is named but cannot be run is a
    :class:`CompileError`."""
    variable = "ECHO_" + name.upper().replace("ECHO-", "").replace("-", "_")
    env = os.environ.get(variable)
    if env:
        if not os.path.isfile(env) or not os.access(env, os.X_OK):
            raise CompileError("$%s=%s is not an executable file" % (
                variable, env))
        return env
    found = shutil.which(name)
    if found:
        return found
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "build", "bin", name),
                      os.path.join("/opt/echo/bin", name)):
        if os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    raise CompileError("cannot find %s: put it on PATH or set $%s" % (
        name, variable))


def _check_tensor(t, what):
    """``t`` is a dense CPU tensor of real numbers or integers."""
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s: a %s, not a tensor" % (what, type(t).__name__))
    if t.layout != torch.strided:
        raise TypeError("%s: a %s tensor; the step takes dense (strided) "
                        "tensors" % (what, t.layout))
    if t.is_quantized:
        raise TypeError("%s: a quantized tensor (%s); the step takes real "
                        "numbers (float) or integers (ids, labels): pass "
                        "t.dequantize()" % (what, t.dtype))
    if t.is_complex() or t.dtype == torch.bool:
        raise TypeError("%s: %s; the step takes real numbers (float) or "
                        "integers (ids, labels)" % (what, t.dtype))
    if t.device.type != "cpu":
        raise ValueError("this step runs on the CPU; %s is on %s" % (
            what, t.device))


def _check_detached(t, what):
    """``t`` does not require grad: PyTorch's backward would compute its
    gradient, and those of whatever it was computed from (an encoder run
    eagerly, a parameter passed as an input); the step computes none."""
    if t.requires_grad:
        raise ValueError(
            "%s requires grad: the step computes no gradient for its inputs "
            "(nor for what they were computed from); pass a detached tensor "
            "(t.detach()), or compile the modules that make it into the "
            "step" % what)


def _hook_keys(hooks):
    """The handles' ids of a hook dict (never reused in a process)."""
    return tuple(hooks.keys())


def _global_hooks():
    """The forward hooks every module runs
    (``nn.modules.module.register_module_forward_hook`` and pre-hooks)."""
    from torch.nn.modules import module as nn_module
    return (_hook_keys(nn_module._global_forward_pre_hooks),
            _hook_keys(nn_module._global_forward_hooks))


def _check_no_backward_hooks(module):
    """The step computes the gradients itself: backward hooks (a module's,
    every module's, a parameter's ``register_hook``) would not run."""
    from torch.nn.modules import module as nn_module
    if nn_module._global_backward_hooks:
        raise ValueError(
            "a global module backward hook is registered "
            "(register_module_full_backward_hook): the step computes the "
            "gradients itself and runs no backward hooks; remove it")
    for name, sub in module.named_modules():
        if sub._backward_hooks:
            raise ValueError(
                "%s (%s) has a backward hook: the step computes the "
                "gradients itself and runs no backward hooks; remove it "
                "(to change gradients, change p.grad after the step)" % (
                    name or "the module", type(sub).__name__))
    for name, p in module.named_parameters():
        if p._backward_hooks:
            raise ValueError(
                "parameter %s has a gradient hook (Tensor.register_hook): "
                "the step writes its gradient without running it; remove it "
                "(to change gradients, change p.grad after the step)" % name)


#: Buffers the forward updates in place whose updates the step leaves out
#: (documented): the running statistics of batch and instance norms.
_RUNNING_STATISTICS = ("running_mean", "running_var", "num_batches_tracked")


def _check_updated_buffers(module, names):
    """Buffers the forward updates in place are not updated by the step,
    which keeps their values at compile time: only norms' running
    statistics (not read in training) may be."""
    subs = dict(module.named_modules())
    for name in names:
        owner, _, leaf = name.rpartition(".")
        sub = subs.get(owner)
        if leaf in _RUNNING_STATISTICS and isinstance(
                sub, torch.nn.modules.batchnorm._NormBase):
            continue
        raise CompileError(
            "%s.forward updates the buffer '%s' in place: the step does not "
            "update buffers (it would keep the value it had when compiled); "
            "keep such state outside the module's forward" % (
                type(module).__name__, name))


def _span(t):
    """The bytes a contiguous tensor covers, (start, end); None for none."""
    if t.numel() == 0:
        return None
    start = t.data_ptr()
    return start, start + t.numel() * t.element_size()


def _overlapping(reads, writes):
    """The indices into ``writes`` of the tensors whose bytes overlap a
    tensor of ``reads`` or another of ``writes`` (all contiguous): the step
    would read what it has already written, or write a result twice.
    Tensors whose bytes chain into one run count as overlapping."""
    spans = []
    for kind, tensors in ((0, reads), (1, writes)):
        for i, t in enumerate(tensors):
            span = _span(t)
            if span is not None:
                spans.append((span[0], span[1], kind, i))
    spans.sort()
    found, run, end = set(), [], None
    for start, stop, kind, i in spans + [(None, None, None, None)]:
        if start is None or end is None or start >= end:
            if len(run) > 1:
                found.update(j for k, j in run if k == 1)
            run, end = [], None
            if start is None:
                break
        run.append((kind, i))
        end = stop if end is None else max(end, stop)
    return found


def _dtype_of(tensor):
    return "f32" if tensor.is_floating_point() else "i32"


def _spec(tensor):
    return tuple(tensor.shape), _dtype_of(tensor)


def _plain_attributes(module):
    """The attributes of ``module`` that shape its forward pass: numbers,
    strings, flags and tuples of them (hyperparameters), and functions set
    on the instance (by identity)."""
    items = []
    for key, value in vars(module).items():
        if key.startswith("_") or key == "training":
            continue
        if isinstance(value, (bool, int, float, str, type(None))):
            items.append((key, value))
        elif isinstance(value, (tuple, list)) and all(
                isinstance(v, (bool, int, float, str, type(None)))
                for v in value):
            items.append((key, tuple(value)))
        elif isinstance(value, (types.FunctionType, types.MethodType,
                                types.BuiltinFunctionType)):
            items.append((key, ("function", id(value))))
        elif isinstance(value, torch.dtype):
            items.append((key, str(value)))
    return tuple(sorted(items))


class _Variant(object):
    """A step compiled for one module state and batch shape: its library
    and what each of its arguments is (``ImportedModel.arguments``)."""

    def __init__(self, library, arguments):
        self.library = library
        self.arguments = arguments
        self.trained = [i for kind, i in arguments if kind == "param"]
        self.frozen = [i for kind, i in arguments if kind == "frozen"]


class Step(object):
    """The callable :func:`compile_step` returns."""

    def __init__(self, module, loss, options, accumulate_grad, name,
                 optimizer=None):
        self.module = module
        self.loss = loss
        self.options = options
        self.accumulate_grad = accumulate_grad
        self.name = name
        self._variants = {}
        self._first = None
        self._last = None
        # torch.distributed data parallelism: gradient buckets (created at
        # the first step of a process group).
        self._buckets = None
        self._bucket_key = None
        # The optimizer inside the step, if any (step_optimizer.py).
        self._optimizer = optimizer
        self._optimizer_key = None
        self._lock = threading.RLock()
        # The constant buffers of the last import (checked every call).
        self._constant_buffers = ()
        # False where echo.zero reduces the gradients itself.
        self._data_parallel = True
        # Why a step asked for shard= runs unsharded (memory_report).
        self.shard_note = None

    # -- the optimizer inside the step -------------------------------------

    def _optimizer_or_raise(self):
        if self._optimizer is None:
            raise RuntimeError("this step was compiled without an optimizer "
                               "(compile_step(optimizer=...))")
        return self._optimizer

    @property
    def lr(self):
        """The learning rate of the optimizer inside the step (settable:
        the next step uses the new value; nothing is recompiled)."""
        return self._optimizer_or_raise().lr

    @lr.setter
    def lr(self, value):
        self.set_optimizer_hyperparameters(lr=value)

    @property
    def optimizer_hyperparameters(self):
        """The hyperparameters of the optimizer inside the step, as a dict
        (``lr``, ``momentum``, ``betas``, ``eps``, ``weight_decay``); set
        them with :meth:`set_optimizer_hyperparameters`."""
        return self._optimizer_or_raise().hyperparameters()

    def set_optimizer_hyperparameters(self, **values):
        """Sets hyperparameters of the optimizer inside the step (the keys
        of :attr:`optimizer_hyperparameters`) for the next steps."""
        self._optimizer_or_raise().set(**values)

    def optimizer_state(self):
        """The state of the optimizer inside the step (copies), laid out as
        the ``state_dict()`` of the equivalent ``torch.optim`` optimizer
        over the trained parameters: ``{"state": {i: {"exp_avg": ...,
        "exp_avg_sq": ..., "step": ...}}, "param_groups": [{"lr": ...,
        ...}]}`` (``momentum_buffer`` for momentum), parameters numbered in
        ``named_parameters()`` order, frozen ones left out."""
        with self._lock:
            return self._optimizer_or_raise().state_dict(
                self._trained_parameters())

    def load_optimizer_state(self, state):
        """Loads a state saved by :meth:`optimizer_state`, or the
        ``state_dict()`` of the equivalent ``torch.optim`` optimizer over
        the trained parameters (``[p for p in module.parameters() if
        p.requires_grad]``): the next step continues from it. The whole
        dict is checked before any of it is applied."""
        with self._lock:
            self._optimizer_or_raise().load_state_dict(
                state, self._trained_parameters())

    def _trained_parameters(self):
        params = [p for _, p in self.module.named_parameters()]
        variant = self._last or self._first
        if variant is None:
            return [p for p in params if p.requires_grad]
        return [params[i] for i in variant.trained]

    # -- the module as it is now --------------------------------------------

    def _fingerprint(self):
        """What the compiled step depends on, read from the module now:
        (structure, parameters). Cheap: one walk over the submodules and
        parameters."""
        _check_no_backward_hooks(self.module)
        structure = [_global_hooks()]
        for name, sub in self.module.named_modules():
            if not sub.training:
                raise ValueError(
                    "the step trains %s in training mode, but %s (%s) is in "
                    "eval mode: call module.train() first (the step uses "
                    "batch statistics and dropout as in training)" % (
                        type(self.module).__name__,
                        "'%s'" % name if name else "the module",
                        type(sub).__name__))
            structure.append((name, type(sub), _plain_attributes(sub),
                              _hook_keys(sub._forward_pre_hooks),
                              _hook_keys(sub._forward_hooks)))
        params = []
        for name, p in self.module.named_parameters():
            if p.dtype != torch.float32:
                raise ValueError("the step's parameters are float32; %s is "
                                 "%s" % (name, p.dtype))
            if p.device.type != "cpu":
                raise ValueError("this step runs on the CPU; parameter %s is "
                                 "on %s" % (name, p.device))
            params.append((name, tuple(p.shape), p.requires_grad))
        buffers = dict(self.module.named_buffers())
        constants = tuple(
            (name, tuple(buffers[name].shape), str(buffers[name].dtype),
             buffers[name]._version) if name in buffers else (name, None)
            for name in self._constant_buffers)
        return (tuple(structure), tuple(params), constants)

    # -- compiling ----------------------------------------------------------

    def _variant(self, inputs, labels, fingerprint):
        key = (tuple(_spec(t) for t in inputs), _spec(labels), fingerprint)
        variant = self._variants.get(key)
        if variant is not None:
            return variant
        try:
            imported = import_module(
                self.module, [_spec(t) for t in inputs], self.loss,
                _spec(labels), self.name,
                attention=self.options.get("attention", "fused"))
        except Exception as e:  # the importer's located errors, and others
            raise CompileError("importing %s: %s" % (
                type(self.module).__name__, e)) from None
        _check_updated_buffers(self.module,
                               getattr(imported, "updated_buffers", ()))
        directory = self._build(imported)
        try:
            library = StepLibrary.load(directory)
        except OSError as e:
            # Not a library this process can load (a wrong $ECHO_RUN, a
            # foreign file): never kept in the cache.
            shutil.rmtree(directory, ignore_errors=True)
            raise CompileError(
                "the compiled step %s cannot be loaded: %s (removed from the "
                "cache; is $ECHO_RUN Echo's echo-run?)" % (
                    directory, str(e).splitlines()[0])) from None
        self._check_signature(library, imported, inputs, labels)
        variant = _Variant(library, imported.arguments)
        # The import may name constant buffers the first fingerprint did
        # not check: the key is taken again with them.
        self._constant_buffers = tuple(imported.constant_buffers)
        key = (key[0], key[1], self._fingerprint())
        self._variants[key] = variant
        if self._first is None:
            self._first = variant
        return variant

    def _check_signature(self, library, imported, inputs, labels):
        """The library is the step of this import: one argument per
        imported argument, the data of the inputs' and labels' shapes."""
        sig = library.signature
        data = list(inputs) + [labels]
        wanted = []
        for (kind, index), arg in zip(imported.arguments, sig.args):
            if kind == "input":
                wanted.append((tuple(data[index].shape), arg["shape"]))
            elif kind == "labels":
                wanted.append((tuple(labels.shape), arg["shape"]))
        roles = {"input": "data", "labels": "data", "frozen": "data",
                 "param": "param", "seed": "seed"}
        kinds = [roles[k] for k, _ in imported.arguments]
        got = [a["role"] for a in sig.args[:len(kinds)]]
        if len(sig.args) < len(kinds) or got != kinds or any(
                a != b for a, b in wanted):
            raise CompileError(
                "the compiled step in %s is not the step of %s at these "
                "shapes (its arguments are %s): remove it from the cache" % (
                    library.directory, type(self.module).__name__,
                    [(a["role"], a["shape"]) for a in sig.args]))
        states = [a["shape"] for a in sig.args if a["role"] == "state"]
        params = [p for _, p in self.module.named_parameters()]
        trained = [i for kind, i in imported.arguments if kind == "param"]
        if self._optimizer is not None and states != [
                tuple(params[i].shape) for i in trained
                for _ in STATE_NAMES[self._optimizer.kind]]:
            raise CompileError("the compiled step's optimizer state (%s) is "
                               "not %s's for the module's parameters" % (
                                   states, self._optimizer.kind))

    def _flags(self):
        flags = ["--strategy=" + self.options["strategy"]]
        if self.options.get("budget") is not None:
            flags.append("--budget=" + str(self.options["budget"]))
        if self.options.get("offload") is not None:
            flags.append("--offload=" + self.options["offload"])
        if self.options.get("machine"):
            flags.append("--machine=" + self.options["machine"])
        if self._optimizer is not None:
            flags.append("--optimizer=" + self._optimizer.kind)
        if self.options.get("precision", "f32") != "f32":
            flags.append("--precision=" + self.options["precision"])
        return flags

    def _build(self, imported):
        echo_run = find_tool("echo-run")
        flags = self._flags()
        digest = hashlib.sha1()
        for part in [imported.text, echo_run,
                     str(os.path.getmtime(echo_run))] + flags:
            digest.update(part.encode())
            digest.update(b"\0")
        cache = StepCache()
        cache.prepare()
        key = digest.hexdigest()
        directory = cache.entry(key)
        if directory is not None:
            return directory

        def compile_into(work):
            model = os.path.join(work, "model.mlir")
            with open(model, "w") as f:
                f.write(imported.text)
            step = os.path.join(work, "step")
            try:
                run = subprocess.run(
                    [echo_run, model, "--emit-library=" + step] + flags,
                    capture_output=True, text=True)
            except OSError as e:
                raise CompileError("cannot run %s: %s" % (echo_run, e))
            if run.returncode != 0:
                raise CompileError("echo-run could not compile the step of "
                                   "%s (exit status %d):\n%s" % (
                                       self.name, run.returncode,
                                       run.stderr.strip()))
            if not os.path.isfile(os.path.join(step, StepCache.LIBRARY)):
                raise CompileError("%s exited 0 but made no step library "
                                   "(is it Echo's echo-run?)" % echo_run)
            shutil.copy(model, os.path.join(step, "model.mlir"))
            return step

        return cache.build(key, compile_into)

    # -- running ------------------------------------------------------------

    def __call__(self, *inputs, labels=None):
        """Runs one step: returns the loss (a 0-d tensor) and writes every
        trained parameter's gradient into ``p.grad``, or, with an optimizer
        inside the step, updates the parameters in place (and writes no
        gradient). ``labels`` may also be the last positional argument."""
        if labels is None:
            if not inputs:
                raise TypeError("step() needs the inputs and the labels")
            inputs, labels = inputs[:-1], inputs[-1]
        for i, t in enumerate(inputs):
            _check_tensor(t, "input %d" % i)
            _check_detached(t, "input %d" % i)
        _check_tensor(labels, "the labels")
        _check_detached(labels, "the labels")
        with self._lock:
            return self._call(inputs, labels)

    def _call(self, inputs, labels):
        variant = self._variant(inputs, labels, self._fingerprint())
        self._last = variant
        library = variant.library
        sig = library.signature
        params = [p for _, p in self.module.named_parameters()]
        trained = [params[i] for i in variant.trained]
        distributed = self._data_parallel and data_parallel.active()
        if self._optimizer is not None and distributed:
            raise ValueError(
                "an optimizer inside the step with torch.distributed: "
                "each rank would update its parameters from its own "
                "gradients before they are averaged; compile the step "
                "without optimizer= and use a torch.optim optimizer, or "
                "shard it (compile_step(shard='zero1'|'zero2'|'zero3'))")
        if self._optimizer is None and distributed:
            if self.accumulate_grad:
                raise ValueError("accumulate_grad with torch.distributed: "
                                 "gradients are averaged across ranks at "
                                 "every step")
            # Made (and rank 0's parameters broadcast) before anything
            # reads the parameters.
            key = tuple(id(p) for p in params)
            if self._buckets is None or self._bucket_key != key:
                frozen = [params[i] for i in variant.frozen]
                self._buckets = data_parallel.GradientBuckets(
                    trained, buffers=frozen + [
                        b for b in self.module.buffers()])
                self._bucket_key = key
        data = list(inputs) + [labels]
        arg_tensors, names = [], []
        for (kind, index), arg in zip(variant.arguments, sig.args):
            if kind in ("input", "labels"):
                t = data[index] if kind == "input" else labels
                arg_tensors.append(self._data_tensor(t, arg))
                names.append("the labels" if kind == "labels" else
                             "input %d" % index)
            elif kind in ("param", "frozen"):
                arg_tensors.append(params[index].detach().contiguous())
                names.append("parameter %d" % index)
            else:  # the step's seed: fresh masks, from torch's generator
                arg_tensors.append(torch.randint(
                    0, 2 ** 62, (), dtype=torch.int64))
                names.append("the seed")

        def describe(i):
            return names[i] if i < len(names) else "argument %d" % i

        if self._optimizer is not None:
            return self._run_with_optimizer(library, arg_tensors, trained,
                                            variant, describe)
        loss = torch.empty((), dtype=torch.float32)
        if self._buckets is not None and data_parallel.active():
            self._buckets.check_plan(library.step_hash)
            self._buckets.attach()
        param_names = [name for name, _ in self.module.named_parameters()]
        for i in variant.trained:
            name, g = param_names[i], params[i].grad
            if g is not None and any(st == 0 and n > 1 for st, n in
                                     zip(g.stride(), g.shape)):
                raise ValueError(
                    "%s.grad is an expanded tensor (stride 0): a gradient "
                    "cannot be written into it; set it to None or to a "
                    "tensor of its own" % name)
        # A p.grad that shares bytes with what the step reads (an input, a
        # parameter) or with another p.grad is written through a copy.
        shared = _overlapping(arg_tensors, [
            p.grad if p.grad is not None and p.grad.is_contiguous() else
            torch.empty(0) for p in trained])
        grads, adds = [], []
        for n, p in enumerate(trained):
            g = p.grad
            if (g is not None and not self.accumulate_grad and
                    g.is_contiguous() and g.dtype == torch.float32 and
                    g.shape == p.shape and n not in shared):
                grads.append(g)  # written in place
            elif g is None:
                p.grad = torch.empty_like(
                    p, memory_format=torch.contiguous_format)
                grads.append(p.grad)
            else:
                scratch = torch.empty(p.shape, dtype=torch.float32)
                grads.append(scratch)
                adds.append((p, scratch))
        library.run(arg_tensors, [loss] + grads, describe)
        if self._buckets is not None and data_parallel.active():
            self._buckets.reduce()
        for p, scratch in adds:
            if self.accumulate_grad:
                p.grad.add_(scratch)
            else:
                p.grad.copy_(scratch)
        library.record_measured(arg_tensors, [loss] + grads)
        return loss

    @staticmethod
    def _data_tensor(t, arg):
        """Input or labels ``t`` as the step takes argument ``arg``: f32,
        or integers as int64 (checked and narrowed by the library)."""
        if tuple(t.shape) != arg["shape"]:
            raise ValueError("the step takes %s, not %s" % (
                list(arg["shape"]), list(t.shape)))
        if arg["dtype"] == "f32":
            return t.detach().to(torch.float32).contiguous()
        return t.detach().to(torch.int64).contiguous()

    def _run_with_optimizer(self, library, arg_tensors, trained, variant,
                            describe):
        """One step with the optimizer inside: parameters and state are
        updated where they are (a parameter that is not contiguous through
        a contiguous copy, copied back)."""
        o = self._optimizer
        o.check()
        key = tuple(id(p) for p in trained)
        if self._optimizer_key is not None and self._optimizer_key != key \
                and o.state is not None:
            raise ValueError(
                "the module's trained parameters changed (%d now) since the "
                "optimizer's state was made: load a state for them with "
                "step.load_optimizer_state()" % len(trained))
        self._optimizer_key = key
        # A parameter that is not contiguous is updated through its
        # contiguous copy, written back after.
        params = [p for _, p in self.module.named_parameters()]
        copies = [(params[index], arg_tensors[n])
                  for n, (kind, index) in enumerate(variant.arguments)
                  if kind == "param" and not params[index].is_contiguous()]
        hypers = []
        for a in library.signature.args:
            if a["role"] == "hyper":
                hypers.append(torch.tensor(o.hyper_value(a["hyper"]),
                                           dtype=torch.float32))
        # Data (inputs, labels, frozen parameters) sharing bytes with what
        # the step updates in place is read from a copy: the step may read
        # it after an update (a batch that views a parameter).
        updated = [t for (kind, _), t in zip(variant.arguments, arg_tensors)
                   if kind == "param"] + o.tensors(trained)
        data = [n for n, (kind, _) in enumerate(variant.arguments)
                if kind != "param" and n < len(arg_tensors)]
        for n in _overlapping(updated, [arg_tensors[n] for n in data]):
            arg_tensors[data[n]] = arg_tensors[data[n]].clone()
        tensors = arg_tensors + o.tensors(trained) + hypers
        if len(tensors) != len(library.signature.args):
            raise CompileError("the compiled step takes %d arguments, not %d"
                               % (len(library.signature.args), len(tensors)))
        loss = torch.empty((), dtype=torch.float32)
        with torch.no_grad():
            library.run(tensors, [loss], describe)
            for p, copy in copies:
                p.copy_(copy)
        o.count += 1
        library.record_measured(tensors, [loss])
        return loss

    def update_batch_norm_statistics(self, *inputs):
        """Runs the module's own forward pass in training mode without
        gradients on ``inputs``, which updates every batch norm's running
        statistics as a PyTorch training step would."""
        was_training = self.module.training
        self.module.train()
        with torch.no_grad():
            self.module(*inputs)
        self.module.train(was_training)

    def memory_report(self, *inputs, labels=None):
        """The memory report of the step compiled for the example's shapes
        (or for ``inputs`` and ``labels``, when given): the estimate and the
        plan (echo-run's report keys) and, once it has run, what it
        measured: ``measured_step_peak_bytes`` (the most bytes the step
        itself held: its arena, temporaries and library workspace),
        ``argument_and_result_bytes`` (the caller's tensors it read and
        wrote) and ``measured_peak_bytes`` (their sum, echo-run's
        measure); ``frozen_parameters`` and ``frozen_parameter_bytes``: the
        parameters taken as data, for which no gradient is computed or
        held."""
        with self._lock:
            if inputs or labels is not None:
                if labels is None:
                    inputs, labels = inputs[:-1], inputs[-1]
                variant = self._variant(inputs, labels, self._fingerprint())
            else:
                variant = self._last or self._first
            library = variant.library
            report = dict(library.report)
            report["library"] = os.path.join(library.directory,
                                             "libechostep.so")
            params = [p for _, p in self.module.named_parameters()]
            frozen = [params[i] for i in variant.frozen if i < len(params)]
            report["frozen_parameters"] = len(frozen)
            report["frozen_parameter_bytes"] = sum(
                p.numel() * p.element_size() for p in frozen)
            if self._buckets is not None:
                report["gradient_bucket_bytes"] = self._buckets.bytes
            if self.shard_note is not None:
                report["shard"] = self.shard_note
            if self._optimizer is not None:
                # What the process holds between steps (its gradients live
                # in the step's arena, each only until its update).
                trained = self._trained_parameters()
                report["model_state"] = {
                    "parameters": sum(p.numel() * 4 for p in trained),
                    "gradients": 0,
                    "optimizer_state": sum(
                        t.numel() * 4 for per in (
                            self._optimizer.state or []) for t in per)}
            if library.measured:
                report.update(library.measured)
                report["measured_peak_bytes"] = (
                    library.measured["measured_step_peak_bytes"] +
                    library.measured["argument_and_result_bytes"])
            return report


def compile_step(module, example_inputs, example_labels,
                 loss="cross_entropy", strategy="echo", budget=None,
                 offload=None, target="cpu", accumulate_grad=False,
                 name=None, optimizer=None, lr=None, momentum=0.9,
                 betas=(0.9, 0.999), eps=1e-8, weight_decay=None,
                 precision="f32", machine=None, ignore_index=-100,
                 label_smoothing=0.0, shard=None,
                 bucket_bytes=25 << 20, attention="fused"):
    """Compiles ``module``'s training step (forward, ``loss`` against the
    labels, backward) with Echo and returns a :class:`Step`, called as
    ``step(*inputs, labels=y)``.

    ``example_inputs``: a tuple of tensors (float inputs or integer ids) of
    the shapes the step takes; ``example_labels``: class indices for
    ``loss="cross_entropy"`` (PyTorch's: over the output's dim 1, or over
    its last dim for ``[B, T, C]`` outputs with ``[B, T]`` labels; rows
    labelled ``ignore_index``, -100 by default as in PyTorch, count for
    nothing; ``label_smoothing`` in [0, 1]) or targets for ``"mse"``;
    ``loss=None``: the module returns its loss (Hugging Face's
    ``model(ids, labels=labels)``: the labels are passed as ``labels=``
    when its forward has that parameter, else as its last argument; a
    tuple's first element or a dict's "loss" is the loss), or a function
    ``loss(output, labels)`` traced with the module (any loss PyTorch
    computes from the ops Echo maps: cross-entropy and NLL with
    ignore_index, label smoothing and the sum reduction, MSE, L1, smooth
    L1, Huber, binary cross-entropy with or without logits).
    ``strategy``: Echo's recompute strategy (none, mirror, sublinear, echo,
    budget), ``budget``: strategy budget's bound (bytes, "512MiB", a
    fraction of the step without recomputation: what echo-run --budget
    takes, met in measured bytes with the libraries' workspace counted),
    ``offload``: none|heavy|all. ``target``: "cpu".
    ``optimizer``: None (gradients into ``p.grad``), or "momentum", "adam",
    "adamw" run inside the step (torch.optim's SGD with momentum,
    dampening 0 and no Nesterov; Adam; AdamW), with ``lr`` (needed for
    momentum; Adam's 1e-3 otherwise), ``momentum``, ``betas``, ``eps`` and
    ``weight_decay`` (torch.optim's defaults: 0, AdamW's 1e-2; L2 for
    momentum and adam, decoupled for adamw). ``precision``: "f32", or
    "bf16" (automatic mixed precision: GEMMs, convolutions and elementwise
    ops in bfloat16, sums, softmax and the loss in f32, the parameters kept
    in f32 and their gradients returned in f32).
    ``machine``: the calibration recomputation is priced with (echo-run
    ``--machine``: its measured SGEMM GFLOP/s and triad GB/s): None takes
    this machine's cached bench/machine.py record where there is one, a
    path takes that file, False the fixed defaults (100 GFLOP/s, 20 GB/s).
    ``shard``: None, or "zero1", "zero2", "zero3" under torch.distributed
    (with ``optimizer=``): ZeRO's sharded data parallelism of the optimizer
    state, also the gradients, also the parameters, reduced and gathered
    in buckets of ``bucket_bytes`` (``echo.zero``; a collective: every rank
    calls compile_step); without a process group the step runs unsharded,
    with a warning.
    ``attention``: "fused" (the default: attention the module writes with
    materialized ops becomes ``echo.attention`` where it matches exactly,
    so that no S×S value is held; a causal mask however built becomes its
    causal flag) or "materialized" (the ops as written).
    The example tensors are only looked at for their shapes and types; the
    step is compiled now, so that errors surface here."""
    if shard is not None:
        from echo import zero
        return zero.compile_sharded(
            module, example_inputs, example_labels, shard, optimizer, lr,
            momentum, betas, eps, weight_decay, accumulate_grad,
            bucket_bytes, compile_step, dict(
                loss=loss, strategy=strategy, budget=budget, offload=offload,
                target=target, name=name, precision=precision,
                machine=machine, ignore_index=ignore_index,
                label_smoothing=label_smoothing, attention=attention))
    if loss is not None and not callable(loss) and loss not in _LOSSES:
        raise ValueError("loss must be one of %s, None (the module returns "
                         "its loss) or a function of (output, labels), not %r"
                         % (_LOSSES, loss))
    try:
        loss_spec = LossSpec(loss, ignore_index, label_smoothing)
    except Exception as e:
        raise ValueError(str(e)) from None
    if budget is not None and strategy == "echo":
        strategy = "budget"
    if strategy not in _STRATEGIES:
        raise ValueError("strategy must be one of %s, not %r" % (
            _STRATEGIES, strategy))
    if budget is not None and (isinstance(budget, bool) or not isinstance(
            budget, (int, float, str))):
        raise TypeError("budget must be bytes (an int), a fraction or a "
                        "string such as '512MiB', not %r" % (budget,))
    if offload is not None and offload not in _OFFLOADS:
        raise ValueError("offload must be None or one of %s, not %r" % (
            _OFFLOADS, offload))
    if target != "cpu":
        raise ValueError(
            "compile_step builds target='cpu' steps; a CUDA step runs as an "
            "ahead-of-time bundle (echo-run --target=cuda --emit-aot)")
    if not isinstance(module, torch.nn.Module):
        raise TypeError("compile_step takes an nn.Module, not %s" %
                        type(module).__name__)
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    if not isinstance(example_inputs, (tuple, list)):
        raise TypeError("example_inputs must be a tensor or a tuple of "
                        "tensors, not %s" % type(example_inputs).__name__)
    for i, t in enumerate(example_inputs):
        _check_tensor(t, "example input %d" % i)
    _check_tensor(example_labels, "the example labels")
    if precision not in _PRECISIONS:
        raise ValueError("precision must be one of %s, not %r" % (
            _PRECISIONS, precision))
    if machine is None:
        machine = machine_calibration()
    elif machine is not False:
        machine = os.fspath(machine)
        if not os.path.isfile(machine):
            raise ValueError("machine: no calibration file %r" % machine)
        # echo-run reads it; a file that is not JSON (or nests deeper than
        # Echo's tools parse) is a bad argument, said before compiling.
        try:
            jsonfile.load(machine)
        except (OSError, ValueError) as e:
            raise ValueError("machine: not a calibration: %s" % e) from None
    if attention not in ("fused", "materialized"):
        raise ValueError("attention must be 'fused' or 'materialized', not "
                         "%r" % (attention,))
    options = {"strategy": strategy, "budget": budget, "offload": offload,
               "precision": precision, "machine": machine or None,
               "attention": attention}
    state = None
    if optimizer is not None:
        if accumulate_grad:
            raise ValueError("accumulate_grad needs optimizer=None (with the "
                             "optimizer inside the step no gradient is "
                             "written)")
        state = OptimizerState(optimizer, lr, momentum, betas, eps,
                               weight_decay)
    step = Step(module, loss_spec, options, accumulate_grad,
                name or type(module).__name__.lower(), state)
    with step._lock:
        step._variant(tuple(example_inputs), example_labels,
                      step._fingerprint())
    return step
