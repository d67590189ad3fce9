"""echo.torch.compile_step(optimizer=...) against torch.optim (see
compile-step-optimizer.test): prints one line per property."""
import copy

import torch
import torch.nn.functional as F

import echo.torch

torch.manual_seed(0)

from small_cnn import Net, rel  # noqa: E402


x = torch.randn(8, 1, 8, 8)
y = torch.randint(0, 10, (8,))
base = Net()

CASES = [
    ("momentum", dict(lr=0.05, momentum=0.9),
     lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9)),
    ("momentum", dict(lr=0.05, momentum=0.8, weight_decay=1e-2),
     lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.8, weight_decay=1e-2)),
    ("adam", dict(lr=1e-2),
     lambda ps: torch.optim.Adam(ps, lr=1e-2)),
    ("adam", dict(lr=1e-2, betas=(0.8, 0.99), eps=1e-6, weight_decay=1e-2),
     lambda ps: torch.optim.Adam(ps, lr=1e-2, betas=(0.8, 0.99), eps=1e-6,
                                 weight_decay=1e-2)),
    ("adamw", dict(lr=1e-2),
     lambda ps: torch.optim.AdamW(ps, lr=1e-2)),
]

# The same 5 steps as torch.optim on the same model, with an LR schedule
# (step.lr set before each step, as StepLR sets PyTorch's).
for kind, kwargs, make in CASES:
    model, ref = copy.deepcopy(base), copy.deepcopy(base)
    step = echo.torch.compile_step(model, (x,), y, optimizer=kind, **kwargs)
    opt = make(ref.parameters())
    sched = torch.optim.lr_scheduler.StepLR(opt, 2, 0.5)
    worst_loss = 0.0
    for i in range(5):
        step.lr = opt.param_groups[0]["lr"]
        loss = step(x, labels=y)
        opt.zero_grad()
        ref_loss = F.cross_entropy(ref(x), y)
        ref_loss.backward()
        opt.step()
        sched.step()
        worst_loss = max(worst_loss, abs(float(loss) - float(ref_loss)) /
                         abs(float(ref_loss)))
    worst = max(rel(p, q) for p, q in zip(model.parameters(),
                                          ref.parameters()))
    print("%s %s: 5 steps, loss within 1e-6: %s, parameters within 1e-6: %s, "
          "no gradient written: %s" % (
              kind, sorted(kwargs), worst_loss <= 1e-6, worst <= 1e-6,
              all(p.grad is None for p in model.parameters())))

# The state, as torch.optim's state_dict() lays it out: after 5 steps it is
# PyTorch's (exp_avg_sq within 1e-4: with the hyperparameters in f32,
# 1 - 0.999 is 1.3e-5 off); PyTorch's state loaded into a step continues
# as PyTorch does.
saved = step.optimizer_state()
ref_state = opt.state_dict()
same_layout = (sorted(saved["state"][0]) == sorted(ref_state["state"][0]) and
               len(saved["state"]) == len(ref_state["state"]))
close = all(rel(saved["state"][i]["exp_avg"], ref_state["state"][i]["exp_avg"])
            <= 1e-5 and rel(saved["state"][i]["exp_avg_sq"],
                            ref_state["state"][i]["exp_avg_sq"]) <= 1e-4
            for i in ref_state["state"])
print("optimizer_state(): torch's layout: %s, PyTorch's values: %s, step %d"
      % (same_layout, close, int(saved["state"][0]["step"])))
fresh = copy.deepcopy(ref)
resumed = echo.torch.compile_step(fresh, (x,), y, optimizer="adamw")
resumed.load_optimizer_state(opt.state_dict())
loss = resumed(x, labels=y)
opt.zero_grad()
F.cross_entropy(ref(x), y).backward()
opt.step()
print("load_optimizer_state(torch's state_dict()) then a step matches "
      "PyTorch: %s" % (max(rel(p, q) for p, q in zip(
          fresh.parameters(), ref.parameters())) <= 1e-6))

# Every recompute strategy updates the parameters bitwise alike.
results = {}
for strategy in ("none", "mirror", "sublinear", "echo"):
    model = copy.deepcopy(base)
    step = echo.torch.compile_step(model, (x,), y, optimizer="adam", lr=1e-2,
                                   strategy=strategy)
    losses = [float(step(x, labels=y)) for _ in range(3)]
    results[strategy] = (losses, [p.detach().clone()
                                  for p in model.parameters()])
first = results["none"]
print("strategies none, mirror, sublinear, echo bitwise equal: %s" % all(
    r[0] == first[0] and all(torch.equal(a, b) for a, b in zip(r[1], first[1]))
    for r in results.values()))

report = step.memory_report()
state_bytes = 2 * sum(p.numel() * 4 for p in base.parameters())
print("report: optimizer_state_bytes is 2x the parameters: %s; measured == "
      "step_bytes + workspace: %s" % (
          report["optimizer_state_bytes"] == state_bytes,
          report["measured_peak_bytes"] ==
          report["step_bytes"] + report["library_workspace_bytes"]))

for what, call in [
        ("unknown optimizer", lambda: echo.torch.compile_step(
            base, (x,), y, optimizer="lamb")),
        ("momentum without lr", lambda: echo.torch.compile_step(
            base, (x,), y, optimizer="momentum")),
        ("bad betas", lambda: echo.torch.compile_step(
            base, (x,), y, optimizer="adam", betas=(0.9, 1.0))),
        ("accumulate_grad", lambda: echo.torch.compile_step(
            base, (x,), y, optimizer="adam", accumulate_grad=True)),
        ("no optimizer", lambda: echo.torch.compile_step(
            base, (x,), y).optimizer_state())]:
    try:
        call()
        print("%s: no error" % what)
    except (ValueError, RuntimeError) as e:
        print("%s: %s: %s" % (what, type(e).__name__, str(e).splitlines()[0]))
