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


class VisionMix(nn.Module):
    """Conv2d with bias, pooling modules and functions, BatchNorm1d on
    [N, C, L], split, permute, view through size(), bmm, matmul of 3-D by
    2-D, stack, squeeze/unsqueeze, sum, Softmax, LayerNorm over two dims,
    division and subtraction; an mse loss."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=1, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AvgPool2d(3, stride=1, padding=1,
                                count_include_pad=False)
        self.adapt = nn.AdaptiveAvgPool2d(2)
        self.bn = nn.BatchNorm1d(8)
        self.norm = nn.LayerNorm([4, 8])
        self.proj = nn.Parameter(torch.randn(8, 6) * 0.3)
        self.soft = nn.Softmax(dim=-1)
        self.drop = nn.Dropout(0.0)
        self.out = nn.Sequential(nn.Flatten(), nn.Linear(4 * 6, 5),
                                 nn.Sigmoid())

    def forward(self, x):  # x: [N, 3, 8, 8]
        y = F.relu(self.conv(x))
        y = self.avg(self.pool(y))                    # [N, 8, 4, 4]
        y = self.adapt(y) + F.avg_pool2d(y, 2)        # [N, 8, 2, 2]
        n = y.size(0)
        seq = self.bn(y.view(n, 8, -1))               # [N, 8, 4]
        seq = seq.permute(0, 2, 1)                    # [N, 4, 8]
        a, b = torch.split(seq, [4, 4], dim=2)
        att = self.soft(torch.bmm(a, b.transpose(1, 2)) / 2.0)  # [N, 4, 4]
        mixed = torch.bmm(att, seq)                   # [N, 4, 8]
        mixed = self.norm(self.drop(mixed) - seq.sum(dim=1, keepdim=True))
        z = torch.matmul(mixed, self.proj)            # [N, 4, 6]
        z = torch.stack([z, torch.tanh(z)], dim=0).sum(0)
        z = z.unsqueeze(1).squeeze(1)
        return self.out(z)                            # [N, 5]


def vision_mix():
    return VisionMix()


# -- subclasses of torch.nn modules with their own forward -------------------
# The importer maps a module onto an Echo op only when its forward is
# torch.nn's own; these are traced through instead.

class ConvNeXtStem(nn.Module):
    """torchvision's LayerNorm2d (an nn.LayerNorm that normalizes the
    channels of NCHW: permute, layer_norm, permute back).  Width ==
    channels, so normalizing the last dim instead would fit the shapes."""

    def __init__(self, c=8):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.norm = torchvision.models.convnext.LayerNorm2d(c)
        self.head = nn.Linear(c * 8 * 8, 10)
        with torch.no_grad():  # not the identity: gamma and beta matter
            self.norm.weight.normal_(1.0, 0.5)
            self.norm.bias.normal_(0.0, 0.5)

    def forward(self, x):  # x: [N, 8, 8, 8]
        return self.head(torch.flatten(F.relu(self.norm(self.conv(x))), 1))


def convnext_stem():
    return ConvNeXtStem()


class StdConv2d(nn.Conv2d):
    """A weight-standardized convolution (BiT's StdConv2d)."""

    def __init__(self, *args, eps=1e-6, **kwargs):
        super().__init__(*args, **kwargs)
        self.eps = eps

    def forward(self, x):
        w = self.weight
        mean = w.mean(dim=(1, 2, 3), keepdim=True)
        var = torch.var(w, dim=[1, 2, 3], keepdim=True, unbiased=False)
        w = (w - mean) / torch.sqrt(var + self.eps)
        return F.conv2d(x, w, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


def std_conv():
    return nn.Sequential(StdConv2d(3, 8, 3, padding=1), nn.ReLU(),
                         StdConv2d(8, 4, 3, stride=2, bias=False),
                         nn.Flatten(), nn.Linear(4 * 3 * 3, 10))


class LoRALinear(nn.Linear):
    """nn.Linear plus a low-rank update x A^T B^T * scale (LoRA)."""

    def __init__(self, in_features, out_features, rank=2, alpha=4.0):
        super().__init__(in_features, out_features)
        # B is nonzero so that A's gradient is too.
        self.lora_A = nn.Parameter(torch.randn(rank, in_features) * 0.3)
        self.lora_B = nn.Parameter(torch.randn(out_features, rank) * 0.3)
        self.scale = alpha / rank

    def forward(self, x):
        return F.linear(x, self.weight, self.bias) + \
            (x @ self.lora_A.t() @ self.lora_B.t()) * self.scale


def lora_mlp():
    return nn.Sequential(LoRALinear(16, 32), nn.Tanh(), LoRALinear(32, 10))


# -- non-finite constants -----------------------------------------------------

class CausalAttention(nn.Module):
    """One head of causal self-attention written with matmuls: the mask is a
    buffer holding -inf above the diagonal, added to the scores."""

    def __init__(self, vocab=20, d=16, steps=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, vocab)
        self.d = d
        self.register_buffer(
            "mask", nn.Transformer.generate_square_subsequent_mask(steps))

    def forward(self, ids):  # ids: [B, T]
        q, k, v = self.qkv(self.emb(ids)).chunk(3, dim=-1)
        scores = q @ k.transpose(1, 2) / self.d ** 0.5 + self.mask
        return self.out(torch.softmax(scores, dim=-1) @ v)


def causal_attention():
    return CausalAttention()


# -- tied weights and dropout -------------------------------------------------

class TiedLM(nn.Module):
    """A language model whose output projection is its embedding table
    (one parameter, used twice: its gradient is the sum of both uses)."""

    def __init__(self, vocab=24, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.mix = nn.Linear(d, d)
        self.out = nn.Linear(d, vocab, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, ids):
        return self.out(torch.tanh(self.mix(self.emb(ids))))


def tied_lm():
    return TiedLM()


class DropoutMix(nn.Module):
    """Dropout as modules, as a function, in place, on a channel mask
    (Dropout2d), per sample (torchvision's StochasticDepth), alpha dropout,
    and inside nn.LSTM between its layers."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.drop2d = nn.Dropout2d(0.25)
        self.depth = torchvision.ops.StochasticDepth(0.2, "row")
        self.lstm = nn.LSTM(16, 8, num_layers=2, dropout=0.3,
                            batch_first=True)
        self.drop = nn.Dropout(0.5, inplace=True)
        self.alpha = nn.AlphaDropout(0.2)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):  # [N, 3, 4, 4]
        h = self.drop2d(F.relu(self.conv(x)))          # [N, 4, 4, 4]
        h = h + self.depth(h)
        seq, _ = self.lstm(h.flatten(2).transpose(1, 2).reshape(
            x.shape[0], 4, 16))
        return self.fc(self.alpha(F.dropout(self.drop(seq[:, -1]), 0.1)))


def dropout_mix():
    return DropoutMix()


# -- activations and pooling the newer Echo ops express -----------------------

class Activations(nn.Module):
    """erf GELU, SiLU, Hardswish, Hardsigmoid, Mish, ReLU6, clamp,
    LeakyReLU and ELU (written with relu and exp), masked_fill with a mask
    built in forward and torch.where with a number."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 8)
        self.out = nn.Linear(8, 3)
        self.acts = nn.ModuleList([nn.GELU(), nn.SiLU(), nn.Hardswish(),
                                   nn.Hardsigmoid(), nn.Mish(), nn.ReLU6(),
                                   nn.LeakyReLU(0.2), nn.ELU()])

    def forward(self, x):  # [N, 8]
        h = self.fc1(x)
        h = sum(act(h * (i + 1) / 4) for i, act in enumerate(self.acts))
        h = self.fc2(h.clamp(-2.0, 3.0))
        keep = torch.arange(8) % 3 != 0
        h = h.masked_fill(~keep, -1.5)
        return self.out(torch.where(keep, h, 0.25) + torch.erf(h))


def activations():
    return Activations()


class ConvPoolMix(nn.Module):
    """A depthwise and a grouped convolution, max and average pooling with
    ceil_mode, average pooling that counts its padding (PyTorch's default),
    adaptive average pooling with uneven windows."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.grouped = nn.Conv2d(8, 12, 1, groups=4)
        self.max = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.avg = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True)
        self.adapt = nn.AdaptiveAvgPool2d((3, 2))
        self.fc = nn.Linear(12 * 3 * 2, 4)

    def forward(self, x):  # [N, 3, 9, 9]
        h = F.relu(self.stem(x))
        h = self.grouped(F.relu(self.depthwise(h)))
        h = self.avg(self.max(h))        # 9 -> 4 -> 3 (ceil)
        h = self.adapt(F.avg_pool2d(h, 2, 1, 1))  # count_include_pad
        return self.fc(torch.flatten(h, 1))


def conv_pool_mix():
    return ConvPoolMix()


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


class Upsampler(nn.Module):
    """A transposed convolution (echo.conv_transpose2d)."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(3, 2, 2, stride=2)
        self.fc = nn.Linear(2 * 8 * 8, 2)

    def forward(self, x):
        return self.fc(torch.flatten(self.up(x), 1))


def upsampler():
    return Upsampler()


class Dilated(nn.Module):
    """A dilated convolution (DeepLab's atrous convolution): Echo has
    none."""

    def __init__(self):
        super().__init__()
        self.atrous = nn.Conv2d(3, 2, 3, padding=2, dilation=2)
        self.fc = nn.Linear(2 * 4 * 4, 2)

    def forward(self, x):
        return self.fc(torch.flatten(self.atrous(x), 1))


def dilated():
    return Dilated()


class DilatedPool(nn.Module):
    """Max pooling with dilation: Echo has none."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 2, 1)
        self.pool = nn.MaxPool2d(2, dilation=2)
        self.fc = nn.Linear(2 * 2 * 2, 2)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.conv(x)), 1))


def dilated_pool():
    return DilatedPool()


class StopGradient(nn.Module):
    """A statistic of the features used with detach (a stop-gradient)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        h = self.fc(x)
        return self.head(h - h.mean().detach())


def stop_gradient():
    return StopGradient()


class NoGradScale(nn.Module):
    """A scale computed from a weight under torch.no_grad(): a
    stop-gradient, as spectral_norm's power iteration."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        with torch.no_grad():
            scale = self.fc.weight.abs().amax()
        return self.fc(x) / scale


def no_grad_scale():
    return NoGradScale()


class Noisy(nn.Module):
    """Gaussian noise drawn in forward: randomness other than dropout."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x + 0.1 * torch.randn_like(x))


def noisy():
    return Noisy()


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


def not_a_module():
    return 42


# -- hostile modules: each is one error line, never a traceback ---------------

class Raises(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        raise ValueError("this module is not ready")


def raises():
    return Raises()


class Cumsum(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(torch.cumsum(x, 1))


def cumsum():
    return Cumsum()


class Scans(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(torch.cumsum(x, 1) + torch.cumprod(x, 1) +
                       torch.cumsum(x, 0))


def scans():
    return Scans()


class GatedLinear(nn.Linear):
    """An nn.Linear subclass whose forward branches on a tensor value."""

    def forward(self, x):
        if x.mean() > 0:
            return super().forward(x)
        return super().forward(-x)


def gated_linear():
    return nn.Sequential(GatedLinear(4, 4), nn.ReLU(), nn.Linear(4, 2))


def broken_factory():
    return nn.Linear(4, -1)
