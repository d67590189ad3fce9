"""The optimizer inside a compiled step (``compile_step(optimizer=...)``).

The step (``echo-run --emit-library --optimizer=momentum|adam|adamw``) takes,
after the model's inputs and parameters, the optimizer's state per parameter
(momentum: its velocity; adam, adamw: ``exp_avg`` then ``exp_avg_sq``) and
the hyperparameters as 0-d f32 tensors (the signature names them: ``hyper
lr``, ``hyper beta1``, ...), and updates parameters and state in place. This
module keeps that state and fills the hyperparameters: what
``torch.optim``'s ``state`` and ``param_groups`` hold, in the same layout, so
that ``Step.optimizer_state()`` is a ``state_dict()`` of the equivalent
PyTorch optimizer and one can be loaded into the other. A loaded dict is
checked whole (the optimizer it is of, its parameter ids, each tensor's
dtype, shape and values, one step count) before any of it is applied.
"""

import math
import numbers
from collections.abc import Mapping

import torch

OPTIMIZERS = ("momentum", "adam", "adamw")

# The state per parameter, in the order the step takes it (torch's names).
STATE_NAMES = {"momentum": ("momentum_buffer",),
               "adam": ("exp_avg", "exp_avg_sq"),
               "adamw": ("exp_avg", "exp_avg_sq")}
#: The equivalent torch.optim optimizer, for messages.
TORCH_NAMES = {"momentum": "torch.optim.SGD(momentum=...)",
               "adam": "torch.optim.Adam", "adamw": "torch.optim.AdamW"}
#: The hyperparameters a saved parameter group must have, beside 'params'.
GROUP_KEYS = {"momentum": ("lr", "momentum", "weight_decay"),
              "adam": ("lr", "betas", "eps", "weight_decay"),
              "adamw": ("lr", "betas", "eps", "weight_decay")}
#: Switches the compiled step does not do (refused when on); a momentum
#: group's 'dampening' must be 0.
FLAGS = {"momentum": ("nesterov", "maximize"),
         "adam": ("amsgrad", "maximize"), "adamw": ("amsgrad", "maximize")}
#: Group keys of how torch.optim runs the update, and the LR schedulers'
#: 'initial_lr': nothing the step's mathematics depends on.
IGNORED_GROUP_KEYS = ("foreach", "differentiable", "capturable", "fused",
                      "initial_lr")
#: What the other optimizers' state_dicts have and this one's does not.
_SGD_KEYS, _ADAM_KEYS = ("momentum", "dampening", "nesterov"), (
    "betas", "eps", "amsgrad")
OTHER_GROUP_KEYS = {"momentum": _ADAM_KEYS, "adam": _SGD_KEYS,
                    "adamw": _SGD_KEYS}
OTHER_STATE_NAMES = {"momentum": ("exp_avg", "exp_avg_sq", "step"),
                     "adam": ("momentum_buffer",),
                     "adamw": ("momentum_buffer",)}
OTHER_NAMES = {"momentum": "Adam", "adam": "SGD", "adamw": "SGD"}


