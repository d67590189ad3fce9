"""PyTorch modules of the importer's tests (test/Python/import-torch-*)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


def mlp():
    """A 3-layer MLP."""
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32),
                         nn.Tanh(), nn.Linear(32, 10))


def resnet18():
    """torchvision's ResNet-18, 10 classes."""
    return torchvision.models.resnet18(num_classes=10)


class Encoder(nn.Module):
    """Token embedding, a 2-layer nn.TransformerEncoder, a projection."""

    def __init__(self, vocab=50, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0,
                                           batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.out = nn.Linear(d, vocab)

    def forward(self, ids):
        return self.out(self.enc(self.emb(ids)))


def transformer():
    return Encoder()


class Seq2Seq(nn.Module):
    """An LSTM encoder-decoder: the decoder starts from the encoder's state."""

    def __init__(self, vocab=30, embed=12, hidden=16):
        super().__init__()
        self.src = nn.Embedding(vocab, embed)
        self.tgt = nn.Embedding(vocab, embed)
        self.encoder = nn.LSTM(embed, hidden, batch_first=True)
        self.decoder = nn.LSTM(embed, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, vocab)

    def forward(self, src, tgt):
        _, state = self.encoder(self.src(src))
        out, _ = self.decoder(self.tgt(tgt), state)
        return self.proj(out)


def seq2seq():
    return Seq2Seq()


class Mixed(nn.Module):
    """Functions and methods: GRU (bidirectional, 2 layers), attention,
    chunk, cat, slicing, broadcasting, scalars, mean, GELU(tanh)."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 6, num_layers=2, bidirectional=True)
        self.attn = nn.MultiheadAttention(12, 3)
        self.scale = nn.Parameter(torch.randn(12))
        self.act = nn.GELU(approximate="tanh")
        self.head = nn.Linear(6, 4)

    def forward(self, x):  # x: [T, B, 8]
        h, _ = self.gru(x)  # [T, B, 12]
        a, _ = self.attn(h, h, h, need_weights=False)
        y = self.act(a * self.scale + 1.0) - h / 2
        left, right = torch.chunk(y, 2, dim=-1)
        z = torch.cat([left[:, :, :3], right[..., 3:]], dim=2)
        return self.head(z.mean(dim=0))  # [B, 4]


def mixed():
    return Mixed()


# -- modules the importer refuses ---------------------------------------------

class WithConv1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3)
        self.fc = nn.Linear(4 * 6, 2)

    def forward(self, x):
        return self.fc(torch.flatten(self.conv(x), 1))


def with_conv1d():
    return WithConv1d()


class DataDependent(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        if x.sum() > 0:
            return self.fc(x)
        return self.fc(-x)


def data_dependent():
    return DataDependent()


def erf_gelu():
    return nn.Sequential(nn.Linear(4, 4), nn.GELU(), nn.Linear(4, 2))


def not_a_module():
    return 42
