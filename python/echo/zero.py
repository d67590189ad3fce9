"""Sharded data parallelism (ZeRO stages) for :func:`echo.torch.compile_step`.

``compile_step(module, inputs, labels, optimizer="adam", shard="zero2")``
under an initialized torch.distributed process group (Gloo on the CPU)
returns a :class:`ShardedStep`: every rank runs the compiled step on its own
batch, and the model state is split across the N ranks as ZeRO does:

* the trained parameters are laid out, in ``named_parameters()`` order, in
  one flat f32 buffer of P elements (padded to a multiple of N); rank r owns
  the slice ``[r*S, (r+1)*S)`` with ``S = P/N``;
* ``zero1``: each rank keeps the optimizer's state (Adam's ``exp_avg`` and
  ``exp_avg_sq``, momentum's buffer) of its slice only and updates its
  slice of the parameters; the gradients are averaged over all ranks
  (all-reduce in buckets) and each rank holds them whole; the updated
  parameters are all-gathered;
* ``zero2``: also the gradients: they are reduce-scattered in buckets (one
  ``reduce`` to each slice's owner: Gloo has no reduce-scatter) and each
  rank keeps only its slice's averaged gradient;
* ``zero3``: also the parameters: between steps a rank holds only its
  slice (each ``p.data`` is an empty tensor); before the step they are
  all-gathered into one transient buffer that the step reads (forward and
  backward), freed after.

The step itself is compiled without the optimizer (it writes every
gradient into a transient flat buffer the ``p.grad`` view); the update on
the rank's slice is torch.optim's arithmetic (SGD with momentum, Adam,
AdamW) on flat tensors, after the reduction. So the transient buffers are
whole: each rank holds, while the step runs, its local gradients (P
floats) and under zero3 the gathered parameters (P floats).
:meth:`ShardedStep.memory_report` tells both apart: ``model_state`` (what
the rank holds of parameters, reduced gradients and optimizer state, the
ZeRO paper's accounting) and ``transient_bytes``.

What it checks, so that ranks never silently train different things: at
``compile_step`` every rank compares its model (parameter names, shapes,
buffers, the stage, the optimizer) and then takes rank 0's parameters and
floating buffers (as DistributedDataParallel does); at every step the ranks
compare their batch's shapes (before compiling anything) and the compiled
step's hash. A difference is a :class:`DistributedStepError` on every rank;
a rank that dies or stalls makes the others' next collective fail within
the process group's timeout (:class:`DistributedStepError`, never a hang).

Without a process group (or with one rank) ``compile_step(shard=...)``
warns and returns the unsharded step (the optimizer inside it), whose
``memory_report()["shard"]`` says so.
"""

import contextlib
import hashlib
import math
import threading
import warnings

import torch
import torch.distributed as dist

from echo.step_optimizer import STATE_NAMES, OptimizerState

__all__ = ["DistributedStepError", "SHARDS", "ShardedStep", "active"]

SHARDS = ("zero1", "zero2", "zero3")
DEFAULT_BUCKET_BYTES = 25 << 20
UNSHARDED_NOTE = ("none (torch.distributed is not initialized (or has 1 "
                  "rank))")


class DistributedStepError(RuntimeError):
    """The ranks of a sharded step disagree (model, batch, compiled step) or
    a collective failed (a rank died, stalled past the process group's
    timeout or left the group)."""


def active():
    """Whether there is a process group of more than one rank."""
    return (dist.is_available() and dist.is_initialized() and
            dist.get_world_size() > 1)


def _storage_bytes(tensors):
    """The bytes of the distinct storages behind ``tensors`` (measured on
    the tensors, not computed from shapes)."""
    seen, total = set(), 0
    for t in tensors:
        if t is None:
            continue
        s = t.storage()
        if s.data_ptr() in seen or s.nbytes() == 0:
            continue
        seen.add(s.data_ptr())
        total += s.nbytes()
    return total


