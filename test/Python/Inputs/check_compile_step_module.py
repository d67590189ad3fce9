"""echo.torch.compile_step when the module changes or freezes parameters
(see compile-step-module.test): parameters replaced by tensors of other
shapes, removed or added, an activation swapped or a dropout rate changed
after compiling, requires_grad=False (a frozen backbone, LoRA style; a
distillation teacher), a parameter the loss does not read, a submodule in
eval mode. Each step must be the step of the module as it is at the call.
Prints one line per property."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

import echo.torch

torch.manual_seed(0)


def rel(a, b):
    return float((a - b).norm() / max(float(b.norm()), 1e-30))


class Mlp(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.fc1 = nn.Linear(8, hidden)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(hidden, 5)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def matches(model, step, x, y, what):
    """One step of `step` against PyTorch eager on a copy of `model`."""
    ref = copy.deepcopy(model)
    for p in model.parameters():
        p.grad = None
    loss = step(x, labels=y)
    ref_loss = F.cross_entropy(ref(x), y)
    ref_loss.backward()
    grads = [rel(p.grad, q.grad) for p, q in
             zip(model.parameters(), ref.parameters())
             if q.grad is not None]
    ok = abs(float(loss) - float(ref_loss)) <= 1e-6 * float(ref_loss) and \
        max(grads) <= 1e-5 and all(
            (p.grad is None) == (q.grad is None)
            for p, q in zip(model.parameters(), ref.parameters()))
    print("%s: matches PyTorch: %s" % (what, ok))


x = torch.randn(4, 8)
y = torch.randint(0, 5, (4,))
model = Mlp()
step = echo.torch.compile_step(model, (x,), y, strategy="none")
matches(model, step, x, y, "as compiled")

# Parameters replaced after compiling: smaller, the same element count in
# another shape, larger; then one removed and one added.
model.fc1.weight = nn.Parameter(torch.randn(12, 8) * 0.3)
model.fc1.bias = nn.Parameter(torch.randn(12) * 0.3)
model.fc2.weight = nn.Parameter(torch.randn(5, 12) * 0.3)
matches(model, step, x, y, "smaller hidden layer")
model.fc1 = nn.Linear(8, 10)
model.fc2 = nn.Linear(10, 5)
matches(model, step, x, y, "same count, another shape")
model.fc1 = nn.Linear(8, 40)
model.fc2 = nn.Linear(40, 5)
matches(model, step, x, y, "larger hidden layer")
model.fc1.bias = None
matches(model, step, x, y, "a bias removed")
model.fc1.bias = nn.Parameter(torch.zeros(40))
matches(model, step, x, y, "a bias added back")
# A parameter replaced by one of the same shape is read where it is now.
model.fc2.weight = nn.Parameter(torch.randn(5, 40))
matches(model, step, x, y, "a weight replaced in place of the same shape")

# The module's structure and hyperparameters after compiling.
model.act = nn.GELU()
matches(model, step, x, y, "activation swapped to GELU")
model.act = nn.Tanh()
matches(model, step, x, y, "activation swapped to Tanh")
print("variants compiled: %d" % len(step._variants))

# A dropout rate changed after compiling: the step takes the new rate
# (p=0 gives PyTorch's loss exactly; p=0.5 zeroes about half the units).
class Dropped(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 64)
        self.drop = nn.Dropout(0.0)
        self.fc2 = nn.Linear(64, 5)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


dropped = Dropped()
dstep = echo.torch.compile_step(dropped, (x,), y, strategy="none")
matches(dropped, dstep, x, y, "dropout 0")
dropped.drop.p = 0.9
losses = [float(dstep(x, labels=y)) for _ in range(4)]
with torch.no_grad():
    clean = float(F.cross_entropy(dropped.fc2(torch.relu(dropped.fc1(x))),
                                  y))
print("dropout raised to 0.9 after compiling: losses differ from the "
      "dropout-free loss and from each other: %s" % (
          all(abs(l - clean) > 1e-6 for l in losses) and
          len(set(losses)) == len(losses)))

# Frozen parameters: a LoRA-style fine-tune (backbone requires_grad=False).
class Lora(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(8, 16)
        self.a = nn.Parameter(torch.randn(4, 8) * 0.1)
        self.b = nn.Parameter(torch.zeros(16, 4))
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        return self.head(torch.relu(self.base(x) + x @ self.a.t() @ self.b.t()))


lora = Lora()
for p in list(lora.base.parameters()) + list(lora.head.parameters()):
    p.requires_grad_(False)
ref = copy.deepcopy(lora)
frozen_before = [p.clone() for p in lora.base.parameters()]
lstep = echo.torch.compile_step(lora, (x,), y, strategy="echo")
opt = torch.optim.AdamW([p for p in lora.parameters() if p.requires_grad],
                        lr=1e-2)
ref_opt = torch.optim.AdamW([p for p in ref.parameters() if p.requires_grad],
                            lr=1e-2)
for _ in range(5):
    lstep(x, labels=y)
    opt.step()
    opt.zero_grad()
    F.cross_entropy(ref(x), y).backward()
    ref_opt.step()
    ref_opt.zero_grad()
print("LoRA, frozen backbone, torch AdamW 5 steps: frozen grads None: %s, "
      "frozen unchanged: %s, trained within 1e-5: %s" % (
          all(p.grad is None for p in lora.base.parameters()),
          all(torch.equal(p, q) for p, q in
              zip(lora.base.parameters(), frozen_before)),
          max(rel(p, q) for p, q in zip(lora.parameters(),
                                        ref.parameters())) <= 1e-5))
report = lstep.memory_report()
print("report: %d frozen parameters, %d bytes" % (
    report["frozen_parameters"], report["frozen_parameter_bytes"]))

# The same with AdamW inside the step.
lora2 = copy.deepcopy(ref)
ref2 = copy.deepcopy(ref)
in_step = echo.torch.compile_step(lora2, (x,), y, optimizer="adamw", lr=1e-2)
ref_opt = torch.optim.AdamW([p for p in ref2.parameters() if p.requires_grad],
                            lr=1e-2)
frozen_before = [p.clone() for p in lora2.base.parameters()]
for _ in range(5):
    in_step(x, labels=y)
    F.cross_entropy(ref2(x), y).backward()
    ref_opt.step()
    ref_opt.zero_grad()
print("LoRA, AdamW inside the step: frozen unchanged: %s, trained within "
      "1e-5: %s, state for %d parameters" % (
          all(torch.equal(p, q) for p, q in
              zip(lora2.base.parameters(), frozen_before)),
          max(rel(p, q) for p, q in zip(lora2.parameters(),
                                        ref2.parameters())) <= 1e-5,
          len(in_step.optimizer_state()["state"])))


# Distillation: a frozen teacher run under no_grad inside forward.
class Distill(nn.Module):
    def __init__(self):
        super().__init__()
        self.teacher = nn.Linear(8, 5)
        self.student = nn.Linear(8, 5)
        for p in self.teacher.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        with torch.no_grad():
            t = self.teacher(x)
        return self.student(x) + 0.5 * torch.tanh(t)


distill = Distill()
dst = echo.torch.compile_step(distill, (x,), y, strategy="echo")
matches(distill, dst, x, y, "distillation, no_grad teacher")


# A parameter the loss does not read, with Adam eps=0 inside the step:
# PyTorch leaves it (no gradient); Echo must not turn it into NaN.
class Unused(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 5)
        self.spare = nn.Linear(8, 5)

    def forward(self, x):
        return self.fc(x)


unused = Unused()
spare = [p.clone() for p in unused.spare.parameters()]
ustep = echo.torch.compile_step(unused, (x,), y, optimizer="adam", lr=1e-2,
                                eps=0.0)
for _ in range(3):
    ustep(x, labels=y)
print("unread parameter, Adam eps=0: unchanged and finite: %s" % all(
    torch.equal(p, q) for p, q in zip(unused.spare.parameters(), spare)))

# A submodule in eval mode (a frozen batch norm) is refused, not trained
# with batch statistics.
model.train()
model.fc1.eval()
try:
    step(x, labels=y)
    print("eval-mode submodule: no error")
except ValueError as e:
    print("eval-mode submodule: ValueError: %s" % str(e).splitlines()[0])
model.train()
# float64 parameters are refused with a message.
model.double()
try:
    step(x, labels=y)
    print("float64 parameters: no error")
except ValueError as e:
    print("float64 parameters: ValueError: %s" % str(e).splitlines()[0])
