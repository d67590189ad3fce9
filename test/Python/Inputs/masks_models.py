"""Models written as users write them, with masks and indices computed in
the step (see import-torch-masks.test): a BERT-style masked-LM encoder whose
padding mask comes from the ids, a top-2 mixture-of-experts classifier, and
an embedding with padding_idx."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = 0


class BertLayer(nn.Module):
    """A post-norm encoder layer as Hugging Face's BertLayer computes it
    (but for the key's bias)."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(hidden, hidden)
        # No key bias: it adds the same score to every key of a query,
        # which the softmax cancels, so its gradient is 0 up to rounding;
        # AdamW makes that noise full-size steps, different in any two
        # implementations.
        self.key = nn.Linear(hidden, hidden, bias=False)
        self.value = nn.Linear(hidden, hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, ffn)
        self.output = nn.Linear(ffn, hidden)
        self.out_norm = nn.LayerNorm(hidden, eps=1e-12)

    def split(self, x):
        b, t, h = x.shape
        return x.view(b, t, self.heads, h // self.heads).permute(0, 2, 1, 3)

    def forward(self, x, additive_mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), \
            self.split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        scores = scores + additive_mask
        context = F.softmax(scores, dim=-1) @ v
        b, h, t, d = context.shape
        context = context.permute(0, 2, 1, 3).reshape(b, t, h * d)
        x = self.attn_norm(x + self.attn_out(context))
        return self.out_norm(x + self.output(F.gelu(self.intermediate(x))))


class BertMLM(nn.Module):
    """Word embeddings with padding_idx (Hugging Face's default), learned
    positions, two encoder layers, the MLM head tied to the word
    embeddings. The attention mask is built from the ids, as a tokenizer's
    int mask: ``(ids != pad).long()``, made additive with
    ``(1.0 - mask.to(torch.float)) * -10000.0``; the padding tokens' hidden
    states are also zeroed with ``masked_fill(ids == pad, 0)``."""

    def __init__(self, vocab=24, hidden=16, heads=2, ffn=32, layers=2,
                 positions=24):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden, padding_idx=PAD)
        self.position = nn.Embedding(positions, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(
            [BertLayer(hidden, heads, ffn) for _ in range(layers)])
        self.transform = nn.Linear(hidden, hidden)
        self.transform_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.decoder_bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, ids):
        attention_mask = (ids != PAD).long()
        extended = attention_mask[:, None, None, :].to(torch.float)
        extended = (1.0 - extended) * -10000.0
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.norm(self.word(ids) + self.position(positions))
        for layer in self.layers:
            x = layer(x, extended)
        x = x.masked_fill((ids == PAD).unsqueeze(-1), 0.0)
        x = self.transform_norm(F.gelu(self.transform(x)))
        return x @ self.word.weight.t() + self.decoder_bias


def bert_mlm():
    return BertMLM()


class Expert(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.up = nn.Linear(hidden, ffn)
        self.down = nn.Linear(ffn, hidden)

    def forward(self, x):
        return self.down(F.silu(self.up(x)))


class OneHotMoE(nn.Module):
    """Top-2 routing, dispatched with one_hot: each token's two weights
    spread over the experts (Switch/GShard's dispatch mask), every expert
    run densely and combined by its gate."""

    def __init__(self, hidden, ffn, experts):
        super().__init__()
        self.router = nn.Linear(hidden, experts, bias=False)
        self.experts = nn.ModuleList(
            [Expert(hidden, ffn) for _ in range(experts)])

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        weights, chosen = probs.topk(2, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        dispatch = F.one_hot(chosen, num_classes=len(self.experts))
        gates = (weights.unsqueeze(-1) * dispatch).sum(dim=1)
        out = 0
        for e, expert in enumerate(self.experts):
            out = out + gates[:, e:e + 1] * expert(x)
        return out


class GatherMoE(nn.Module):
    """Top-2 routing combined with gather (the chosen experts' outputs)
    and scatter (the dense gates of an auxiliary mixing term)."""

    def __init__(self, hidden, ffn, experts):
        super().__init__()
        self.router = nn.Linear(hidden, experts)
        self.experts = nn.ModuleList(
            [Expert(hidden, ffn) for _ in range(experts)])
        self.shared = nn.Linear(hidden, hidden)

    def forward(self, x):
        logits = self.router(x)
        probs = logits.softmax(dim=-1)
        weights, chosen = torch.topk(probs, k=2, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        outs = torch.stack([expert(x) for expert in self.experts], dim=1)
        index = chosen.unsqueeze(-1).expand(-1, -1, outs.shape[-1])
        picked = outs.gather(1, index)
        routed = (picked * weights.unsqueeze(-1)).sum(dim=1)
        dense = torch.zeros_like(probs).scatter(1, chosen, weights)
        spread = torch.zeros_like(probs).scatter_add(1, chosen, weights)
        mix = (dense + spread).sum(dim=-1, keepdim=True)
        return routed + 0.1 * mix * self.shared(x)


class MoEClassifier(nn.Module):
    """Tokens through two pre-norm residual MoE blocks (one dispatched
    with one_hot, one with gather/scatter), then a classifier."""

    def __init__(self, hidden=16, ffn=24, experts=4, classes=5):
        super().__init__()
        self.norm1 = nn.LayerNorm(hidden)
        self.moe1 = OneHotMoE(hidden, ffn, experts)
        self.norm2 = nn.LayerNorm(hidden)
        self.moe2 = GatherMoE(hidden, ffn, experts)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        x = x + self.moe1(self.norm1(x))
        x = x + self.moe2(self.norm2(x))
        return self.head(x)


def moe():
    return MoEClassifier()


class PaddedBag(nn.Module):
    """Mean of the non-padding tokens' embeddings (nn.Embedding with
    padding_idx=1), then a classifier: the padding row gets no gradient,
    as in PyTorch."""

    def __init__(self, vocab=20, hidden=12, classes=4, pad=1):
        super().__init__()
        self.pad = pad
        self.embed = nn.Embedding(vocab, hidden, padding_idx=pad)
        with torch.no_grad():
            self.embed.weight[pad].normal_()  # a row that would train
        self.fc = nn.Linear(hidden, classes)

    def forward(self, ids):
        keep = (ids != self.pad).float()
        summed = (self.embed(ids) * keep.unsqueeze(-1)).sum(dim=1)
        mean = summed / keep.sum(dim=1, keepdim=True).clamp(min=1.0)
        return self.fc(mean + 0.1 * self.embed(ids).mean(dim=1))


def padded_bag():
    return PaddedBag()


class TimestepDenoiser(nn.Module):
    """A DDPM-style denoiser of a noisy vector given its integer timestep:
    the timestep made float (``t.float() / steps``) through a time MLP, a
    threshold on it (``t >= steps // 2``: the late steps get a learned
    shift, chosen by ``torch.where``), and the prediction kept where the
    input is non-negative or the step is early (``x.ge(0) | (t < 100)``,
    negated into ``masked_fill``)."""

    def __init__(self, dim=16, hidden=32, steps=1000):
        super().__init__()
        self.steps = steps
        self.time = nn.Sequential(nn.Linear(1, hidden), nn.SiLU(),
                                  nn.Linear(hidden, hidden))
        self.inp = nn.Linear(dim, hidden)
        self.late = nn.Parameter(0.1 * torch.randn(hidden))
        self.out = nn.Linear(hidden, dim)

    def forward(self, x, t):
        # t.float(), then the model's dtype (as diffusers does).
        tf = t.float().to(x.dtype)
        h = self.inp(x) + self.time(tf[:, None] / self.steps)
        late = (t >= self.steps // 2)[:, None]
        h = F.silu(torch.where(late, h + self.late, h))
        keep = x.ge(0.0) | (t < 100)[:, None]
        return self.out(h).masked_fill(~keep, 0.0)


def diffusion():
    return TimestepDenoiser()
