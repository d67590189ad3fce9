"""echo.torch.compile_step inside a PyTorch loop (see compile-step.test):
prints one line per property."""
import copy
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

import echo.torch

torch.manual_seed(0)

from small_cnn import Net, rel  # noqa: E402


model = Net()
ref = copy.deepcopy(model)
x = torch.randn(8, 1, 8, 8)
y = torch.randint(0, 10, (8,))
step = echo.torch.compile_step(model, (x,), y, loss="cross_entropy",
                               strategy="echo")
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
ref_opt = torch.optim.Adam(ref.parameters(), lr=1e-2)
sched = torch.optim.lr_scheduler.StepLR(opt, 2, 0.5)
ref_sched = torch.optim.lr_scheduler.StepLR(ref_opt, 2, 0.5)
worst_loss = 0.0
for i in range(5):
    loss = step(x, labels=y)
    opt.step(); opt.zero_grad(); sched.step()
    ref_loss = F.cross_entropy(ref(x), y)
    ref_loss.backward(); ref_opt.step(); ref_opt.zero_grad(); ref_sched.step()
    worst_loss = max(worst_loss, abs(float(loss) - float(ref_loss)) /
                     abs(float(ref_loss)))
worst = max(rel(p, q) for p, q in zip(model.parameters(), ref.parameters()))
print("adam+steplr 5 steps: loss within 1e-6: %s, parameters within 1e-6: %s"
      % (worst_loss <= 1e-6, worst <= 1e-6))

# Gradients: overwritten by default, added with accumulate_grad=True.
model.zero_grad()
step(x, labels=y)
g1 = [p.grad.clone() for p in model.parameters()]
step(x, labels=y)
print("overwrites p.grad: %s" % all(torch.equal(a, p.grad)
                                   for a, p in zip(g1, model.parameters())))
acc = echo.torch.compile_step(model, (x,), y, accumulate_grad=True)
acc(x, labels=y)
print("accumulates into p.grad: %s" % all(
    rel(p.grad, 2 * a) <= 1e-6 for a, p in zip(g1, model.parameters())))
model.zero_grad(set_to_none=True)
acc(x, y)
print("labels may be positional; a None grad is created: %s" % all(
    torch.equal(a, p.grad) for a, p in zip(g1, model.parameters())))

# The step reads the module's parameters where they are: a loaded state
# dict is what the next step sees.
state = copy.deepcopy(ref.state_dict())
model.load_state_dict(state)
ref.zero_grad()
F.cross_entropy(ref(x), y).backward()
loss = step(x, labels=y)
print("load_state_dict then step matches PyTorch: %s" % (
    abs(float(loss) - float(F.cross_entropy(ref(x), y))) <= 1e-6 and
    max(rel(p.grad, q.grad) for p, q in
        zip(model.parameters(), ref.parameters())) <= 1e-5))

# Another batch size compiles a second step, cached beside the first.
x2, y2 = torch.randn(3, 1, 8, 8), torch.randint(0, 10, (3,))
loss2 = step(x2, labels=y2)
print("second shape: %d steps compiled, loss matches: %s" % (
    len(step._variants), abs(float(loss2) - float(F.cross_entropy(
        model(x2), y2))) <= 1e-5))

report = step.memory_report()
print("report: measured_peak_bytes == step_bytes + library workspace: %s" % (
    report["measured_peak_bytes"] ==
    report["step_bytes"] + report["library_workspace_bytes"]))
print("cache: %d steps under ECHO_CACHE_DIR" % len(
    [d for d in os.listdir(os.environ["ECHO_CACHE_DIR"])
     if not d.startswith(".")]))

for what, call in [
        ("cuda target", lambda: echo.torch.compile_step(model, (x,), y,
                                                        target="cuda")),
        ("bad loss", lambda: echo.torch.compile_step(model, (x,), y,
                                                     loss="nll")),
        ("not a module", lambda: echo.torch.compile_step(len, (x,), y)),
        ("no labels", lambda: step()),
        ("untraceable", lambda: echo.torch.compile_step(
            type("Bad", (nn.Linear,), {"forward": lambda self, t: t
                                       if t.sum() > 0 else -t})(8, 10),
            (torch.randn(2, 8),), torch.randint(0, 10, (2,))))]:
    try:
        call()
        print("%s: no error" % what)
    except (ValueError, TypeError, echo.torch.CompileError) as e:
        print("%s: %s: %s" % (what, type(e).__name__,
                              str(e).splitlines()[0]))
