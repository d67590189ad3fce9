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
options; no MLIR is needed to run it) and loads it with ctypes. Each call
passes the tensors' data pointers: the inputs, the labels, then the module's
own parameters (read where they are, so that any ``torch.optim`` optimizer,
LR scheduler or ``load_state_dict`` acts on what the next step reads); the
step writes the loss and each parameter's gradient into ``p.grad``
(overwritten, or added to with ``accumulate_grad=True``, as PyTorch's
backward does). A batch of another shape compiles a second step, cached
beside the first. Evaluation stays PyTorch's (``module.eval()``, the same
parameters).

Data parallel: when torch.distributed is initialized with more than one
rank, the gradients are averaged across ranks after each step, in flat
buckets that ``p.grad`` views (``echo.data_parallel``), and the ranks check
at the first step that they run the same compiled step.

Batch norm: the step normalizes with the batch's statistics, as PyTorch
does in training, but does not update ``running_mean``/``running_var``;
call :meth:`Step.update_batch_norm_statistics` with a batch (or a few)
before evaluating a model that has them.

For the last bytes, the optimizer can run inside the step::

    step = echo.torch.compile_step(model, (x,), y, optimizer="adam", lr=1e-3)
    for x, y in loader:
        loss = step(x, labels=y)      # forward, backward and Adam's update

``optimizer="momentum"|"adam"|"adamw"`` (torch.optim's SGD with momentum,
Adam, AdamW) updates each of the module's parameters in place as soon as
its gradient is final, so the gradients of all parameters are never held
at once and none is written to ``p.grad``. The step keeps the optimizer's
state (zeros at first; :meth:`Step.optimizer_state` and
:meth:`Step.load_optimizer_state` read and write it in the layout of the
equivalent ``torch.optim`` optimizer's ``state_dict()``); its
hyperparameters are arguments of the compiled step, so ``step.lr = ...``
(an LR schedule) or other betas change nothing compiled. Under
torch.distributed such a step is refused: each rank would update from its
own gradients before they are averaged.
"""

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

import torch

from echo import data_parallel, jsonfile
from echo.frontend import import_module
from echo.step_optimizer import STATE_NAMES, OptimizerState

__all__ = ["CompileError", "Step", "compile_step", "find_tool"]

_LOSSES = ("cross_entropy", "mse")
_STRATEGIES = ("none", "mirror", "sublinear", "echo", "budget")
_PRECISIONS = ("f32", "bf16")


class CompileError(RuntimeError):
    """The module could not be imported or its step not compiled."""


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
    ``/opt/echo/bin``."""
    env = os.environ.get("ECHO_" + name.upper().replace("ECHO-", "")
                         .replace("-", "_"))
    if env:
        return env
    found = shutil.which(name)
    if found:
        return found
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "build", "bin", name),
                      os.path.join("/opt/echo/bin", name)):
        if os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    raise CompileError("cannot find %s: put it on PATH or set $ECHO_%s" % (
        name, name.upper().replace("ECHO-", "").replace("-", "_")))


def _dtype_of(tensor):
    return "f32" if tensor.is_floating_point() else "i32"


def _spec(tensor):
    return tuple(tensor.shape), _dtype_of(tensor)


class _Signature(object):
    """The step's arguments and results (the manifest echo-run compiled into
    the library: ``arg I DTYPE ROLE RANGE RANK DIMS...`` where ROLE is
    ``param``, ``data``, ``state`` or ``hyper NAME``, and ``out K DTYPE RANK
    DIMS...``)."""

    def __init__(self, text):
        self.args, self.outs = [], []
        for line in text.splitlines():
            words = line.split()
            if words and words[0] == "arg":
                hyper = None
                if words[3] == "hyper":
                    hyper = words[4]
                    del words[4]
                rank = int(words[5])
                self.args.append({"dtype": words[2], "role": words[3],
                                  "hyper": hyper, "range": int(words[4]),
                                  "shape": tuple(int(d) for d in
                                                 words[6:6 + rank])})
            elif words and words[0] == "out":
                rank = int(words[3])
                self.outs.append({"dtype": words[2], "shape": tuple(
                    int(d) for d in words[4:4 + rank])})


