"""The hand-written PyTorch models of bench/import_zoo.py, written as
PyTorch users write them (nothing here is shaped for Echo's importer).

* ``seq2seq_transformer``: ``nn.Transformer`` encoder-decoder, token
  embeddings, learned positions, the causal target mask from
  ``nn.Transformer.generate_square_subsequent_mask`` built in forward;
* ``gpt``: a GPT-2-style decoder-only LM: token + ``arange`` positions, a
  causal mask built in forward with ``triu``/``masked_fill``, erf GELU,
  LayerNorm, the LM head tied to the token embedding;
* ``lstm_lm``: a 2-layer LSTM LM, dropout between the layers and on the
  embeddings, the decoder tied to the encoder;
* ``text_cnn``: a Conv1d sentence classifier (Kim 2014): three widths, max
  over time, dropout;
* ``ln_gelu_mlp``: a LayerNorm + GELU MLP.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2SeqTransformer(nn.Module):
    def __init__(self, vocab=64, d_model=32, nhead=4, layers=2, ff=64,
                 dropout=0.1, max_len=64):
        super().__init__()
        self.d_model = d_model
        self.src_tok = nn.Embedding(vocab, d_model)
        self.tgt_tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(1, max_len, d_model) * 0.02)
        self.transformer = nn.Transformer(
            d_model, nhead, layers, layers, ff, dropout, batch_first=True)
        self.generator = nn.Linear(d_model, vocab)

    def forward(self, src, tgt):
        s, t = src.size(1), tgt.size(1)
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(t)
        src_x = self.src_tok(src) * math.sqrt(self.d_model) + \
            self.pos[:, :s]
        tgt_x = self.tgt_tok(tgt) * math.sqrt(self.d_model) + \
            self.pos[:, :t]
        h = self.transformer(src_x, tgt_x, tgt_mask=tgt_mask)
        return self.generator(h)


def seq2seq_transformer():
    return Seq2SeqTransformer()


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head = heads

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        att = att.masked_fill(causal, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, dropout)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(),
                                 nn.Linear(4 * d, d), nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab=64, block_size=32, layers=2, heads=2, d=32,
                 dropout=0.0):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block_size, d)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList([Block(d, heads, dropout)
                                for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def gpt():
    return GPT()


class LSTMLM(nn.Module):
    def __init__(self, vocab=64, d=32, layers=2, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, d, layers, dropout=dropout)
        self.decoder = nn.Linear(d, vocab)
        self.decoder.weight = self.encoder.weight  # tied weights

    def forward(self, tokens):  # [T, B]
        emb = self.drop(self.encoder(tokens))
        output, _ = self.rnn(emb)
        return self.decoder(self.drop(output))


def lstm_lm():
    return LSTMLM()


class TextCNN(nn.Module):
    def __init__(self, vocab=64, d=16, filters=8, widths=(3, 4, 5),
                 classes=4, dropout=0.5):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d)
        self.convs = nn.ModuleList([nn.Conv1d(d, filters, w)
                                    for w in widths])
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(filters * len(widths), classes)

    def forward(self, tokens):  # [B, T]
        x = self.embedding(tokens).transpose(1, 2)  # [B, d, T]
        pooled = []
        for i, conv in enumerate(self.convs):
            h = F.relu(conv(x))
            if i == 0:
                pooled.append(F.max_pool1d(h, h.size(2)).squeeze(2))
            else:
                pooled.append(h.max(dim=2).values)
        return self.fc(self.dropout(torch.cat(pooled, 1)))


def text_cnn():
    return TextCNN()


def ln_gelu_mlp():
    return nn.Sequential(nn.Linear(32, 64), nn.LayerNorm(64), nn.GELU(),
                         nn.Linear(64, 64), nn.LayerNorm(64), nn.GELU(),
                         nn.Linear(64, 10))
