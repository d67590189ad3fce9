"""Hugging Face attention with an attention_mask input (1 keep, 0 padding),
for import-torch-hf-masks.test: GPT-2's torch.where(causal, w, finfo.min)
plus the padding mask (1 - mask[:, None, None, :]) * finfo.min, and
LLaMA's _prepare_decoder_attention_mask (a finfo.min triangle expanded to
[B, 1, S, S] plus the expanded, inverted, masked_fill'ed padding mask) added
to the scores, then torch.max(scores, finfo.min). And a near miss: a mask
that depends on the query through the padding (padding queries masked too).
Ids and an attention_mask in, logits [B, T, V] out; no dropout."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 11


def split(x, heads):
    b, t, c = x.shape
    return x.view(b, t, heads, c // heads).permute(0, 2, 1, 3)


class GPT2Block(nn.Module):
    def __init__(self, d, heads, block):
        super().__init__()
        self.heads = heads
        self.ln = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(
            (block, block), dtype=torch.bool)).view(1, 1, block, block))

    def forward(self, x, attention_mask):
        h = self.ln(x)
        q, k, v = (split(t, self.heads) for t in self.c_attn(h).split(
            h.shape[-1], dim=2))
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        T = q.size(-2)
        causal = self.bias[:, :, :T, :T]
        mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
        w = torch.where(causal, w.to(w.dtype), mask_value)
        w = w + attention_mask
        w = nn.functional.softmax(w, dim=-1)
        o = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        return x + self.c_proj(o.view(x.shape))


class HFGPT2(nn.Module):
    def __init__(self, d=16, heads=2, block=16, layers=2):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, d)
        self.wpe = nn.Embedding(block, d)
        self.blocks = nn.ModuleList(GPT2Block(d, heads, block)
                                    for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, ids, attention_mask):
        B, T = ids.shape
        x = self.wte(ids) + self.wpe(torch.arange(T, device=ids.device))
        # GPT2Model.forward's extended attention mask.
        m = attention_mask.view(B, -1)[:, None, None, :].to(x.dtype)
        m = (1.0 - m) * torch.finfo(x.dtype).min
        for block in self.blocks:
            x = block(x, m)
        return self.head(self.ln_f(x))


def make_causal_mask(shape, dtype, device):
    bsz, tgt_len = shape
    mask = torch.full((tgt_len, tgt_len),
                      torch.tensor(torch.finfo(dtype).min, device=device),
                      device=device)
    mask_cond = torch.arange(mask.size(-1), device=device)
    mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
    mask = mask.to(dtype)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len)


def expand_mask(mask, dtype, tgt_len):
    bsz, src_len = mask.size()
    expanded = mask[:, None, None, :].expand(bsz, 1, tgt_len,
                                              src_len).to(dtype)
    inverted = 1.0 - expanded
    return inverted.masked_fill(inverted.to(torch.bool),
                                torch.finfo(dtype).min)


class LlamaBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.norm = nn.LayerNorm(d)
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)

    def forward(self, x, attention_mask):
        h = self.norm(x)
        q, k, v = (split(f(h), self.heads)
                   for f in (self.q_proj, self.k_proj, self.v_proj))
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        w = w + attention_mask
        # HF's line with its later dtype= (without it, the floor of an f64
        # reference is an f32 tensor, -inf, and padded rows are NaN).
        w = torch.max(w, torch.tensor(torch.finfo(w.dtype).min,
                                      dtype=w.dtype))
        # HF's upcast to f32 (not a downcast of the f64 reference, where
        # the f64 finfo.min would become -inf and padded rows NaN).
        w = F.softmax(w, dim=-1, dtype=torch.promote_types(
            w.dtype, torch.float32)).to(q.dtype)
        o = torch.matmul(w, v).transpose(1, 2).reshape(x.shape)
        return x + self.o_proj(o)


class HFLlama(nn.Module):
    def __init__(self, d=16, heads=2, layers=2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d)
        self.layers = nn.ModuleList(LlamaBlock(d, heads)
                                    for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, ids, attention_mask):
        x = self.embed(ids)
        # LlamaModel._prepare_decoder_attention_mask.
        mask = make_causal_mask(ids.shape, x.dtype, ids.device)
        mask = expand_mask(attention_mask, x.dtype, ids.shape[1]) + mask
        for layer in self.layers:
            x = layer(x, mask)
        return self.head(self.norm(x))


class QueryPadded(HFLlama):
    """Near miss: the padding mask also masks padding queries
    (mask[:, None, :, None] * mask[:, None, None, :]): it depends on the
    query otherwise than through the triangle."""

    def forward(self, ids, attention_mask):
        x = self.embed(ids)
        mask = make_causal_mask(ids.shape, x.dtype, ids.device)
        a = attention_mask.to(x.dtype)
        both = a[:, None, :, None] * a[:, None, None, :]
        mask = (1.0 - both) * torch.finfo(x.dtype).min + mask
        for layer in self.layers:
            x = layer(x, mask)
        return self.head(self.norm(x))


def hf_gpt2():
    return HFGPT2()


def hf_llama():
    return HFLlama()


def query_padded():
    return QueryPadded()
