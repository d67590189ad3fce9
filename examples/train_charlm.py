#!/usr/bin/python3
"""Trains a character-level LSTM language model on a text every Debian
system ships (its copy of the GNU GPL, /usr/share/common-licenses/GPL-3)
with Echo's compiled step inside an ordinary PyTorch loop, and reports the
validation loss (nats per character) after each epoch.

    PYTHONPATH=python examples/train_charlm.py [--backend echo|torch]
        [--epochs 3] [--strategy echo] [--json out.json]

The last 10% of the text is the validation set. Initial weights and the
batch order are seeded (0), so that `--backend torch` (PyTorch eager's
backward) trains the same model from the same start.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import echo.torch  # noqa: E402

TEXT = "/usr/share/common-licenses/GPL-3"


class CharLM(nn.Module):
    def __init__(self, vocab, embed=32, hidden=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


def windows(ids, length):
    """Non-overlapping (input, next-character) windows of `length`."""
    n = (len(ids) - 1) // length
    x = ids[:n * length].view(n, length)
    y = ids[1:n * length + 1].view(n, length)
    return x, y


def validation_loss(model, x, y):
    with torch.no_grad():
        out = model(x)
        return F.cross_entropy(out.reshape(-1, out.shape[-1]),
                               y.reshape(-1)).item()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", choices=("echo", "torch"), default="echo")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--length", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--strategy", default="echo")
    ap.add_argument("--text", default=TEXT)
    ap.add_argument("--json", help="write losses and timings here")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args()

    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([index[c] for c in text], dtype=torch.int64)
    split = int(0.9 * len(ids))
    xtr, ytr = windows(ids[:split], args.length)
    xva, yva = windows(ids[split:], args.length)

    torch.manual_seed(0)
    model = CharLM(len(chars))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(xtr, ytr), batch_size=args.batch,
        shuffle=True, drop_last=True,
        generator=torch.Generator().manual_seed(0))

    if args.backend == "echo":
        t0 = time.time()
        step = echo.torch.compile_step(model, (xtr[:args.batch],),
                                       ytr[:args.batch],
                                       loss="cross_entropy",
                                       strategy=args.strategy)
        compile_s = time.time() - t0
    else:
        compile_s = 0.0

        def step(x, labels):
            out = model(x)
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]),
                                   labels.reshape(-1))
            loss.backward()
            return loss.detach()

    val_losses, step_ms = [], []
    for epoch in range(args.epochs):
        bar = tqdm(loader, desc="epoch %d" % epoch, disable=args.quiet,
                   leave=False)
        for x, y in bar:
            t = time.perf_counter()
            loss = step(x, labels=y)
            step_ms.append((time.perf_counter() - t) * 1e3)
            optimizer.step()
            optimizer.zero_grad()
            bar.set_postfix(loss="%.3f" % float(loss))
        val_losses.append(validation_loss(model, xva, yva))
        print("epoch %d: validation loss %.4f" % (epoch, val_losses[-1]))
    if args.json:
        result = {"backend": args.backend, "epochs": args.epochs,
                  "validation_losses": val_losses, "compile_s": compile_s,
                  "median_step_ms": sorted(step_ms)[len(step_ms) // 2]}
        if args.backend == "echo":
            result["memory"] = {k: v for k, v in step.memory_report().items()
                                if k.endswith("bytes")}
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
