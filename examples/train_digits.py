#!/usr/bin/python3
"""Trains a small CNN on scikit-learn's bundled digits (1797 8x8 images)
with Echo's compiled step inside an ordinary PyTorch loop: a DataLoader,
torch.optim.Adam, a progress bar, evaluation in PyTorch.

    PYTHONPATH=python examples/train_digits.py [--backend echo|torch]
        [--epochs 15] [--strategy echo] [--json out.json]

The split is fixed (scikit-learn's train_test_split, 25% test, seed 0) and
so are the initial weights and the batch order (seed 0), so that
`--backend torch` (PyTorch eager's backward) trains the same model from the
same start. The last line is `test accuracy: 0.NNN`.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm import tqdm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import echo.torch  # noqa: E402


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def data():
    digits = load_digits()
    x = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0
    y = torch.tensor(digits.target, dtype=torch.int64)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.25,
                                          random_state=0, stratify=y)
    return xtr, xte, ytr, yte


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        correct = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return correct


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", choices=("echo", "torch"), default="echo")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--strategy", default="echo")
    ap.add_argument("--precision", choices=("f32", "bf16"), default="f32",
                    help="bf16: automatic mixed precision (Echo's "
                    "echo-autocast, or PyTorch's CPU autocast), f32 master "
                    "weights")
    ap.add_argument("--json", help="write losses, accuracy and timings here")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args()

    torch.manual_seed(0)
    xtr, xte, ytr, yte = data()
    model = DigitsCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(xtr, ytr), batch_size=args.batch,
        shuffle=True, generator=torch.Generator().manual_seed(0))

    if args.backend == "echo":
        t0 = time.time()
        step = echo.torch.compile_step(model, (xtr[:args.batch],),
                                       ytr[:args.batch],
                                       loss="cross_entropy",
                                       strategy=args.strategy,
                                       precision=args.precision)
        compile_s = time.time() - t0
    else:
        compile_s = 0.0

        def step(x, labels):
            with torch.autocast("cpu", dtype=torch.bfloat16,
                                enabled=args.precision == "bf16"):
                loss = F.cross_entropy(model(x), labels)
            loss.backward()
            return loss.detach()

    epoch_losses, step_ms = [], []
    for epoch in range(args.epochs):
        total, batches = 0.0, 0
        bar = tqdm(loader, desc="epoch %d" % epoch, disable=args.quiet,
                   leave=False)
        for x, y in bar:
            t = time.perf_counter()
            loss = step(x, labels=y)
            step_ms.append((time.perf_counter() - t) * 1e3)
            optimizer.step()
            optimizer.zero_grad()
            total += float(loss)
            batches += 1
            bar.set_postfix(loss="%.4f" % float(loss))
        epoch_losses.append(total / batches)
        if not args.quiet:
            print("epoch %d: train loss %.4f, test accuracy %.3f" % (
                epoch, epoch_losses[-1], accuracy(model, xte, yte)))
    acc = accuracy(model, xte, yte)
    if args.json:
        result = {"backend": args.backend, "epochs": args.epochs,
                  "precision": args.precision,
                  "epoch_losses": epoch_losses, "test_accuracy": acc,
                  "compile_s": compile_s,
                  "median_step_ms": sorted(step_ms)[len(step_ms) // 2]}
        if args.backend == "echo":
            result["memory"] = {k: v for k, v in step.memory_report().items()
                                if k.endswith("bytes")}
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    print("test accuracy: %.3f" % acc)


if __name__ == "__main__":
    main()
