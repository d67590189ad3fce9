"""Factories of import-torch-losses.test's command-line cases."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TokenLM(nn.Module):
    """Returns (loss, logits): PyTorch's cross-entropy with label
    smoothing, the labels passed as labels=."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(23, 16)
        self.head = nn.Linear(16, 23)

    def forward(self, input_ids, labels=None):
        logits = self.head(torch.tanh(self.emb(input_ids)))
        return F.cross_entropy(logits.view(-1, 23), labels.view(-1),
                               label_smoothing=0.1), logits


class RawNll(nn.Module):
    """nll_loss of raw scores (not log-probabilities)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 3)

    def forward(self, x, y):
        return F.nll_loss(self.fc(x), y)


class LogitsOnly(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 3)

    def forward(self, x, y):
        return self.fc(x)


def token_lm():
    return TokenLM()


def raw_nll():
    return RawNll()


def logits_only():
    return LogitsOnly()
