"""The optimizer inside a compiled step (``compile_step(optimizer=...)``).

The step (``echo-run --emit-library --optimizer=momentum|adam|adamw``) takes,
after the model's inputs and parameters, the optimizer's state per parameter
(momentum: its velocity; adam, adamw: ``exp_avg`` then ``exp_avg_sq``) and
the hyperparameters as 0-d f32 tensors (the signature names them: ``hyper
lr``, ``hyper beta1``, ...), and updates parameters and state in place. This
module keeps that state and fills the hyperparameters: what
``torch.optim``'s ``state`` and ``param_groups`` hold, in the same layout, so
that ``Step.optimizer_state()`` is a ``state_dict()`` of the equivalent
PyTorch optimizer and one can be loaded into the other.
"""

import math

import torch

OPTIMIZERS = ("momentum", "adam", "adamw")

# The state per parameter, in the order the step takes it (torch's names).
STATE_NAMES = {"momentum": ("momentum_buffer",),
               "adam": ("exp_avg", "exp_avg_sq"),
               "adamw": ("exp_avg", "exp_avg_sq")}


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
        values = {"lr": self.lr, "momentum": self.momentum, "eps": self.eps,
                  "weight_decay": self.weight_decay}
        for name, value in values.items():
            if not (math.isfinite(value) and value >= 0):
                raise ValueError("%s must be a finite number >= 0, got %r" %
                                 (name, value))
        if len(self.betas) != 2 or not all(
                math.isfinite(b) and 0 <= b < 1 for b in self.betas):
            raise ValueError("betas must be two numbers in [0, 1), got %r" %
                             (self.betas,))

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
        ``named_parameters()`` order)."""
        groups = saved.get("param_groups", [])
        if len(groups) != 1:
            raise ValueError("the optimizer state has %d parameter groups; "
                             "a compiled step has one" % len(groups))
        group = groups[0]
        if len(group.get("params", [])) != len(params):
            raise ValueError("the optimizer state is for %d parameters; the "
                             "module has %d" % (len(group.get("params", [])),
                                                len(params)))
        for key in ("amsgrad", "nesterov", "maximize"):
            if group.get(key):
                raise ValueError("the compiled step does not do %s" % key)
        if group.get("dampening", 0):
            raise ValueError("the compiled step's momentum has no dampening")
        self.lr = group.get("lr", self.lr)
        self.weight_decay = group.get("weight_decay", self.weight_decay)
        self.momentum = group.get("momentum", self.momentum)
        self.betas = tuple(group.get("betas", self.betas))
        self.eps = group.get("eps", self.eps)
        self.check()
        names = STATE_NAMES[self.kind]
        state, count = [], 0
        for i, (key, p) in enumerate(zip(group["params"], params)):
            entry = saved.get("state", {}).get(key, {})
            per_param = []
            for name in names:
                t = entry.get(name)
                if t is None:  # torch's SGD before its first step
                    t = torch.zeros(p.shape)
                if tuple(t.shape) != tuple(p.shape):
                    raise ValueError("state %r of parameter %d is %s, not %s"
                                     % (name, i, tuple(t.shape),
                                        tuple(p.shape)))
                per_param.append(t.detach().to(torch.float32).contiguous()
                                 .clone())
            state.append(per_param)
            if "step" in entry:
                count = int(float(entry["step"]))
        self.state = state
        self.count = count
