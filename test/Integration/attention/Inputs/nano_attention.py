"""nanoGPT's causal self-attention (the slow path: a tril buffer used by
masked_fill), a projection and a linear
head, for attention/import-nanogpt.test."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, d=32, heads=4, block=64, seq=40):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.head = nn.Linear(d, 7)
        self.heads = heads
        self.register_buffer("bias", torch.tril(torch.ones(block, block))
                             .view(1, 1, block, block))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.head(self.c_proj(y)).view(B * T, 7)


def make():
    torch.manual_seed(0)
    return Attention()