def compile_sharded(module, example_inputs, example_labels, shard, optimizer,
                    lr, momentum, betas, eps, weight_decay, accumulate_grad,
                    bucket_bytes, compile_step, options):
    """What ``compile_step(shard=...)`` does (see the module's text);
    ``compile_step`` is echo.torch's, ``options`` its other arguments."""
    if shard not in SHARDS:
        raise ValueError("shard must be None or one of %s, not %r" % (
            SHARDS, shard))
    if optimizer is None:
        raise ValueError(
            "shard=%r shards the optimizer inside the step: pass "
            "optimizer='momentum'|'adam'|'adamw'" % shard)
    if accumulate_grad:
        raise ValueError("accumulate_grad with shard=: the gradients are "
                         "reduced and applied at every step")
    if isinstance(bucket_bytes, bool) or not isinstance(bucket_bytes, int) \
            or bucket_bytes < 4:
        raise ValueError("bucket_bytes must be an int >= 4, not %r" % (
            bucket_bytes,))
    hypers = dict(optimizer=optimizer, lr=lr, momentum=momentum,
                  betas=betas, eps=eps, weight_decay=weight_decay)
    if not active():
        warnings.warn("compile_step(shard=%r): torch.distributed is not "
                      "initialized (or has 1 rank): the step runs unsharded"
                      % shard, stacklevel=3)
        step = compile_step(module, example_inputs, example_labels,
                            **hypers, **options)
        step.shard_note = UNSHARDED_NOTE
        return step
    state = OptimizerState(optimizer, lr, momentum, betas, eps, weight_decay)
    inner = compile_step(module, example_inputs, example_labels, **options)
    inner._data_parallel = False  # the reduction is this module's
    return ShardedStep(inner, state, shard, bucket_bytes)


