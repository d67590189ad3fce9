"""echo.torch.compile_step on the ids and labels users pass (see
compile-step-inputs.test): out-of-range ids and labels are IndexErrors
checked on their 64-bit values (the process goes on), PyTorch's
ignore_index and label_smoothing are the loss's, the class dim is 1.
Prints one line per property."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

import echo.torch

torch.manual_seed(0)


def rel(a, b):
    return float((a - b).norm() / max(float(b.norm()), 1e-30))


class TokenModel(nn.Module):
    """A masked-LM style token classifier: [B, T] ids -> [B, T, C]."""

    def __init__(self, vocab=11, classes=7):
        super().__init__()
        self.emb = nn.Embedding(vocab, 8)
        self.fc = nn.Linear(8, classes)

    def forward(self, ids):
        return self.fc(torch.tanh(self.emb(ids)))


model = TokenModel()
ids = torch.randint(0, 11, (3, 5))
labels = torch.randint(0, 7, (3, 5))
step = echo.torch.compile_step(model, (ids,), labels, strategy="none")
good = float(step(ids, labels=labels))


def refused(what, call):
    try:
        call()
        print("%s: no error" % what)
    except IndexError as e:
        print("%s: IndexError: %s" % (what, str(e).splitlines()[0]))


# Ids: below 0, the vocabulary size, far past it, and past 2^32 (which an
# int32 conversion would wrap to 3).
for value in (-1, 11, 2 ** 28, 2 ** 32 + 3):
    bad = ids.clone()
    bad[1, 2] = value
    refused("id %d" % value, lambda: step(bad, labels=labels))
# Labels: -1 (not ignore_index), the class count, far past it, 2^32+1.
for value in (-1, 7, 2 ** 30, 2 ** 32 + 1):
    bad = labels.clone()
    bad[2, 4] = value
    refused("label %d" % value, lambda: step(ids, labels=bad))
print("after the errors the step runs as before: %s" % (
    float(step(ids, labels=labels)) == good))

# -100 (PyTorch's default ignore_index): those rows count for nothing.
masked = labels.clone()
masked[0, :3] = -100
masked[2, 1] = -100
ref = copy.deepcopy(model)
loss = step(ids, labels=masked)
ref_loss = F.cross_entropy(ref(ids).reshape(-1, 7), masked.reshape(-1))
ref_loss.backward()
print("ignore_index -100: loss within 1e-6: %s, gradients within 1e-5: %s" % (
    abs(float(loss) - float(ref_loss)) <= 1e-6 * abs(float(ref_loss)),
    max(rel(p.grad, q.grad) for p, q in
        zip(model.parameters(), ref.parameters())) <= 1e-5))
# Every row ignored: PyTorch's NaN loss and zero gradients.
everything = torch.full_like(labels, -100)
loss = step(ids, labels=everything)
print("every row ignored: loss NaN: %s, gradients zero: %s" % (
    bool(torch.isnan(loss)), all(float(p.grad.abs().max()) == 0
                                 for p in model.parameters())))

# Another ignore_index, and label smoothing, as F.cross_entropy takes them.
smooth = echo.torch.compile_step(model, (ids,), labels, strategy="echo",
                                 ignore_index=3, label_smoothing=0.1)
ref = copy.deepcopy(model)
model.zero_grad()
loss = smooth(ids, labels=labels)
ref_loss = F.cross_entropy(ref(ids).reshape(-1, 7), labels.reshape(-1),
                           ignore_index=3, label_smoothing=0.1)
ref_loss.backward()
print("ignore_index 3, label_smoothing 0.1: loss within 1e-6: %s, "
      "gradients within 1e-5: %s" % (
          abs(float(loss) - float(ref_loss)) <= 1e-6 * abs(float(ref_loss)),
          max(rel(p.grad, q.grad) for p, q in
              zip(model.parameters(), ref.parameters())) <= 1e-5))
bad = labels.clone()
bad[0, 0] = -100  # not this step's ignore_index
refused("label -100 with ignore_index=3", lambda: smooth(ids, labels=bad))
for what, kwargs in [("ignore_index 2^40", {"ignore_index": 2 ** 40}),
                     ("label_smoothing 1.5", {"label_smoothing": 1.5})]:
    try:
        echo.torch.compile_step(model, (ids,), labels, **kwargs)
        print("%s: no error" % what)
    except ValueError as e:
        print("%s: ValueError: %s" % (what, str(e).splitlines()[0]))


# Per-pixel cross-entropy: N x C x H x W logits, N x H x W labels, with
# C == H == W (where the last dim would also fit): PyTorch's class dim 1.
class Segmenter(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


seg = Segmenter()
x = torch.randn(2, 2, 4, 4)
y = torch.randint(0, 4, (2, 4, 4))
seg_step = echo.torch.compile_step(seg, (x,), y, strategy="none")
ref = copy.deepcopy(seg)
loss = seg_step(x, labels=y)
ref_loss = F.cross_entropy(ref(x), y)
ref_loss.backward()
print("per-pixel cross-entropy, C == H == W: loss within 1e-6: %s, "
      "gradients within 1e-5: %s" % (
          abs(float(loss) - float(ref_loss)) <= 1e-6 * float(ref_loss),
          max(rel(p.grad, q.grad) for p, q in
              zip(seg.parameters(), ref.parameters())) <= 1e-5))
