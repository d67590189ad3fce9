"""Attention idioms of attention_idioms.py through the importer's default
(fused) attention (see import-torch-attention.test). For each model:

- the imported function holds echo.attention (causal = true for the causal
  masks; a key-padding bias [B, 1, 1, T] for BERT) and no T×T value (no
  tensor type with two trailing dims T, T);
- attention="materialized" keeps the ops as written (no echo.attention);
- one compile_step step gives PyTorch f64 autograd's loss and every
  gradient within max(1e-4, 2x the error of PyTorch f32), relative to the
  norm (or to 1% of the step's RMS gradient for a gradient that is zero
  up to rounding);
- compile_step with the step's AdamW trains 4 steps as PyTorch eager's
  torch.optim.AdamW does: the losses within 1e-5 of eager f32's, every
  parameter within max(1e-4, 2x eager f32's distance) of the f64 loop's
  (norm-wise).

And each model at T = 2048 (small widths) imports (no refusal of a
2048x2048 mask constant) with its attention fused and no 2048x2048 value.

Prints one line per property; exits 1 when one fails."""
import copy
import sys

import numpy as np
import torch
import torch.nn.functional as F

import attention_idioms
import echo.torch
from echo.frontend import import_module
import attention_checks
from attention_checks import check, rel, square

B, T = 2, 12
V = attention_idioms.VOCAB
def data(seed):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, V, (B, T), generator=g)
    ids[:, 0] = 1 + ids[:, 0] % (V - 1)  # no row is all padding
    return ids, torch.randint(0, V, (B, T), generator=g)


def torch_step(module, ids, labels, dtype):
    ref = copy.deepcopy(module).to(dtype)
    loss = F.cross_entropy(ref(ids).reshape(-1, V), labels.reshape(-1))
    loss.backward()
    return float(loss), [p.grad.double().numpy() for p in ref.parameters()]


def model(name):
    torch.manual_seed(0)
    return getattr(attention_idioms, name)()


for name, causal in (("nanogpt", True), ("llama", True), ("bert", False),
                     ("encoder", True), ("encoder_padded", True),
                     ("hf_gpt2", True)):
    module = model(name)
    spec = [((B, T), "i32")]
    text = import_module(module, spec, "cross_entropy", ((B, T), "i32"),
                         name).text
    lines = [l for l in text.splitlines() if "echo.attention " in l]
    fused = len(lines) == 1 and ("causal = true" in lines[0]) == causal
    if name == "bert":
        fused = fused and " bias " in lines[0] and \
            "tensor<2x1x1x12xf32>" in lines[0]
    if name == "encoder_padded":  # the key-padding mask as a bias
        fused = fused and " bias " in lines[0] and \
            "tensor<1x4x1x12xf32>" in lines[0]
    check(fused, "%s: fused: one echo.attention%s: %s" % (
        name, " (causal)" if causal else " (key-padding bias)", fused))
    check(not square(text, T), "%s: no %dx%d value: %s" % (
        name, T, T, not square(text, T)))
    kept = import_module(module, spec, "cross_entropy", ((B, T), "i32"),
                         name, attention="materialized").text
    check("echo.attention" not in kept and square(kept, T),
          "%s: materialized: the ops as written: %s" % (
              name, "echo.attention" not in kept))

    ids, labels = data(1)
    step = echo.torch.compile_step(module, (ids,), labels)
    loss = float(step(ids, labels=labels))
    grads = [p.grad.double().numpy() for p in module.parameters()]
    loss64, grads64 = torch_step(module, ids, labels, torch.float64)
    loss32, grads32 = torch_step(module, ids, labels, torch.float32)
    # A gradient that is zero up to rounding (a key projection's bias:
    # softmax ignores a shift of a row) is compared with 1% of the step's
    # RMS gradient.
    rms = np.sqrt(sum(float((g ** 2).sum()) for g in grads64) /
                  sum(g.size for g in grads64))
    ok = len(grads) == len(grads64) and \
        rel(loss, loss64) <= max(1e-4, 2 * rel(loss32, loss64))
    for got, ref, ref32 in zip(grads, grads64, grads32):
        floor = 0.01 * rms * np.sqrt(ref.size)
        error = np.linalg.norm(got - ref) / max(np.linalg.norm(ref), floor)
        error32 = np.linalg.norm(ref32 - ref) / max(np.linalg.norm(ref),
                                                    floor)
        ok = ok and error <= max(1e-4, 2 * error32)
    check(ok, "%s: loss and %d gradients within max(1e-4, 2x f32's error) "
              "of PyTorch f64: %s" % (name, len(grads64), ok))

    # 4 AdamW steps: Echo's step with its own AdamW, PyTorch eager f32 and
    # f64 with torch.optim.AdamW, from the same weights on the same batches.
    # The losses within 1e-5 of eager's; every parameter within max(1e-4,
    # 2x eager f32's distance) of the f64 loop's, leaving out the entries
    # whose f64 gradient was zero up to rounding at every step (a key
    # projection's bias: AdamW makes such a gradient a step of lr whose
    # sign is the rounding's, in PyTorch f32 as in Echo).
    echoed, eager, eager64 = model(name), model(name), model(name).double()
    opts = [torch.optim.AdamW(m.parameters(), lr=1e-2)
            for m in (eager, eager64)]
    in_step = echo.torch.compile_step(echoed, (ids,), labels,
                                      optimizer="adamw", lr=1e-2)
    worst_loss = 0.0
    live = [torch.zeros_like(p, dtype=torch.bool)
            for p in eager64.parameters()]
    for i in range(4):
        ids, labels = data(10 + i)
        losses = []
        for m, opt in zip((eager, eager64), opts):
            opt.zero_grad()
            loss = F.cross_entropy(m(ids).reshape(-1, V), labels.reshape(-1))
            loss.backward()
            opt.step()
            losses.append(float(loss))
        for mask, p in zip(live, eager64.parameters()):
            mask |= p.grad.abs() > 1e-12
        worst_loss = max(worst_loss, rel(float(in_step(ids, labels=labels)),
                                         losses[0]))
    ok = worst_loss <= 1e-5
    for p, q, r, mask in zip(echoed.parameters(), eager.parameters(),
                             eager64.parameters(), live):
        ref = r.detach()[mask].numpy()
        ok = ok and rel(p.detach()[mask].numpy(), ref) <= max(
            1e-4, 2 * rel(q.detach()[mask].numpy(), ref))
    left = sum(int((~mask).sum()) for mask in live)
    check(ok, "%s: compile_step + step's AdamW, 4 steps: losses within 1e-5 "
              "of eager's, parameters within max(1e-4, 2x eager f32's) of "
              "the f64 loop's (%d entries with a rounding-level gradient "
              "left out): %s" % (name, left, ok))