class ShardedStep(object):
    """The callable ``compile_step(shard=...)`` returns under a process
    group: ``step(*inputs, labels=y)`` runs forward, backward, the
    reduction, the sharded update and the gathering of parameters, and
    returns the loss of this rank's batch. Every method that says
    "collective" must be called by every rank."""

    def __init__(self, inner, optimizer, shard, bucket_bytes):
        self.inner = inner
        self.module = inner.module
        self.shard = shard
        self.stage = SHARDS.index(shard) + 1
        self._optimizer = optimizer
        self.bucket = max(1, bucket_bytes // 4)
        self.world = dist.get_world_size()
        self.rank = dist.get_rank()
        self._lock = threading.RLock()
        self._count = 0  # steps taken (also in the optimizer)
        self._state = None  # one flat S-element shard per state name
        self._measured = None
        self._setup()

    # -- layout and the first collective -----------------------------------

    def _setup(self):
        """Compares the ranks' models, takes rank 0's parameters and
        buffers, and lays the trained parameters out flat."""
        named = list(self.module.named_parameters())
        self.trained = self.inner._trained_parameters()
        ids = {id(p) for p in self.trained}
        self.frozen = [p for _, p in named if id(p) not in ids]
        self.names = [n for n, p in named if id(p) in ids]
        self.shapes = [tuple(p.shape) for p in self.trained]
        self.offsets, n = [], 0
        for p in self.trained:
            self.offsets.append(n)
            n += p.numel()
        self.numel = n
        self.S = max(1, -(-n // self.world))
        self.P = self.S * self.world
        buffers = [b for b in self.module.buffers() if b.is_floating_point()]
        text = repr((
            [(name, tuple(p.shape), str(p.dtype), p.requires_grad)
             for name, p in named],
            [(name, tuple(b.shape), str(b.dtype))
             for name, b in self.module.named_buffers()],
            self.shard, self._optimizer.kind, self.names))
        differ = self._differing_ranks(text, "comparing the ranks' models")
        if differ:
            raise DistributedStepError(
                "echo step: rank %d's model (parameters, buffers, shard or "
                "optimizer) differs from that of rank(s) %s: every rank must "
                "build the same model and compile it with the same options"
                % (self.rank, differ))
        flat = torch.zeros(self.P, dtype=torch.float32)
        with torch.no_grad():
            for p, o in zip(self.trained, self.offsets):
                flat[o:o + p.numel()].copy_(p.detach().reshape(-1))

            def broadcast():
                for lo in range(0, self.P, self.bucket):
                    dist.broadcast(flat[lo:lo + self.bucket], 0)
                for t in self.frozen + buffers:
                    c = t.detach().contiguous()
                    dist.broadcast(c, 0)
                    if c.data_ptr() != t.data_ptr():
                        t.detach().copy_(c)
            self._collective(broadcast, "broadcasting rank 0's parameters")
        if self.stage < 3:
            self.flat = flat
            self._bind(flat)
        else:
            self.flat = None
            self.param_shard = flat[self._mine()].clone()
            del flat
            self._release()

    def _mine(self):
        return slice(self.rank * self.S, (self.rank + 1) * self.S)

    def _bind(self, flat):
        """Makes every trained ``p.data`` its view of ``flat``."""
        for p, o, shape in zip(self.trained, self.offsets, self.shapes):
            n = math.prod(shape)
            p.data = flat[o:o + n].view(shape)

    def _release(self):
        """zero3: drops the gathered parameters (each p.data empty)."""
        for p in self.trained:
            p.data = torch.empty(0, dtype=torch.float32)

    # -- collectives --------------------------------------------------------

    def _collective(self, fn, what):
        try:
            return fn()
        except RuntimeError as e:
            raise DistributedStepError(
                "echo step: %s failed on rank %d (a rank died, stalled past "
                "the process group's timeout, or left the group): %s" % (
                    what, self.rank, str(e).splitlines()[0])) from None

    def _differing_ranks(self, text, what):
        mine = torch.tensor(list(hashlib.sha1(text.encode()).digest()),
                            dtype=torch.uint8)
        gathered = [torch.zeros_like(mine) for _ in range(self.world)]
        self._collective(lambda: dist.all_gather(gathered, mine), what)
        return [r for r, g in enumerate(gathered) if not torch.equal(g, mine)]

    def _all_gather_flat(self, full, shard, what):
        """Every rank's ``shard`` (S elements) into ``full`` (P), in
        buckets."""
        def run():
            for lo in range(0, self.S, self.bucket):
                hi = min(self.S, lo + self.bucket)
                dist.all_gather([full[r * self.S + lo:r * self.S + hi]
                                 for r in range(self.world)],
                                shard[lo:hi].clone())
        self._collective(run, what)

    def _gather_parameters(self):
        """zero3: the whole parameters, bound to the module (transient)."""
        full = torch.empty(self.P, dtype=torch.float32)
        self._all_gather_flat(full, self.param_shard,
                              "gathering the parameters")
        self._bind(full)
        return full

    @contextlib.contextmanager
    def gathered_parameters(self):
        """Collective. The module's whole parameters inside the ``with``
        (under zero3 gathered, then dropped again; their values are read,
        changes to them are not kept); for evaluation or a checkpoint."""
        with self._lock:
            full = self._gather_parameters() if self.stage == 3 else None
            try:
                yield self.module
            finally:
                if full is not None:
                    self._release()

    def _reduce(self, local):
        """The averaged gradient this rank holds for its update: the whole
        (zero1: all-reduce) or its slice (zero2, zero3: a reduce to each
        slice's owner), in buckets from the end of the flat buffer (the
        order in which the backward pass finishes them)."""
        def run():
            works = []
            if self.stage == 1:
                for hi in range(self.P, 0, -self.bucket):
                    lo = max(0, hi - self.bucket)
                    works.append(dist.all_reduce(local[lo:hi],
                                                 async_op=True))
            else:
                for owner in reversed(range(self.world)):
                    base = owner * self.S
                    for hi in range(self.S, 0, -self.bucket):
                        lo = max(0, hi - self.bucket)
                        works.append(dist.reduce(
                            local[base + lo:base + hi], owner,
                            async_op=True))
            for w in works:
                w.wait()
        self._collective(run, "reducing the gradients across ranks")
        if self.stage == 1:
            return local.div_(self.world)
        return local[self._mine()].clone().div_(self.world)

    # -- the update ---------------------------------------------------------

    def _update(self, param, grad):
        """torch.optim's update of the flat slice ``param`` (in place)."""
        o = self._optimizer
        if self._state is None:
            self._state = [torch.zeros(self.S, dtype=torch.float32)
                           for _ in STATE_NAMES[o.kind]]
        step = self._count + 1
        with torch.no_grad():
            if o.kind == "momentum":
                d = grad.add(param, alpha=o.weight_decay) \
                    if o.weight_decay else grad
                buf, = self._state
                buf.mul_(o.momentum).add_(d)
                param.add_(buf, alpha=-o.lr)
                return
            b1, b2 = o.betas
            if o.kind == "adamw":
                param.mul_(1 - o.lr * o.weight_decay)
            elif o.weight_decay:
                grad = grad.add(param, alpha=o.weight_decay)
            m, v = self._state
            m.mul_(b1).add_(grad, alpha=1 - b1)
            v.mul_(b2).addcmul_(grad, grad, value=1 - b2)
            denom = (v.sqrt() / math.sqrt(1 - b2 ** step)).add_(o.eps)
            param.addcdiv_(m, denom, value=-o.lr / (1 - b1 ** step))

    # -- running ------------------------------------------------------------

    def __call__(self, *inputs, labels=None):
        """Collective. One step on this rank's batch; returns its loss."""
        if labels is None:
            if not inputs:
                raise TypeError("step() needs the inputs and the labels")
            inputs, labels = inputs[:-1], inputs[-1]
        with self._lock:
            return self._call(tuple(inputs), labels)

    def _call(self, inputs, labels):
        o = self._optimizer
        o.check()
        shapes = repr([(tuple(t.shape), str(t.dtype)) if isinstance(
            t, torch.Tensor) else type(t).__name__
            for t in inputs + (labels,)])
        differ = self._differing_ranks(shapes, "comparing the ranks' batches")
        if differ:
            raise DistributedStepError(
                "echo step: rank %d's batch (shapes and types) differs from "
                "that of rank(s) %s at step %d: every rank takes a batch of "
                "the same shapes" % (self.rank, differ, self._count + 1))
        gathered = self._gather_parameters() if self.stage == 3 else None
        local = None
        try:
            inner = self.inner
            with inner._lock:
                variant = inner._variant(inputs, labels, inner._fingerprint())
            differ = self._differing_ranks(
                variant.library.step_hash, "comparing the ranks' steps")
            if differ:
                raise DistributedStepError(
                    "echo step: rank %d runs a different compiled step than "
                    "rank(s) %s: every rank must compile the same model with "
                    "the same options" % (self.rank, differ))
            local = torch.zeros(self.P, dtype=torch.float32)
            for p, off, shape in zip(self.trained, self.offsets,
                                     self.shapes):
                p.grad = local[off:off + math.prod(shape)].view(shape)
            try:
                loss = inner(*inputs, labels=labels)
            finally:
                for p in self.trained:
                    p.grad = None
            grad = self._reduce(local)
            grad_bytes = _storage_bytes([grad])
            if self.stage > 1:
                local = None  # the rank keeps its slice only
            param = self.param_shard if self.stage == 3 else \
                self.flat[self._mine()]
            self._update(param, grad[self._mine()] if self.stage == 1
                         else grad)
            self._count += 1
            o.count = self._count
            if self.stage < 3:
                self._all_gather_flat(self.flat, param.clone(),
                                      "gathering the updated parameters")
            self._record(grad_bytes, gathered)
            return loss
        finally:
            if gathered is not None:
                self._release()

    def _record(self, grad_bytes, gathered):
        """What this rank held (measured on its tensors)."""
        if self.stage == 3:
            params = _storage_bytes([self.param_shard])
        else:
            params = _storage_bytes([self.flat])
        state = _storage_bytes(self._state or [])
        lib = self.inner._last.library.measured or {}
        self._measured = {
            "parameters": params, "gradients": grad_bytes,
            "optimizer_state": state,
            "local_gradients": self.P * 4,
            "gathered_parameters": _storage_bytes([gathered]),
            "step": lib.get("measured_step_peak_bytes", 0)}

    # -- reports and state ----------------------------------------------------

    def memory_report(self):
        """The compiled step's report (echo-run's keys, the measured bytes
        of its last run), and this rank's own: ``shard``, ``world_size``,
        ``rank``; ``model_state``: {``parameters``, ``gradients`` (the
        reduced gradient it holds for its update), ``optimizer_state``} in
        bytes, measured on the tensors it holds, and
        ``model_state_bytes`` their sum; ``held_between_steps_bytes``
        (parameters and optimizer state); ``transient_bytes``: the local
        gradients the step writes and (zero3) the gathered parameters,
        held while the step runs; ``rank_peak_bytes``: the most this rank
        held at once in a step (model state, transient buffers and the
        step's own measured peak); ``unsharded_model_state_bytes``: what one
        rank of unsharded data parallelism holds (parameters, gradients and
        optimizer state whole: (4 + 4 + K) bytes a parameter, K = 8 for
        Adam) and ``zero_accounting_bytes``: ZeRO's per-rank figure for this
        stage and world size."""
        with self._lock:
            report = self.inner.memory_report()
            k = 4 * len(STATE_NAMES[self._optimizer.kind])
            psi = self.numel
            n = self.world
            report.update(shard=self.shard, world_size=n, rank=self.rank,
                          unsharded_model_state_bytes=(8 + k) * psi,
                          zero_accounting_bytes=int(
                              {1: 8 * psi + k * psi / n,
                               2: 4 * psi + (4 + k) * psi / n,
                               3: (8 + k) * psi / n}[self.stage]))
            m = self._measured
            if m is None:
                return report
            state = {key: m[key] for key in ("parameters", "gradients",
                                             "optimizer_state")}
            report["model_state"] = state
            report["model_state_bytes"] = sum(state.values())
            report["held_between_steps_bytes"] = (m["parameters"] +
                                                  m["optimizer_state"])
            report["transient_bytes"] = {
                "local_gradients": m["local_gradients"],
                "gathered_parameters": m["gathered_parameters"]}
            # While the step runs: parameters (gathered under zero3), state,
            # local gradients and the step's own peak; then the reduction:
            # the local gradients and the reduced ones.
            during = (m["parameters"] + m["optimizer_state"] +
                      m["gathered_parameters"] + m["local_gradients"] +
                      m["step"])
            after = (m["parameters"] + m["optimizer_state"] +
                     m["gathered_parameters"] + m["local_gradients"] +
                     (m["gradients"] if self.stage > 1 else 0))
            report["rank_peak_bytes"] = max(during, after)
            return report

    @property
    def lr(self):
        return self._optimizer.lr

    @lr.setter
    def lr(self, value):
        self._optimizer.set(lr=value)

    @property
    def optimizer_hyperparameters(self):
        o = self._optimizer
        return {"lr": o.lr, "momentum": o.momentum, "betas": o.betas,
                "eps": o.eps, "weight_decay": o.weight_decay}

    def set_optimizer_hyperparameters(self, **values):
        """As :meth:`echo.torch.Step.set_optimizer_hyperparameters`."""
        self._optimizer.set(**values)

    def _stand_ins(self):
        return [torch.empty(shape, device="meta") for shape in self.shapes]

    def optimizer_state(self):
        """Collective. The whole optimizer state (every rank's shards
        gathered), laid out as the ``state_dict()`` of the equivalent
        torch.optim optimizer over the trained parameters, as
        :meth:`echo.torch.Step.optimizer_state`: it loads into a sharded
        step of any world size and into an unsharded one."""
        with self._lock:
            o = self._optimizer
            copy = OptimizerState(o.kind, o.lr, o.momentum, o.betas, o.eps,
                                  o.weight_decay)
            copy.count = self._count
            if self._state is not None:
                fulls = []
                for shard in self._state:
                    full = torch.empty(self.P, dtype=torch.float32)
                    self._all_gather_flat(full, shard,
                                          "gathering the optimizer state")
                    fulls.append(full)
                copy.state = [[full[off:off + math.prod(shape)].view(shape)
                               for full in fulls]
                              for off, shape in zip(self.offsets,
                                                    self.shapes)]
            return copy.state_dict(self._stand_ins())

    def load_optimizer_state(self, state):
        """Collective. Loads a state saved by :meth:`optimizer_state` (at
        any world size), by an unsharded step or by the equivalent
        torch.optim optimizer; every rank takes its slice. The whole dict
        is checked before anything changes, and the ranks check that they
        loaded the same state."""
        with self._lock:
            o = self._optimizer
            copy = OptimizerState(o.kind, o.lr, o.momentum, o.betas, o.eps,
                                  o.weight_decay)
            copy.load_state_dict(state, self._stand_ins())
            shards, digest = [], hashlib.sha1(repr((
                copy.count, copy.lr, copy.momentum, copy.betas, copy.eps,
                copy.weight_decay)).encode())
            for j in range(len(STATE_NAMES[o.kind])):
                full = torch.zeros(self.P, dtype=torch.float32)
                for off, per in zip(self.offsets, copy.state):
                    full[off:off + per[j].numel()].copy_(per[j].reshape(-1))
                digest.update(full.numpy().tobytes())
                shards.append(full[self._mine()].clone())
            differ = self._differing_ranks(digest.hexdigest(),
                                           "comparing the loaded states")
            if differ:
                raise DistributedStepError(
                    "echo step: rank %d loaded another optimizer state than "
                    "rank(s) %s: every rank loads the same" % (
                        self.rank, differ))
            for key in ("lr", "momentum", "betas", "eps", "weight_decay"):
                setattr(o, key, getattr(copy, key))
            self._state = shards
            self._count = copy.count
            o.count = copy.count
