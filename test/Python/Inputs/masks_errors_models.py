"""Factories of import-torch-masks-errors.test: masks, conversions and
routing Echo refuses, each where it is written."""
import torch.nn as nn
import torch.nn.functional as F


class OneHotNoClasses(nn.Module):
    """F.one_hot without num_classes: the class count is the ids' max."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 3)

    def forward(self, x):
        chosen = self.fc(x).argmax(dim=-1)
        return self.fc(x) * F.one_hot(chosen).sum()


class IntBitwise(nn.Module):
    """A bitwise and of integer ids (bit operations, not masks)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 4)

    def forward(self, ids):
        return self.emb(ids & ids)


class ToDouble(nn.Module):
    """A conversion to float64 (Echo computes in f32)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 3)

    def forward(self, x):
        return self.fc(x.double().float())


def one_hot_no_classes():
    return OneHotNoClasses()


def int_bitwise():
    return IntBitwise()


def to_double():
    return ToDouble()
