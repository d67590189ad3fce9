"""Losses computed in the module's forward (``loss=None``, the Hugging Face
style) or by a loss function traced with it (see import-torch-losses.test):
each imported, run one step by echo-run in f32 and in f64
(``--reference-dump``), and compared with PyTorch autograd in f64 on the
same weights and data: Echo's f64 step within 1e-7 of PyTorch's f64 (the
mapping's mathematics, gradients included; the model's constants, a mean's
1/n or smooth L1's 1/beta, are f32 literals, exact to 6e-8), Echo's f32
within max(1e-4, 2x PyTorch f32's own error). Then 20 AdamW steps through compile_step
against the same loop in eager. Prints one line per case.

Usage: check_losses.py WORKDIR ECHO_RUN
"""
import copy
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import echo.torch
from echo.frontend import LossSpec, import_module

WORK, ECHO_RUN = sys.argv[1], sys.argv[2]


def rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


class TokenLM(nn.Module):
    """A Hugging Face-style LM head: returns (loss, logits) given labels;
    PyTorch's cross-entropy with -100 labels and label smoothing."""

    def __init__(self, vocab=23):
        super().__init__()
        self.vocab = vocab
        self.emb = nn.Embedding(vocab, 16)
        self.proj = nn.Linear(16, 16)
        self.head = nn.Linear(16, vocab)

    def forward(self, input_ids, attention_mask=None, labels=None):
        h = torch.tanh(self.proj(self.emb(input_ids)))
        logits = self.head(h)
        loss = F.cross_entropy(logits.view(-1, self.vocab), labels.view(-1),
                               label_smoothing=0.1)
        return (loss, logits)


class Segmenter(nn.Module):
    """Per-pixel NLL of a log-softmax over the class dim, summed, plus a
    binary cross-entropy on probabilities; labels positional."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 6, 3, padding=1)
        self.conv2 = nn.Conv2d(6, 3, 1)

    def forward(self, x, y):
        logits = self.conv2(torch.relu(self.conv1(x)))
        nll = F.nll_loss(F.log_softmax(logits, 1), y, reduction="sum")
        probs = torch.sigmoid(logits[:, :1])
        return nll / 32 + F.binary_cross_entropy(probs, torch.full_like(
            probs, 0.25))


class MultiLabel(nn.Module):
    """A multi-label classifier returning its binary cross-entropy with
    logits (class weights and pos_weight) as a dict."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 12)
        self.fc2 = nn.Linear(12, 4)
        self.register_buffer("pos_weight", torch.tensor([1.0, 2.0, 0.5, 3.0]))
        self.register_buffer("weight", torch.tensor([1.0, 0.5, 2.0, 1.0]))

    def forward(self, x, labels):
        logits = self.fc2(F.gelu(self.fc1(x)))
        return {"loss": F.binary_cross_entropy_with_logits(
            logits, labels, weight=self.weight, pos_weight=self.pos_weight),
            "logits": logits}


def regression_loss(out, y):
    """A loss function traced with the module: smooth L1, Huber, L1 and
    MSE (sum)."""
    return (F.smooth_l1_loss(out, y, beta=0.5) +
            F.huber_loss(out, y, delta=0.7) + F.l1_loss(out, y) +
            0.01 * F.mse_loss(out, y, reduction="sum"))


def regressor():
    return nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))


def distillation_loss(out, teacher):
    """F.kl_div of the student's log-probabilities against a teacher's
    probabilities (some exactly 0: xlogy's 0 log 0 = 0), batchmean."""
    return F.kl_div(F.log_softmax(out, dim=-1), teacher,
                    reduction="batchmean")


