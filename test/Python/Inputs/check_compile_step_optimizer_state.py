"""Step.load_optimizer_state on valid and malformed state_dicts (see
compile-step-optimizer-state.test): prints one line per case."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

import echo.torch

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def rel(a, b):
    return float((a - b).norm() / max(float(b.norm()), 1e-30))


x = torch.randn(5, 6)
y = torch.randint(0, 3, (5,))
base = MLP()

TORCH = {
    "momentum": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9,
                                           weight_decay=1e-2),
    "adam": lambda ps: torch.optim.Adam(ps, lr=1e-2, betas=(0.8, 0.99)),
    "adamw": lambda ps: torch.optim.AdamW(ps, lr=1e-2),
}
OPTIONS = {"momentum": dict(lr=0.01, momentum=0.5),
           "adam": dict(lr=1e-3), "adamw": dict(lr=1e-3)}


def torch_steps(kind, steps, schedule=False):
    """A copy of ``base`` and torch's optimizer after ``steps`` steps."""
    ref = copy.deepcopy(base)
    opt = TORCH[kind](ref.parameters())
    sched = torch.optim.lr_scheduler.StepLR(opt, 1, 0.5) if schedule \
        else None
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(ref(x), y).backward()
        opt.step()
        if sched:
            sched.step()
    return ref, opt


def snapshot(step):
    """Everything load_optimizer_state may change."""
    o = step._optimizer
    return (dict(step.optimizer_hyperparameters), o.count,
            None if o.state is None else [[t.clone() for t in ts]
                                          for ts in o.state])


def same(a, b):
    if a[0] != b[0] or a[1] != b[1] or (a[2] is None) != (b[2] is None):
        return False
    return a[2] is None or all(torch.equal(s, t) for ss, ts in zip(a[2], b[2])
                               for s, t in zip(ss, ts))


steps = {kind: echo.torch.compile_step(copy.deepcopy(base), (x,), y,
                                       optimizer=kind, **OPTIONS[kind])
         for kind in TORCH}

# torch.optim's state_dicts (after 2 steps; an LR schedule's initial_lr in
# the group; SGD before its first step; float64 state) and the step's own
# keep loading: one more step continues as PyTorch.
for kind, schedule, before in [("momentum", False, 2), ("momentum", False, 0),
                               ("adam", True, 2), ("adamw", False, 2)]:
    ref, opt = torch_steps(kind, before, schedule)
    model = copy.deepcopy(ref)
    step = echo.torch.compile_step(model, (x,), y, optimizer=kind,
                                   **OPTIONS[kind])
    step.load_optimizer_state(opt.state_dict())
    step(x, labels=y)
    opt.zero_grad()
    F.cross_entropy(ref(x), y).backward()
    opt.step()
    worst = max(rel(p, q) for p, q in zip(model.parameters(),
                                          ref.parameters()))
    print("%s: torch's state_dict after %d steps%s loads; the next step "
          "matches PyTorch within 1e-6: %s" % (
              kind, before, " (LR schedule)" if schedule else "",
              worst <= 1e-6))
for kind, step in steps.items():
    _, opt = torch_steps(kind, 2)
    step.load_optimizer_state(opt.state_dict())
    saved = step.optimizer_state()
    wide = copy.deepcopy(saved)
    for entry in wide["state"].values():
        for name, t in entry.items():
            if name != "step":
                entry[name] = t.double()
    step.load_optimizer_state(wide)
    print("%s: its own optimizer_state() and a float64 copy load: %s" % (
        kind, same(snapshot(step), (dict(step.optimizer_hyperparameters),
                                    step._optimizer.count,
                                    [[t for n, t in sorted(
                                        saved["state"][i].items())
                                      if n != "step"] for i in
                                     sorted(saved["state"])]))))


def mutate(saved, fn):
    saved = copy.deepcopy(saved)
    fn(saved)
    return saved


def entry(i, name, value):
    def fn(saved):
        saved["state"][i][name] = value
    return fn


def group(key, value):
    def fn(saved):
        if value is _DELETE:
            del saved["param_groups"][0][key]
        else:
            saved["param_groups"][0][key] = value
    return fn


_DELETE = object()


def string_keys(saved):
    saved["state"] = {str(k): v for k, v in saved["state"].items()}


def string_ids(saved):
    saved["param_groups"][0]["params"] = [
        str(i) for i in saved["param_groups"][0]["params"]]


def shape_and_lr(saved):
    saved["param_groups"][0]["lr"] = 0.5
    saved["param_groups"][0]["weight_decay"] = 0.25
    name = next(n for n in saved["state"][2] if n != "step")
    saved["state"][2][name] = torch.zeros(3, 3)


def steps_differ(saved):
    saved["state"][1]["step"] = saved["state"][1]["step"] + 1


def drop_entry(saved):
    del saved["state"][3]


