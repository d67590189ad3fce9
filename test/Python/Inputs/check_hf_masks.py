"""Hugging Face's combined masks of hf_masks.py through the importer's
default (fused) attention (see import-torch-hf-masks.test). For GPT-2 and
LLaMA with an attention_mask input holding padding:

- the imported function holds one echo.attention per layer, causal, with a
  [B, 1, 1, T] bias, and no T×T value (no tensor type with the trailing
  dims T, T);
- right padding (every query keeps a key): one compile_step step gives
  PyTorch f64 autograd's loss and every gradient within max(1e-4, 2x the
  error of PyTorch f32), relative to the norm (or to 1% of the step's RMS
  gradient for a gradient zero up to rounding);
- left padding with the padding's labels -100 (Hugging Face's convention):
  the same; the queries before the first token, whose every key is padding,
  reach no loss;
- compile_step with the step's AdamW trains 3 steps as torch.optim.AdamW
  in eager f32: the losses within 1e-5 of eager's.

The near miss (padding queries masked too) is not read as causal: its
[B, 1, T, T] mask stays. Prints
one line per property; exits 1 when one fails."""
import copy
import sys

import numpy as np
import torch
import torch.nn.functional as F

import hf_masks
import echo.torch
from echo.frontend import import_module
import attention_checks
from attention_checks import check, rel, square

B, T = 2, 12
V = hf_masks.VOCAB
LAYERS = 2
def data(seed, left):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, V, (B, T), generator=g)
    labels = torch.randint(0, V, (B, T), generator=g)
    mask = torch.ones(B, T, dtype=torch.int64)
    for b, n in enumerate((3, 1)):  # padding of each row
        if left:
            mask[b, :n] = 0
            labels[b, :n] = -100
        else:
            mask[b, T - n:] = 0
    return ids, mask, labels


def torch_step(module, ids, mask, labels, dtype):
    ref = copy.deepcopy(module).to(dtype)
    loss = F.cross_entropy(ref(ids, mask).reshape(-1, V), labels.reshape(-1))
    loss.backward()
    return float(loss), [p.grad.double().numpy() for p in ref.parameters()]


def model(name):
    torch.manual_seed(0)
    return getattr(hf_masks, name)()


spec = [((B, T), "i32"), ((B, T), "i32")]
for name in ("hf_gpt2", "hf_llama"):
    module = model(name)
    text = import_module(module, spec, "cross_entropy", ((B, T), "i32"),
                         name).text
    lines = [l for l in text.splitlines() if "echo.attention " in l]
    fused = len(lines) == LAYERS and all(
        "causal = true" in l and " bias " in l and
        "tensor<%dx1x1x%dxf32>" % (B, T) in l for l in lines)
    check(fused, "%s: fused: one causal echo.attention per layer with a "
                 "[B, 1, 1, T] bias: %s" % (name, fused))
    check(not square(text, T), "%s: no %dx%d value: %s" % (
        name, T, T, not square(text, T)))

    for left in (False, True):
        side = "left" if left else "right"
        module = model(name)
        ids, mask, labels = data(1, left)
        step = echo.torch.compile_step(module, (ids, mask), labels)
        loss = float(step(ids, mask, labels=labels))
        grads = [p.grad.double().numpy() for p in module.parameters()]
        loss64, grads64 = torch_step(module, ids, mask, labels, torch.float64)
        loss32, grads32 = torch_step(module, ids, mask, labels, torch.float32)
        rms = np.sqrt(sum(float((g ** 2).sum()) for g in grads64) /
                      sum(g.size for g in grads64))
        ok = len(grads) == len(grads64) and \
            rel(loss, loss64) <= max(1e-4, 2 * rel(loss32, loss64))
        for got, ref, ref32 in zip(grads, grads64, grads32):
            floor = 0.01 * rms * np.sqrt(ref.size)
            error = np.linalg.norm(got - ref) / max(np.linalg.norm(ref), floor)
            error32 = np.linalg.norm(ref32 - ref) / max(np.linalg.norm(ref),
                                                        floor)
            if error > max(1e-4, 2 * error32):
                print("  gradient %s: %.3g (f32 %.3g)" % (ref.shape, error,
                                                          error32))
            ok = ok and error <= max(1e-4, 2 * error32)
        check(ok, "%s, %s padding: loss and %d gradients within max(1e-4, "
                  "2x f32's error) of PyTorch f64: %s" % (
                      name, side, len(grads64), ok))

    echoed, eager = model(name), model(name)
    opt = torch.optim.AdamW(eager.parameters(), lr=1e-2)
    ids, mask, labels = data(1, False)
    in_step = echo.torch.compile_step(echoed, (ids, mask), labels,
                                      optimizer="adamw", lr=1e-2)
    worst = 0.0
    for i in range(3):
        ids, mask, labels = data(10 + i, i == 1)
        opt.zero_grad()
        loss = F.cross_entropy(eager(ids, mask).reshape(-1, V),
                               labels.reshape(-1))
        loss.backward()
        opt.step()
        worst = max(worst, rel(float(in_step(ids, mask, labels=labels)),
                               float(loss)))
    check(worst <= 1e-5, "%s: compile_step + step's AdamW, 3 steps: losses "
                         "within 1e-5 of eager's: %s" % (name, worst <= 1e-5))

text = import_module(model("query_padded"), spec, "cross_entropy",
                     ((B, T), "i32"), "query_padded").text
kept = "causal = true" not in text and square(text, T)
check(kept, "query_padded: the mask depends on the query: not causal, the "
            "[B, 1, T, T] mask kept: %s" % kept)
failed = attention_checks.failures
print("hf masks: %s" % ("all properties hold" if not failed
                   else "%d FAILED" % failed))
sys.exit(1 if failed else 0)