class OptimizerState(object):
    """Hyperparameters, step count and state of one step's optimizer."""

    def __init__(self, kind, lr, momentum, betas, eps, weight_decay):
        if kind not in OPTIMIZERS:
            raise ValueError("optimizer must be None or one of %s, not %r" % (
                OPTIMIZERS, kind))
        if lr is None:
            if kind == "momentum":
                raise ValueError("optimizer='momentum' needs lr= (as "
                                 "torch.optim.SGD does)")
            lr = 1e-3
        if weight_decay is None:
            weight_decay = 1e-2 if kind == "adamw" else 0.0
        self.kind = kind
        self.lr = lr
        self.momentum = momentum
        self.betas = tuple(betas)
        self.eps = eps
        self.weight_decay = weight_decay
        self.check()
        # Steps taken (Adam's bias corrections count from 1).
        self.count = 0
        # One list of tensors per parameter, made at the first step.
        self.state = None

    def check(self):
        """PyTorch's ranges, for the values the next step will use."""
        check_hyperparameters(self.lr, self.momentum, self.betas, self.eps,
                              self.weight_decay)

    def hyperparameters(self):
        """``lr``, ``momentum``, ``betas``, ``eps``, ``weight_decay``."""
        return {"lr": self.lr, "momentum": self.momentum,
                "betas": self.betas, "eps": self.eps,
                "weight_decay": self.weight_decay}

    def set(self, **values):
        """Sets hyperparameters (keys of :meth:`hyperparameters`) for the
        next steps, all or none: a refused value (TypeError, ValueError)
        leaves them as they were."""
        before = self.hyperparameters()
        for key in values:
            if key not in before:
                raise TypeError("unknown hyperparameter %r" % key)
        try:
            for key, value in values.items():
                setattr(self, key, tuple(value) if key == "betas" else value)
            self.check()
        except Exception:
            for key, value in before.items():
                setattr(self, key, value)
            raise

    def hyper_value(self, name):
        """The value of hyperparameter ``name`` for the next step."""
        values = {"lr": self.lr, "momentum": self.momentum,
                  "beta1": self.betas[0], "beta2": self.betas[1],
                  "eps": self.eps, "weight_decay": self.weight_decay,
                  "step": float(self.count + 1)}
        if name not in values:
            raise RuntimeError("the compiled step takes hyperparameter %r, "
                               "which this version does not know" % name)
        return values[name]

    def tensors(self, params):
        """The state tensors in the step's order, made (zeros) if needed."""
        if self.state is None:
            self.state = [[torch.zeros(p.shape, dtype=torch.float32)
                           for _ in STATE_NAMES[self.kind]] for p in params]
        return [t for per_param in self.state for t in per_param]

    def state_dict(self, params):
        """The state as ``torch.optim``'s ``state_dict()`` has it (copies)."""
        state = {}
        for i, p in enumerate(params):
            if self.state is None:
                break
            entry = {name: t.clone() for name, t in
                     zip(STATE_NAMES[self.kind], self.state[i])}
            if self.kind != "momentum":
                entry["step"] = torch.tensor(float(self.count))
            state[i] = entry
        group = {"lr": self.lr, "weight_decay": self.weight_decay,
                 "params": list(range(len(params)))}
        if self.kind == "momentum":
            group.update(momentum=self.momentum, dampening=0,
                         nesterov=False, maximize=False)
        else:
            group.update(betas=self.betas, eps=self.eps, amsgrad=False,
                         maximize=False)
        return {"state": state, "param_groups": [group]}

    def load_state_dict(self, saved, params):
        """Loads a ``state_dict()`` of this class or of the equivalent
        ``torch.optim`` optimizer (one parameter group, in
        ``named_parameters()`` order). The whole dict is checked against
        this optimizer and ``params`` before anything changes: a
        :class:`TypeError` or :class:`ValueError` that says what is wrong
        leaves the hyperparameters, the state and the step count as they
        were."""
        if not isinstance(saved, Mapping):
            raise TypeError("the optimizer state must be a state_dict() (a "
                            "dict with 'state' and 'param_groups'), not %s" %
                            type(saved).__name__)
        for key in ("state", "param_groups"):
            if key not in saved:
                raise ValueError("the optimizer state has no %r: a "
                                 "state_dict() has 'state' and "
                                 "'param_groups'" % key)
        for key in saved:
            if key not in ("state", "param_groups"):
                raise ValueError("the optimizer state has %r besides 'state' "
                                 "and 'param_groups'" % (key,))
        groups = saved["param_groups"]
        if not isinstance(groups, (list, tuple)):
            raise TypeError("the optimizer state's 'param_groups' is %s, not "
                            "a list" % type(groups).__name__)
        if len(groups) != 1:
            raise ValueError("the optimizer state has %d parameter groups; "
                             "a compiled step has one" % len(groups))
        ids, hypers = self._read_group(groups[0], len(params))
        state, count = self._read_state(saved["state"], ids, params)
        # Everything checked: apply it.
        for name, value in hypers.items():
            setattr(self, name, value)
        self.state = state
        self.count = count

    def _mismatch(self, what, theirs):
        mine = "%r (%s)" % (self.kind, TORCH_NAMES[self.kind])
        return ValueError("the optimizer state is %s's (%s); this step's "
                          "optimizer is %s" % (theirs, what, mine))

    def _read_group(self, group, count):
        """The parameter ids and the hyperparameters of a saved group,
        checked."""
        if not isinstance(group, Mapping):
            raise TypeError("param_groups[0] is %s, not a dict" %
                            type(group).__name__)
        keys = GROUP_KEYS[self.kind]
        for key in group:
            if not isinstance(key, str):
                raise TypeError("param_groups[0] has the key %r; its keys "
                                "are names" % (key,))
            if key in OTHER_GROUP_KEYS[self.kind]:
                raise self._mismatch("its group has %r" % key,
                                     OTHER_NAMES[self.kind])
            if key not in keys + FLAGS[self.kind] + IGNORED_GROUP_KEYS + (
                    "params", "dampening"):
                raise ValueError("param_groups[0] has %r, which the compiled "
                                 "step's %s does not take" % (
                                     key, TORCH_NAMES[self.kind]))
        for key in ("params",) + keys:
            if key not in group:
                raise ValueError("param_groups[0] has no %r (a %s "
                                 "state_dict() has %s)" % (
                                     key, TORCH_NAMES[self.kind],
                                     ", ".join(("params",) + keys)))
        ids = group["params"]
        if not isinstance(ids, (list, tuple)):
            raise TypeError("param_groups[0]['params'] is %s, not a list of "
                            "parameter ids" % type(ids).__name__)
        _check_ids(ids, "param_groups[0]['params']")
        if len(set(ids)) != len(ids):
            raise ValueError("param_groups[0]['params'] repeats an id: %r" %
                             (list(ids),))
        if len(ids) != count:
            raise ValueError("the optimizer state is for %d parameters; the "
                             "module has %d" % (len(ids), count))
        for key in FLAGS[self.kind]:
            if group.get(key):
                raise ValueError("the compiled step does not do %s" % key)
        if _real(group.get("dampening", 0), "dampening") != 0:
            raise ValueError("the compiled step's momentum has no dampening")
        hypers = {key: _real(group[key], key) for key in keys
                  if key != "betas"}
        if "betas" in keys:
            betas = group["betas"]
            if not isinstance(betas, (list, tuple)) or len(betas) != 2:
                raise ValueError("betas must be two numbers in [0, 1), got "
                                 "%r" % (betas,))
            hypers["betas"] = tuple(_real(b, "betas") for b in betas)
        values = {"lr": self.lr, "momentum": self.momentum,
                  "betas": self.betas, "eps": self.eps,
                  "weight_decay": self.weight_decay}
        values.update(hypers)
        check_hyperparameters(**values)
        return list(ids), hypers

    def _read_state(self, state, ids, params):
        """The state tensors per parameter (f32 copies) and the step count
        of a saved ``state``, checked."""
        if not isinstance(state, Mapping):
            raise TypeError("the optimizer state's 'state' is %s, not a dict"
                            % type(state).__name__)
        _check_ids(list(state), "the optimizer state's 'state'", keys=True)
        for key in state:
            if key not in ids:
                raise ValueError("the optimizer state has state for "
                                 "parameter id %d, which param_groups[0]"
                                 "['params'] does not list" % key)
        names = STATE_NAMES[self.kind]
        counted = self.kind != "momentum"
        per_param, steps, without = [], {}, []
        for i, (key, p) in enumerate(zip(ids, params)):
            entry = state.get(key)
            if entry is None:  # torch's, for a parameter it has not updated
                without.append(i)
                per_param.append([torch.zeros(p.shape) for _ in names])
                continue
            if not isinstance(entry, Mapping):
                raise TypeError("the state of parameter %d is %s, not a dict"
                                % (i, type(entry).__name__))
            for name in entry:
                if name in names or (counted and name == "step"):
                    continue
                if name in OTHER_STATE_NAMES[self.kind]:
                    raise self._mismatch(
                        "the state of parameter %d has %r" % (i, name),
                        OTHER_NAMES[self.kind])
                raise ValueError("the state of parameter %d has %r; %s keeps "
                                 "%s" % (i, name, TORCH_NAMES[self.kind],
                                         ", ".join(names + (
                                             ("step",) if counted else ()))))
            tensors = []
            for name in names:
                t = entry.get(name)
                if t is None and counted:
                    raise ValueError("the state of parameter %d has no %r" %
                                     (i, name))
                if t is None:  # torch's SGD with momentum 0 keeps None
                    t = torch.zeros(p.shape)
                tensors.append(_state_tensor(t, name, i, p))
            if counted:
                if "step" not in entry:
                    raise ValueError("the state of parameter %d has no "
                                     "'step'" % i)
                steps[i] = _step_count(entry["step"], i)
            per_param.append(tensors)
        count = 0
        if steps:
            counts = sorted(set(steps.values()))
            if len(counts) > 1:
                first = {c: min(i for i in steps if steps[i] == c)
                         for c in counts}
                raise ValueError(
                    "'step' differs across parameters (%s); the compiled "
                    "step keeps one step count" % ", ".join(
                        "parameter %d: %d" % (first[c], c) for c in counts))
            count = counts[0]
            if without and count:
                raise ValueError(
                    "parameter %d has no state while the others have taken "
                    "%d steps; the compiled step keeps one step count" % (
                        without[0], count))
        return per_param, count