class _Library(object):
    """One compiled step: libechostep.so, loaded once."""

    def __init__(self, directory):
        self.directory = directory
        self.lib = ctypes.CDLL(os.path.join(directory, "libechostep.so"))
        for name in ("echo_step_error", "echo_step_signature_text",
                     "echo_step_memory_report_text"):
            getattr(self.lib, name).restype = ctypes.c_char_p
        for name in ("echo_step_peak_bytes", "echo_step_workspace_bytes"):
            getattr(self.lib, name).restype = ctypes.c_uint64
        self.lib.echo_step_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        if self.lib.echo_step_init() != 0:
            raise CompileError("the step library %s cannot start: %s" % (
                directory, self.error()))
        text = self.lib.echo_step_signature_text().decode()
        self.signature = _Signature(text)
        self.step_hash = next((line.split()[1] for line in text.splitlines()
                               if line.startswith("step_hash ")), "")
        self.report = json.loads(
            self.lib.echo_step_memory_report_text().decode())
        self.args = (ctypes.c_void_p * len(self.signature.args))()
        self.outs = (ctypes.c_void_p * len(self.signature.outs))()
        # What the last run measured (Step.memory_report).
        self.measured = None

    def error(self):
        return self.lib.echo_step_error().decode()

    def record_measured(self, caller_tensors):
        """What the last run measured, with the bytes of the caller's
        tensors it was given (arguments and results)."""
        self.measured = {
            "measured_step_peak_bytes": int(self.lib.echo_step_peak_bytes()),
            "argument_and_result_bytes": sum(
                t.numel() * t.element_size() for t in caller_tensors),
            "library_workspace_bytes":
                int(self.lib.echo_step_workspace_bytes())}

    def run(self, arg_tensors, out_tensors):
        for i, t in enumerate(arg_tensors):
            self.args[i] = t.data_ptr()
        for i, t in enumerate(out_tensors):
            self.outs[i] = t.data_ptr()
        if self.lib.echo_step_run(self.args, self.outs) != 0:
            raise RuntimeError("echo step: " + self.error())


