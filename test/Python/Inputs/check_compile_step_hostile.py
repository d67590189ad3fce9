"""echo.torch.compile_step against a user's everyday and malicious
mistakes (see compile-step-hostile.test): what the step cannot honour is
refused with a typed error, never trained silently wrong. Prints one line
per property."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

import echo.torch

torch.manual_seed(0)


def rel(a, b):
    return float((a - b).norm() / max(float(b.norm()), 1e-30))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 5)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


x = torch.randn(4, 6)
y = torch.randint(0, 5, (4,))


def matches(model, step, inputs=(x,), labels=y):
    """One step against PyTorch's autograd on a copy of the model."""
    ref = copy.deepcopy(model)
    for p in model.parameters():
        p.grad = None
    ref_loss = F.cross_entropy(ref(*inputs), labels)
    ref_loss.backward()
    loss = step(*inputs, labels=labels)
    return abs(float(loss) - float(ref_loss)) <= 1e-6 * abs(
        float(ref_loss)) and max(
            rel(p.grad, q.grad) for p, q in
            zip(model.parameters(), ref.parameters())) <= 1e-5


def outcome(what, call):
    try:
        result = call()
        print("%s: %s" % (what, result))
    except Exception as e:
        print("%s: %s: %s" % (what, type(e).__name__,
                              str(e).splitlines()[0]))


# Forward hooks and pre-hooks added or removed after compiling: the step of
# the module as it runs now.
model = MLP()
step = echo.torch.compile_step(model, (x,), y, strategy="none")
handle = model.fc1.register_forward_hook(lambda m, i, o: o * 2)
outcome("forward hook added", lambda: matches(model, step))
handle.remove()
outcome("forward hook removed", lambda: matches(model, step))
handle = model.fc2.register_forward_pre_hook(lambda m, i: (i[0] * 3,))
outcome("forward pre-hook added", lambda: matches(model, step))
handle.remove()
handle = nn.modules.module.register_module_forward_hook(
    lambda m, i, o: o * 2 if isinstance(m, nn.Linear) else None)
outcome("global forward hook added", lambda: matches(model, step))
handle.remove()
outcome("no hook", lambda: matches(model, step))

# Backward hooks: the step computes the gradients itself and would skip
# them.
handle = model.fc2.register_full_backward_hook(
    lambda m, gi, go: (gi[0] * 5,))
outcome("module backward hook", lambda: step(x, labels=y))
outcome("module backward hook at compile_step",
        lambda: echo.torch.compile_step(model, (x,), y, strategy="none"))
handle.remove()
handle = model.fc1.weight.register_hook(lambda g: g.clamp(-1e-3, 1e-3))
outcome("parameter gradient hook", lambda: step(x, labels=y))
handle.remove()
outcome("hooks removed", lambda: matches(model, step))

# Inputs that require grad: the step computes no gradient for them, nor
# for what they were computed from.
encoder = nn.Linear(6, 6)
outcome("input computed by another module",
        lambda: step(encoder(x), labels=y))
outcome("input that requires grad",
        lambda: step(x.clone().requires_grad_(), labels=y))
outcome("the same input detached",
        lambda: matches(model, step, (encoder(x).detach(),)))


class Square(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 5)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


square = Square()
labels6 = torch.randint(0, 5, (6,))
square_step = echo.torch.compile_step(square, (square.a.weight.detach(),),
                                      labels6, strategy="none")
outcome("a parameter as the input",
        lambda: square_step(square.a.weight, labels=labels6))


# A buffer the forward updates in place (and reads): the step would keep
# its value at compile time.
class Smoothed(MLP):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.zeros(6))

    def forward(self, x):
        self.mean.mul_(0.9).add_(0.1 * x.mean(0))
        return super().forward(x - self.mean)


outcome("buffer updated in forward",
        lambda: echo.torch.compile_step(Smoothed(), (x,), y,
                                        strategy="none"))
bn = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.Linear(8, 5))
outcome("batch norm's running statistics (left to "
        "update_batch_norm_statistics)",
        lambda: type(echo.torch.compile_step(bn, (x,), y,
                                             strategy="none")).__name__)

# Quantized inputs are not integers.
outcome("quantized input", lambda: step(
    torch.quantize_per_tensor(x, 0.1, 0, torch.qint8), labels=y))

