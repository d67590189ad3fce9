"""echo.torch.compile_step(precision=...) (see compile-step-precision.test):
prints one line per property."""
import copy

import torch
import torch.nn.functional as F

import echo.torch

torch.manual_seed(0)

from small_cnn import Net, rel  # noqa: E402

model = Net()
ref = copy.deepcopy(model)
amp = copy.deepcopy(model)
x = torch.randn(8, 1, 8, 8)
y = torch.randint(0, 10, (8,))
step = echo.torch.compile_step(model, (x,), y, precision="bf16")
loss = step(x, labels=y)
ref_loss = F.cross_entropy(ref(x), y)
ref_loss.backward()
print("bf16 loss within 2%% of f32 eager: %s" %
      (abs(float(loss) - float(ref_loss)) <= 2e-2 * abs(float(ref_loss))))
grads = [p.grad for p in model.parameters()]
print("gradients are f32: %s" % all(g.dtype == torch.float32 for g in grads))
# PyTorch's own bf16 autocast on the CPU, for scale: bf16 GEMM inputs put
# both a few 1e-3 to 1e-2 from f32.
with torch.autocast("cpu", dtype=torch.bfloat16):
    amp_loss = F.cross_entropy(amp(x), y)
amp_loss.backward()
print("gradients within 2x PyTorch bf16 autocast's distance to f32: %s" % all(
    rel(g, p.grad) <= 2 * rel(a.grad, p.grad)
    for g, p, a in zip(grads, ref.parameters(), amp.parameters())))
f32_step = echo.torch.compile_step(copy.deepcopy(ref), (x,), y)
print("stashes fewer bytes than the f32 step: %s" % (
    step.memory_report()["feature_map_bytes"] <
    f32_step.memory_report()["feature_map_bytes"]))
try:
    echo.torch.compile_step(model, (x,), y, precision="f16")
except ValueError as e:
    print("f16: ValueError: %s" % e)