class Step(object):
    """The callable :func:`compile_step` returns."""

    def __init__(self, module, loss, options, accumulate_grad, name,
                 optimizer=None):
        self.module = module
        self.loss = loss
        self.options = options
        self.accumulate_grad = accumulate_grad
        self.name = name
        self._libraries = {}
        self._first = None
        # torch.distributed data parallelism: gradient buckets (created at
        # the first step of a process group).
        self._buckets = None
        # The optimizer inside the step, if any (step_optimizer.py).
        self._optimizer = optimizer

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
        self._optimizer_or_raise().lr = value

    @property
    def optimizer_hyperparameters(self):
        """The hyperparameters of the optimizer inside the step, as a dict
        (``lr``, ``momentum``, ``betas``, ``eps``, ``weight_decay``); set
        them with :meth:`set_optimizer_hyperparameters`."""
        o = self._optimizer_or_raise()
        return {"lr": o.lr, "momentum": o.momentum, "betas": o.betas,
                "eps": o.eps, "weight_decay": o.weight_decay}

    def set_optimizer_hyperparameters(self, **values):
        """Sets hyperparameters of the optimizer inside the step (the keys
        of :attr:`optimizer_hyperparameters`) for the next steps."""
        o = self._optimizer_or_raise()
        for key, value in values.items():
            if key not in self.optimizer_hyperparameters:
                raise TypeError("unknown hyperparameter %r" % key)
            setattr(o, key, tuple(value) if key == "betas" else value)
        o.check()

    def optimizer_state(self):
        """The state of the optimizer inside the step (copies), laid out as
        the ``state_dict()`` of the equivalent ``torch.optim`` optimizer:
        ``{"state": {i: {"exp_avg": ..., "exp_avg_sq": ..., "step": ...}},
        "param_groups": [{"lr": ..., ...}]}`` (``momentum_buffer`` for
        momentum), parameters numbered in ``named_parameters()`` order."""
        return self._optimizer_or_raise().state_dict(self._parameters())

    def load_optimizer_state(self, state):
        """Loads a state saved by :meth:`optimizer_state`, or the
        ``state_dict()`` of the equivalent ``torch.optim`` optimizer over
        ``module.parameters()``: the next step continues from it."""
        self._optimizer_or_raise().load_state_dict(state, self._parameters())

    def _parameters(self):
        return [p for _, p in self.module.named_parameters()]

    # -- compiling ----------------------------------------------------------

    def _compile(self, inputs, labels):
        key = (tuple(_spec(t) for t in inputs), _spec(labels))
        library = self._libraries.get(key)
        if library is not None:
            return library
        try:
            imported = import_module(
                self.module, [_spec(t) for t in inputs], self.loss,
                _spec(labels), self.name)
        except Exception as e:  # the importer's located errors, and others
            raise CompileError("importing %s: %s" % (
                type(self.module).__name__, e)) from None
        directory = self._build(imported.text)
        library = _Library(directory)
        params = [p for _, p in self.module.named_parameters()]
        wanted = [a for a in library.signature.args if a["role"] == "param"]
        if [tuple(p.shape) for p in params] != [a["shape"] for a in wanted]:
            raise CompileError(
                "the compiled step's parameters (%s) are not the module's "
                "named_parameters() (%s)" % (
                    [a["shape"] for a in wanted],
                    [tuple(p.shape) for p in params]))
        states = [a["shape"] for a in library.signature.args
                  if a["role"] == "state"]
        if self._optimizer is not None and states != [
                tuple(p.shape) for p in params
                for _ in STATE_NAMES[self._optimizer.kind]]:
            raise CompileError("the compiled step's optimizer state (%s) is "
                               "not %s's for the module's parameters" % (
                                   states, self._optimizer.kind))
        self._libraries[key] = library
        if self._first is None:
            self._first = library
        return library

    def _build(self, text):
        echo_run = find_tool("echo-run")
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
        digest = hashlib.sha1()
        for part in [text, echo_run, str(os.path.getmtime(echo_run))] + flags:
            digest.update(part.encode())
            digest.update(b"\0")
        cache = os.environ.get("ECHO_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".cache", "echo", "steps")
        directory = os.path.join(cache, digest.hexdigest())
        if os.path.exists(os.path.join(directory, "libechostep.so")):
            return directory
        os.makedirs(cache, exist_ok=True)
        work = tempfile.mkdtemp(dir=cache, prefix=".build-")
        try:
            model = os.path.join(work, "model.mlir")
            with open(model, "w") as f:
                f.write(text)
            run = subprocess.run(
                [echo_run, model, "--emit-library=" + os.path.join(
                    work, "step")] + flags, capture_output=True, text=True)
            if run.returncode != 0:
                raise CompileError("echo-run could not compile the step of "
                                   "%s:\n%s" % (self.name, run.stderr.strip()))
            shutil.copy(model, os.path.join(work, "step", "model.mlir"))
            try:
                os.rename(os.path.join(work, "step"), directory)
            except OSError:  # another process built it first
                if not os.path.exists(os.path.join(directory,
                                                   "libechostep.so")):
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return directory

    # -- running ------------------------------------------------------------

    def __call__(self, *inputs, labels=None):
        """Runs one step: returns the loss (a 0-d tensor) and writes every
        parameter's gradient into ``p.grad``, or, with an optimizer inside
        the step, updates the parameters in place (and writes no gradient).
        ``labels`` may also be the last positional argument."""
        if labels is None:
            if not inputs:
                raise TypeError("step() needs the inputs and the labels")
            inputs, labels = inputs[:-1], inputs[-1]
        for t in list(inputs) + [labels]:
            if not isinstance(t, torch.Tensor):
                raise TypeError("step() takes tensors, not %s" %
                                type(t).__name__)
            if t.device.type != "cpu":
                raise ValueError("this step runs on the CPU; the tensor is "
                                 "on %s" % t.device)
        library = self._compile(inputs, labels)
        sig = library.signature
        data = []
        for t, a in zip(list(inputs) + [labels], sig.args):
            dtype = torch.float32 if a["dtype"] == "f32" else torch.int32
            data.append(t.detach().to(dtype).contiguous())
        params = [p for _, p in self.module.named_parameters()]
        for p in params:
            if p.dtype != torch.float32:
                raise ValueError("the step's parameters are f32; %s is %s" %
                                 (tuple(p.shape), p.dtype))
        if self._optimizer is not None:
            if data_parallel.active():
                raise ValueError(
                    "an optimizer inside the step with torch.distributed: "
                    "each rank would update its parameters from its own "
                    "gradients before they are averaged; compile the step "
                    "without optimizer= and use a torch.optim optimizer")
            return self._run_with_optimizer(library, data, params)
        arg_tensors = data + [p.detach().contiguous() for p in params]
        loss = torch.empty((), dtype=torch.float32)
        if data_parallel.active():
            if self.accumulate_grad:
                raise ValueError("accumulate_grad with torch.distributed: "
                                 "gradients are averaged across ranks at "
                                 "every step")
            if self._buckets is None:
                self._buckets = data_parallel.GradientBuckets(params)
            self._buckets.check_plan(library.step_hash)
            self._buckets.attach()
        grads, adds = [], []
        for p in params:
            g = p.grad
            if (g is not None and not self.accumulate_grad and
                    g.is_contiguous() and g.dtype == torch.float32 and
                    g.shape == p.shape):
                grads.append(g)  # written in place
            elif g is None:
                p.grad = torch.empty_like(p, memory_format=torch.contiguous_format)
                grads.append(p.grad)
            else:
                scratch = torch.empty(p.shape, dtype=torch.float32)
                grads.append(scratch)
                adds.append((p, scratch))
        library.run(arg_tensors, [loss] + grads)
        if self._buckets is not None and data_parallel.active():
            self._buckets.reduce()
        for p, scratch in adds:
            if self.accumulate_grad:
                p.grad.add_(scratch)
            else:
                p.grad.copy_(scratch)
        library.record_measured(arg_tensors + [loss] + grads)
        return loss

    def _run_with_optimizer(self, library, data, params):
        """One step with the optimizer inside: parameters and state are
        updated where they are (a parameter that is not contiguous through
        a contiguous copy, copied back)."""
        o = self._optimizer
        o.check()
        own = [p.detach() for p in params]
        work = [t if t.is_contiguous() else t.contiguous() for t in own]
        hypers = []
        for a in library.signature.args:
            if a["role"] == "hyper":
                hypers.append(torch.tensor(o.hyper_value(a["hyper"]),
                                           dtype=torch.float32))
        arg_tensors = data + work + o.tensors(params) + hypers
        if len(arg_tensors) != len(library.signature.args):
            raise CompileError("the compiled step takes %d arguments, not %d"
                               % (len(library.signature.args),
                                  len(arg_tensors)))
        loss = torch.empty((), dtype=torch.float32)
        with torch.no_grad():
            library.run(arg_tensors, [loss])
            for t, w in zip(own, work):
                if w is not t:
                    t.copy_(w)
        o.count += 1
        library.record_measured(arg_tensors + [loss])
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
        measure)."""
        if inputs or labels is not None:
            if labels is None:
                inputs, labels = inputs[:-1], inputs[-1]
            library = self._compile(inputs, labels)
        else:
            library = self._first
        report = dict(library.report)
        report["library"] = os.path.join(library.directory, "libechostep.so")
        if self._buckets is not None:
            report["gradient_bucket_bytes"] = self._buckets.bytes
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
                 precision="f32", machine=None):
    """Compiles ``module``'s training step (forward, ``loss`` against the
    labels, backward) with Echo and returns a :class:`Step`, called as
    ``step(*inputs, labels=y)``.

    ``example_inputs``: a tuple of tensors (float inputs or integer ids) of
    the shapes the step takes; ``example_labels``: class indices for
    ``loss="cross_entropy"`` (over the output's last dim) or targets for
    ``"mse"``. ``strategy``: Echo's recompute strategy (none, mirror,
    sublinear, echo, budget), ``budget``: strategy budget's bound (bytes,
    "512MiB", a fraction), ``offload``: none|heavy|all. ``target``: "cpu".
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
    The example tensors are only looked at for their shapes and types; the
    step is compiled now, so that errors surface here."""
    if loss not in _LOSSES:
        raise ValueError("loss must be one of %s, not %r" % (_LOSSES, loss))
    if budget is not None and strategy == "echo":
        strategy = "budget"
    if strategy not in _STRATEGIES:
        raise ValueError("strategy must be one of %s, not %r" % (
            _STRATEGIES, strategy))
    if target != "cpu":
        raise ValueError(
            "compile_step builds target='cpu' steps; a CUDA step runs as an "
            "ahead-of-time bundle (echo-run --target=cuda --emit-aot)")
    if not isinstance(module, torch.nn.Module):
        raise TypeError("compile_step takes an nn.Module, not %s" %
                        type(module).__name__)
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
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
    options = {"strategy": strategy, "budget": budget, "offload": offload,
               "precision": precision, "machine": machine or None}
    state = None
    if optimizer is not None:
        if accumulate_grad:
            raise ValueError("accumulate_grad needs optimizer=None (with the "
                             "optimizer inside the step no gradient is "
                             "written)")
        state = OptimizerState(optimizer, lr, momentum, betas, eps,
                               weight_decay)
    step = Step(module, loss, options, accumulate_grad,
                name or type(module).__name__.lower(), state)
    step._compile(tuple(example_inputs), example_labels)
    return step