class WeightedClassifier(nn.Module):
    """Class-weighted cross-entropy (a buffer) with -100 labels and label
    smoothing, the mean PyTorch divides by the weights of the counted
    labels."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 12)
        self.fc2 = nn.Linear(12, 4)
        self.register_buffer("class_weight",
                             torch.tensor([1.0, 3.0, 0.5, 2.0]))

    def forward(self, x, labels):
        logits = self.fc2(torch.tanh(self.fc1(x)))
        return F.cross_entropy(logits, labels, weight=self.class_weight,
                               label_smoothing=0.1)


class PerTokenLM(nn.Module):
    """Per-token losses (reduction='none'), weighted and averaged by hand
    over the tokens that count: the mask computed from the labels."""

    def __init__(self, vocab=11):
        super().__init__()
        self.vocab = vocab
        self.emb = nn.Embedding(vocab, 8)
        self.head = nn.Linear(8, vocab)

    def forward(self, ids, labels):
        logits = self.head(torch.tanh(self.emb(ids)))
        losses = F.cross_entropy(logits.transpose(1, 2), labels,
                                 reduction="none")
        counted = (labels != -100).float()
        position = torch.linspace(0.5, 1.5, labels.shape[1])
        return (losses * counted * position).sum() / counted.sum()


class PaddedSegmenter(nn.Module):
    """nll_loss with class weights and ignore_index=0 (a padding class
    inside the range), summed; and the NLL of raw scores (PyTorch takes
    any values), per pixel."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.register_buffer("class_weight", torch.tensor([1.0, 2.0, 0.7]))

    def forward(self, x, y):
        logits = self.conv(x)
        weighted = F.nll_loss(F.log_softmax(logits, 1), y,
                              weight=self.class_weight, ignore_index=0,
                              reduction="sum")
        raw = F.nll_loss(torch.tanh(logits), y, reduction="none")
        return weighted / 16 + (raw * raw).mean()


torch.manual_seed(0)
g = torch.Generator().manual_seed(1)
ids = torch.randint(0, 23, (3, 7), generator=g)
lm_labels = torch.randint(0, 23, (3, 7), generator=g)
lm_labels[0, :3] = -100  # prompt tokens
lm_labels[2, 5:] = -100  # padding
seg_x = torch.randn(2, 2, 4, 4, generator=g)
seg_y = torch.randint(0, 3, (2, 4, 4), generator=g)
ml_x = torch.randn(5, 6, generator=g)
ml_y = (torch.rand(5, 4, generator=g) > 0.5).float()
# Targets spread so that both branches of smooth L1 and Huber are taken.
reg_x = torch.randn(6, 4, generator=g)
reg_y = 2 * torch.randn(6, 3, generator=g)
kd_x = torch.randn(5, 4, generator=g)
kd_y = torch.softmax(3 * torch.randn(5, 3, generator=g), dim=-1)
kd_y[0, 1] = 0.0  # classes the teacher rules out
kd_y[3, 2] = 0.0
kd_y = kd_y / kd_y.sum(dim=-1, keepdim=True)
wc_x = torch.randn(7, 6, generator=g)
wc_y = torch.tensor([0, 1, -100, 3, 2, 1, -100])
pt_ids = torch.randint(0, 11, (2, 5), generator=g)
pt_y = torch.randint(0, 11, (2, 5), generator=g)
pt_y[1, 3:] = -100
ps_x = torch.randn(2, 2, 4, 4, generator=g)
ps_y = torch.randint(0, 3, (2, 4, 4), generator=g)

CASES = [
    ("token LM, HF style (loss, logits), -100 and label smoothing",
     TokenLM, [ids], lm_labels, None),
    ("segmenter, nll(log_softmax) sum + binary cross-entropy", Segmenter,
     [seg_x], seg_y, None),
    ("multi-label, BCE with logits, weight and pos_weight, dict",
     MultiLabel, [ml_x], ml_y, None),
    ("regressor, loss function: smooth L1, Huber, L1, MSE sum", regressor,
     [reg_x], reg_y, regression_loss),
    ("distillation, loss function: kl_div batchmean", regressor, [kd_x],
     kd_y, distillation_loss),
    ("classifier, class weights, -100 and label smoothing",
     WeightedClassifier, [wc_x], wc_y, None),
    ("token LM, per-token losses (reduction='none') averaged by hand",
     PerTokenLM, [pt_ids], pt_y, None),
    ("segmenter, weighted nll_loss ignoring class 0 + NLL of raw scores",
     PaddedSegmenter, [ps_x], ps_y, None),
]