# A refused hyperparameter leaves the step as it was.
model = MLP()
step = echo.torch.compile_step(model, (x,), y, strategy="none",
                               optimizer="adam", lr=1e-2)
outcome("betas (nan, 0.9)", lambda: step.set_optimizer_hyperparameters(
    betas=(float("nan"), 0.9)))
outcome("then eps=0", lambda: step.set_optimizer_hyperparameters(eps=0.0))
outcome("weight_decay=-1", lambda: step.set_optimizer_hyperparameters(
    weight_decay=-1.0, eps=1e-6))
outcome("hyperparameters after", lambda: step.optimizer_hyperparameters)
outcome("lr = nan", lambda: setattr(step, "lr", float("nan")))
outcome("lr = 1e39 (past float32)", lambda: setattr(step, "lr", 1e39))
outcome("lr after", lambda: step.lr)
outcome("the step runs", lambda: bool(torch.isfinite(step(x, labels=y))))


# Memory shared between what the step reads and what it writes.
class Deep(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 6)
        self.c = nn.Linear(6, 5)

    def forward(self, x):
        return self.c(torch.tanh(self.b(torch.tanh(self.a(x)))))


# A batch that views a parameter the optimizer inside the step updates
# before it reads the batch again (b's, updated before a's gradient).
torch.manual_seed(1)
deep = Deep()
ref = copy.deepcopy(deep)
deep_step = echo.torch.compile_step(deep, (deep.b.weight.detach(),), labels6,
                                    strategy="none", optimizer="adam", lr=0.5)
opt = torch.optim.Adam(ref.parameters(), lr=0.5)
for _ in range(2):
    loss = deep_step(deep.b.weight.detach(), labels=labels6)
    opt.zero_grad()
    ref_loss = F.cross_entropy(ref(ref.b.weight.detach().clone()), labels6)
    ref_loss.backward()
    opt.step()
print("a batch viewing an updated parameter: loss within 1e-5: %s, "
      "parameters within 1e-5: %s" % (
          abs(float(loss) - float(ref_loss)) <= 1e-5 * abs(float(ref_loss)),
          max(rel(p.detach(), q.detach()) for p, q in
              zip(deep.parameters(), ref.parameters())) <= 1e-5))

# A p.grad that is the batch itself: written after the step has read it.
deep = Deep()
batch = torch.randn(6, 6)
deep_step = echo.torch.compile_step(deep, (batch,), labels6, strategy="none")
ref = copy.deepcopy(deep)
F.cross_entropy(ref(batch.clone()), labels6).backward()
deep.b.weight.grad = batch
deep_step(batch, labels=labels6)
print("p.grad that is the batch: gradients within 1e-5: %s" % (
    max(rel(p.grad, q.grad) for p, q in
        zip(deep.parameters(), ref.parameters())) <= 1e-5))
deep.a.bias.grad = torch.zeros(1).expand(6)
outcome("an expanded p.grad", lambda: deep_step(batch.clone(),
                                                labels=labels6))

# An $ECHO_RUN that is not Echo's: a typed error, and nothing it made is
# kept in the cache.
import os  # noqa: E402
import tempfile  # noqa: E402

fake_dir = tempfile.mkdtemp()
fakes = {
    "exits 0, makes nothing": "#!/bin/sh\nexit 0\n",
    "makes a file that is no library": (
        "#!/bin/sh\nfor a; do case $a in --emit-library=*) "
        "d=${a#--emit-library=}; mkdir -p $d; "
        "echo garbage > $d/libechostep.so;; esac; done\n")}
real = os.environ["ECHO_RUN"]
for n, (what, text) in enumerate(sorted(fakes.items())):
    path = os.path.join(fake_dir, "fake%d" % n)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    os.environ["ECHO_RUN"] = path
    for attempt in ("", ", again"):
        outcome("$ECHO_RUN %s%s" % (what, attempt),
                lambda: echo.torch.compile_step(MLP(), (x,), y,
                                                strategy="none"))
os.environ["ECHO_RUN"] = real
outcome("the real echo-run after", lambda: type(
    echo.torch.compile_step(MLP(), (x,), y, strategy="none")).__name__)