from echo.frontend import UsageError
try:
    import_module(model("nanogpt"), [((B, T), "i32")], "cross_entropy",
                  ((B, T), "i32"), attention="flash")
    check(False, "import_module(attention='flash') raises")
except UsageError as e:
    print("import_module(attention='flash'): %s" % e)
try:
    echo.torch.compile_step(model("nanogpt"), (data(1)[0],), data(1)[1],
                            attention="flash")
    check(False, "compile_step(attention='flash') raises")
except ValueError as e:
    print("compile_step(attention='flash'): %s" % e)

# Without echo-opt, a fused import says what to do.
import os  # noqa: E402
saved = os.environ.get("ECHO_OPT")
os.environ["ECHO_OPT"] = "/nonexistent/echo-opt"
try:
    import_module(model("nanogpt"), [((B, T), "i32")], "cross_entropy",
                  ((B, T), "i32"))
    check(False, "import_module without echo-opt raises")
except UsageError as e:
    print("without echo-opt: %s" % e)
if saved is None:
    del os.environ["ECHO_OPT"]
else:
    os.environ["ECHO_OPT"] = saved

# T = 2048, import only (small widths): no refusal of a 2048x2048 mask,
# the attention fused, no 2048x2048 value.
for name, make, causal in (
        ("nanogpt", attention_idioms.nanogpt_long, True),
        ("llama", lambda: attention_idioms.Llama(d=8, heads=2, kv_heads=1),
         True),
        ("bert", lambda: attention_idioms.Bert(d=8, heads=2), False),
        ("encoder", lambda: attention_idioms.Encoder(d=8, heads=2), True)):
    torch.manual_seed(0)
    long_text = import_module(make(), [((1, 2048), "i32")], "cross_entropy",
                              ((1, 2048), "i32"), name).text
    lines = [l for l in long_text.splitlines() if "echo.attention " in l]
    ok = len(lines) == 1 and ("causal = true" in lines[0]) == causal and \
        not square(long_text, 2048)
    check(ok, "%s T=2048: imported, attention fused, no 2048x2048 value: %s"
          % (name, ok))
failed = attention_checks.failures
print("attention idioms: %s" % ("all properties hold" if not failed
                   else "%d FAILED" % failed))
sys.exit(1 if failed else 0)
