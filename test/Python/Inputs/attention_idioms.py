"""Attention as users write it in PyTorch, for import-torch-attention.test:
nanoGPT (a tril buffer sliced and compared with 0 under masked_fill),
LLaMA (a triu of -inf built in forward and added, grouped-query heads
repeated with repeat_kv), BERT (an additive key-padding mask computed from
the ids) nn.TransformerEncoderLayer (nn.Transformer's square
subsequent mask passed as src_mask) and Hugging Face GPT-2 (a bool tril
buffer under torch.where with finfo.min). Ids in, logits [B, T, V] out; no
dropout (compared with PyTorch eager)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 11


class NanoAttention(nn.Module):
    def __init__(self, d, heads, block):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.n_head = heads
        self.register_buffer("bias", torch.tril(torch.ones(block, block))
                             .view(1, 1, block, block))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class NanoGPT(nn.Module):
    def __init__(self, d=16, heads=2, block=16, layers=1):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, d)
        self.wpe = nn.Embedding(block, d)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict(dict(
                ln=nn.LayerNorm(d), attn=NanoAttention(d, heads, block))))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, idx):
        T = idx.shape[1]
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = x + block["attn"](block["ln"](x))
        return self.lm_head(self.ln_f(x))


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) \
            * self.weight


def repeat_kv(x, n_rep):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (x[:, :, :, None, :]
            .expand(bs, slen, n_kv_heads, n_rep, head_dim)
            .reshape(bs, slen, n_kv_heads * n_rep, head_dim))


class Llama(nn.Module):
    def __init__(self, d=16, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.tok = nn.Embedding(VOCAB, d)
        self.norm = RMSNorm(d)
        self.wq = nn.Linear(d, heads * self.hd, bias=False)
        self.wk = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wv = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(heads * self.hd, d, bias=False)
        self.out = nn.Linear(d, VOCAB, bias=False)

    def forward(self, ids):
        bsz, seqlen = ids.shape
        h = self.tok(ids)
        x = self.norm(h)
        xq = self.wq(x).view(bsz, seqlen, self.heads, self.hd)
        xk = self.wk(x).view(bsz, seqlen, self.kv_heads, self.hd)
        xv = self.wv(x).view(bsz, seqlen, self.kv_heads, self.hd)
        keys = repeat_kv(xk, self.heads // self.kv_heads)
        values = repeat_kv(xv, self.heads // self.kv_heads)
        xq, keys, values = (t.transpose(1, 2) for t in (xq, keys, values))
        mask = torch.full((seqlen, seqlen), float("-inf"), device=ids.device)
        mask = torch.triu(mask, diagonal=1)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.hd)
        scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        o = torch.matmul(scores, values)
        o = o.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.out(h + self.wo(o))


class Bert(nn.Module):
    """BERT's self-attention with the extended attention mask of the ids
    (pad id 0): (1 - mask) * -10000 added to the scores."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.emb = nn.Embedding(VOCAB, d)
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d)
        self.value = nn.Linear(d, d)
        self.ln = nn.LayerNorm(d)
        self.out = nn.Linear(d, VOCAB)

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.hd).permute(0, 2, 1, 3)

    def forward(self, ids):
        mask = (ids != 0)
        ext = (1.0 - mask[:, None, None, :].float()) * -10000.0
        x = self.emb(ids)
        q, k, v = (self.split(f(x)) for f in (self.query, self.key,
                                               self.value))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd)
        scores = scores + ext
        probs = nn.functional.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ids.shape[0], ids.shape[1], -1)
        return self.out(self.ln(x + ctx))


class Encoder(nn.Module):
    """nn.TransformerEncoderLayer with nn.Transformer's square subsequent
    (causal) mask."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.layer = nn.TransformerEncoderLayer(
            d, heads, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, ids):
        mask = nn.Transformer.generate_square_subsequent_mask(ids.shape[1])
        return self.out(self.layer(self.emb(ids), src_mask=mask))


class PaddedEncoder(Encoder):
    """The encoder layer with the square subsequent mask and a key-padding
    mask from the ids (pad id 0): nn.MultiheadAttention merges them."""

    def forward(self, ids):
        mask = nn.Transformer.generate_square_subsequent_mask(ids.shape[1])
        return self.out(self.layer(self.emb(ids), src_mask=mask,
                                   src_key_padding_mask=(ids == 0)))


class HFGPT2(nn.Module):
    """Hugging Face GPT-2's attention: a bool tril buffer and
    torch.where(causal, scores, finfo(float32).min)."""

    def __init__(self, d=16, heads=2, block=16):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.wte = nn.Embedding(VOCAB, d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.head = nn.Linear(d, VOCAB)
        self.register_buffer("bias", torch.tril(torch.ones(
            (block, block), dtype=torch.bool)).view(1, 1, block, block))

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.hd).permute(0, 2, 1, 3)

    def forward(self, ids):
        x = self.wte(ids)
        q, k, v = (self.split(t) for t in self.c_attn(x).split(
            x.shape[-1], dim=2))
        w = torch.matmul(q, k.transpose(-1, -2)) / (v.size(-1) ** 0.5)
        T = q.size(-2)
        causal = self.bias[:, :, :T, :T]
        mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
        w = torch.where(causal, w.to(w.dtype), mask_value)
        w = nn.functional.softmax(w, dim=-1)
        o = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        return self.head(x + self.c_proj(o.view(x.shape)))


def nanogpt():
    return NanoGPT()


def llama():
    return Llama()


def bert():
    return Bert()


def encoder():
    return Encoder()


def encoder_padded():
    return PaddedEncoder()


def hf_gpt2():
    return HFGPT2()


def nanogpt_long():
    """nanoGPT at T = 2048 (import only: small d, one layer)."""
    return NanoGPT(d=8, heads=2, block=2048)