#: The largest float32: the step takes its hyperparameters as f32.
_F32_MAX = float(torch.finfo(torch.float32).max)


def check_hyperparameters(lr, momentum, betas, eps, weight_decay):
    """PyTorch's ranges for the hyperparameters (ValueError), each a
    float32 (the step's type for them: a larger value would be inf)."""
    values = {"lr": lr, "momentum": momentum, "eps": eps,
              "weight_decay": weight_decay}
    for name, value in values.items():
        if not (math.isfinite(value) and value >= 0):
            raise ValueError("%s must be a finite number >= 0, got %r" %
                             (name, value))
        if value > _F32_MAX:
            raise ValueError("%s must be at most %r (float32's largest), "
                             "got %r" % (name, _F32_MAX, value))
    if len(betas) != 2 or not all(
            math.isfinite(b) and 0 <= b < 1 for b in betas):
        raise ValueError("betas must be two numbers in [0, 1), got %r" %
                         (tuple(betas),))


def _real(value, name):
    """A saved hyperparameter as a float: a real number or a one-element
    float tensor, not a boolean."""
    if isinstance(value, torch.Tensor) and value.numel() == 1 and \
            value.is_floating_point():
        return float(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number, not %s %r" % (
            name, type(value).__name__, value))
    return float(value)