def two_groups(saved):
    saved["param_groups"].append(copy.deepcopy(saved["param_groups"][0]))


def state_for_unknown(saved):
    saved["state"][99] = copy.deepcopy(saved["state"][0])


# Malformed state_dicts: each a TypeError or ValueError that says what is
# wrong, and nothing of it applied (hyperparameters, state and step count
# as before).
for kind, step in steps.items():
    _, opt = torch_steps(kind, 2)
    good = opt.state_dict()
    step.load_optimizer_state(good)
    other = torch_steps("momentum" if kind != "momentum" else "adam", 2)[1]
    name = "momentum_buffer" if kind == "momentum" else "exp_avg"
    cases = [
        ("None", None),
        ("a list", [good]),
        ("no param_groups", {"state": good["state"]}),
        ("an extra key", dict(good, extra=1)),
        ("another optimizer's", other.state_dict()),
        ("string keys", mutate(good, string_keys)),
        ("string parameter ids", mutate(good, string_ids)),
        ("a shape mismatch after its lr", mutate(good, shape_and_lr)),
        ("NaN state", mutate(good, entry(0, name, torch.full_like(
            good["state"][0][name], float("nan"))))),
        ("infinite state", mutate(good, entry(1, name, torch.full_like(
            good["state"][1][name], float("inf"))))),
        ("integer state", mutate(good, entry(0, name, torch.zeros_like(
            good["state"][0][name], dtype=torch.int64)))),
        ("a list as state", mutate(good, entry(0, name, [0.0]))),
        ("an unknown state name", mutate(good, entry(0, "max_exp_avg_sq",
                                                     good["state"][0][name]))),
        ("two parameter groups", mutate(good, two_groups)),
        ("state of a parameter not in the group",
         mutate(good, state_for_unknown)),
        ("lr NaN", mutate(good, group("lr", float("nan")))),
        ("lr a string", mutate(good, group("lr", "0.1"))),
        ("lr True", mutate(good, group("lr", True))),
        ("lr missing", mutate(good, group("lr", _DELETE))),
        ("weight_decay negative", mutate(good, group("weight_decay", -1.0))),
        ("parameter ids repeated", mutate(good, group("params",
                                                      [0, 0, 1, 2]))),
        ("one parameter id short", mutate(good, group("params", [0, 1, 2]))),
    ]
    if kind == "momentum":
        cases += [
            ("momentum missing", mutate(good, group("momentum", _DELETE))),
            ("dampening", mutate(good, group("dampening", 0.1))),
            ("nesterov", mutate(good, group("nesterov", True))),
            ("an Adam group key", mutate(good, group("betas", (0.9, 0.99)))),
            ("Adam's step", mutate(good, entry(0, "step", torch.tensor(2.)))),
        ]
    else:
        cases += [
            ("betas missing", mutate(good, group("betas", _DELETE))),
            ("three betas", mutate(good, group("betas", (0.9, 0.99, 0.5)))),
            ("beta 1", mutate(good, group("betas", (1.0, 0.99)))),
            ("eps Infinity", mutate(good, group("eps", float("inf")))),
            ("amsgrad", mutate(good, group("amsgrad", True))),
            ("an SGD group key", mutate(good, group("momentum", 0.9))),
            ("SGD's momentum_buffer", mutate(good, entry(
                0, "momentum_buffer", good["state"][0]["exp_avg"]))),
            ("negative exp_avg_sq", mutate(good, entry(
                0, "exp_avg_sq", -good["state"][0]["exp_avg_sq"] - 1))),
            ("exp_avg_sq missing", mutate(good, lambda s: s["state"][0].pop(
                "exp_avg_sq"))),
            ("step differs across parameters", mutate(good, steps_differ)),
            ("step missing", mutate(good, lambda s: s["state"][0].pop(
                "step"))),
            ("step fractional", mutate(good, entry(0, "step",
                                                   torch.tensor(2.5)))),
            ("step negative", mutate(good, entry(0, "step", -2))),
            ("a parameter without state", mutate(good, drop_entry)),
        ]
    refused = unchanged = 0
    for what, saved in cases:
        before = snapshot(step)
        try:
            step.load_optimizer_state(saved)
            result = "loaded"
        except (TypeError, ValueError) as e:
            result = "%s: %s" % (type(e).__name__, str(e).splitlines()[0])
            refused += 1
        except Exception as e:  # noqa: BLE001 -- what should not escape
            result = "raw %s: %s" % (type(e).__name__, e)
        kept = same(before, snapshot(step))
        unchanged += kept
        print("%s %s: %s; unchanged: %s" % (kind, what, result, kept))
    print("%s: %d malformed state_dicts, %d refused with a TypeError or "
          "ValueError, %d left the step unchanged" % (
              kind, len(cases), refused, unchanged))