def torch_step(module, inputs, labels, loss, dtype):
    """Loss and parameter gradients of PyTorch autograd in `dtype`."""
    m = copy.deepcopy(module).to(dtype)
    xs = [x.to(dtype) if x.is_floating_point() else x for x in inputs]
    y = labels.to(dtype) if labels.is_floating_point() else labels
    if loss is None:
        try:
            out = m(*xs, labels=y)
        except TypeError:
            out = m(*xs, y)
        out = out["loss"] if isinstance(out, dict) else (
            out[0] if isinstance(out, tuple) else out)
    else:
        out = loss(m(*xs), y)
    out.backward()
    return float(out), [p.grad.double().numpy() for p in m.parameters()]


def spec(t):
    return tuple(t.shape), "f32" if t.is_floating_point() else "i32"


for n, (what, factory, inputs, labels, loss) in enumerate(CASES):
    torch.manual_seed(n)
    module = factory()
    imported = import_module(module, [spec(x) for x in inputs],
                             LossSpec(loss), spec(labels), "model")
    d = os.path.join(WORK, "case%d" % n)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write(imported.text)
    imported.write_weights(os.path.join(d, "in"))
    for i, t in enumerate(list(inputs) + [labels]):
        np.save(os.path.join(d, "in", "arg%d.npy" % i),
                t.numpy().astype(np.float32 if t.is_floating_point()
                                 else np.int32))
    subprocess.run([ECHO_RUN, os.path.join(d, "model.mlir"), "--steps=1",
                    "--inputs=" + os.path.join(d, "in"),
                    "--dump=" + os.path.join(d, "f32"),
                    "--reference-dump=" + os.path.join(d, "f64"), "--quiet"],
                   check=True)
    trained = [i for kind, i in imported.arguments if kind == "param"]
    t64_loss, t64 = torch_step(module, inputs, labels, loss, torch.float64)
    t32_loss, t32 = torch_step(module, inputs, labels, loss, torch.float32)

    def results(kind):
        return [np.load(os.path.join(d, kind, "out%d.npy" % k))
                for k in range(len(trained) + 1)]
    e32, e64 = results("f32"), results("f64")
    ref = [np.array(t64_loss)] + [t64[i] for i in trained]
    torch32 = [np.array(t32_loss)] + [t32[i] for i in trained]
    f64_error = max(rel(a, b) for a, b in zip(e64, ref))
    f32_error = max(rel(a, b) for a, b in zip(e32, ref))
    torch_error = max(rel(a, b) for a, b in zip(torch32, ref))
    print("%s: Echo f64 equals PyTorch f64 (1e-7): %s; Echo f32 within "
          "max(1e-4, 2x PyTorch f32's error): %s" % (
              what, f64_error <= 1e-7,
              f32_error <= max(1e-4, 2 * torch_error)))
    # The same loss trained in a PyTorch loop through compile_step.
    mine, ref_module = copy.deepcopy(module), copy.deepcopy(module)
    step = echo.torch.compile_step(mine, tuple(inputs), labels, loss=loss)
    opt = torch.optim.AdamW(mine.parameters(), lr=1e-2)
    ref_opt = torch.optim.AdamW(ref_module.parameters(), lr=1e-2)
    for _ in range(20):
        step(*inputs, labels=labels)
        opt.step()
        opt.zero_grad()
        _, grads = torch_step(ref_module, inputs, labels, loss,
                              torch.float32)
        for p, grad in zip(ref_module.parameters(), grads):
            p.grad = torch.from_numpy(grad).float()
        ref_opt.step()
        ref_opt.zero_grad()
    drift = max(rel(p.detach().numpy(), q.detach().numpy())
                for p, q in zip(mine.parameters(), ref_module.parameters()))
    print("%s: 20 AdamW steps through compile_step equal eager's (1e-5): %s"
          % (what, drift <= 1e-5))

# A label outside the classes is an error before the step runs (PyTorch's
# is an IndexError), never a row read out of bounds; -100 is not.
module = WeightedClassifier()
step = echo.torch.compile_step(module, (wc_x,), wc_y, loss=None)
step(wc_x, labels=wc_y)
try:
    step(wc_x, labels=torch.tensor([0, 1, -100, 4, 2, 1, 0]))
    refused = False
except (ValueError, IndexError) as e:
    refused = "outside" in str(e) or "range" in str(e)
print("labels outside the classes refused by the step: %s" % refused)