def _check_ids(ids, where, keys=False):
    """Parameter ids are integers (torch.optim numbers parameters 0, 1,
    ...)."""
    strings = [i for i in ids if isinstance(i, str)]
    if strings:
        raise TypeError(
            "%s has string %s (%s): parameter ids are integers, as "
            "torch.optim's state_dict() numbers them (was it saved through "
            "JSON?)" % (where, "keys" if keys else "ids",
                        ", ".join(repr(s) for s in strings[:3])))
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError("%s has the %s %r (%s): parameter ids are "
                            "integers" % (where, "key" if keys else "id", i,
                                          type(i).__name__))


def _state_tensor(t, name, i, p):
    """A saved state tensor as this step's f32 copy, checked: a float
    tensor of the parameter's shape, finite (and >= 0 for exp_avg_sq)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError("state %r of parameter %d is %s, not a tensor" % (
            name, i, type(t).__name__))
    if not t.is_floating_point():
        raise TypeError("state %r of parameter %d is %s, not a float tensor"
                        % (name, i, t.dtype))
    if tuple(t.shape) != tuple(p.shape):
        raise ValueError("state %r of parameter %d is %s, not %s" % (
            name, i, tuple(t.shape), tuple(p.shape)))
    t = t.detach().to("cpu", torch.float32).contiguous().clone()
    if not bool(torch.isfinite(t).all()):
        raise ValueError("state %r of parameter %d is not finite (NaN or "
                         "infinite values)" % (name, i))
    if name == "exp_avg_sq" and bool((t < 0).any()):
        raise ValueError("state 'exp_avg_sq' of parameter %d has negative "
                         "values" % i)
    return t


def _step_count(value, i):
    """A saved 'step' (a 0-d tensor or a number) as a count >= 0."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("'step' of parameter %d is %s, not a number" % (
            i, type(value).__name__))
    if not (math.isfinite(value) and value >= 0 and
            float(value).is_integer()):
        raise ValueError("'step' of parameter %d is %r, not a whole number "
                         ">= 0" % (i, value))
    return int(value)
