"""Current models, small, written the way today's code writes them (the
Hugging Face, nanoGPT, Meta LLaMA, diffusers and timm idioms), for
bench/current_zoo.py. Each ``build_*`` returns ``(module, batch, loss)``:
``batch(seed) -> (inputs, labels)`` draws a batch (tensors as a data
loader gives them: int64 ids, float images), ``loss`` is what
``echo.torch.compile_step`` takes (``None``: the module returns its loss
from ``forward(..., labels)``; a string; or a function of (output,
labels)). Standard PyTorch only (torch 1.13 API)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint


def _ids(seed, shape, vocab, low=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(low, vocab, shape, generator=g)


def _normal(seed, shape):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g)


# --- LLaMA-style decoder: RMSNorm, rotary, SwiGLU, grouped-query heads ----

class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) \
            * self.weight


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, dim, heads, kv_heads, seq):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.q_proj = nn.Linear(dim, dim, bias=False)
        self.k_proj = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(dim, dim, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2).float()
                               / self.head_dim))
        t = torch.arange(seq).float()
        freqs = torch.outer(t, inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, x):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        cos, sin = self.cos[:s], self.sin[:s]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.heads // self.kv_heads
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        att = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        mask = torch.full((s, s), float("-inf")).triu(1)
        att = F.softmax(att + mask, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, -1)
        return self.o_proj(y)


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaBlock(nn.Module):
    def __init__(self, dim, heads, kv_heads, seq):
        super().__init__()
        self.input_layernorm = RMSNorm(dim)
        self.self_attn = LlamaAttention(dim, heads, kv_heads, seq)
        self.post_attention_layernorm = RMSNorm(dim)
        self.mlp = SwiGLU(dim, 2 * dim)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    def __init__(self, vocab=96, dim=32, heads=4, kv_heads=2, layers=2, seq=16):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(
            [LlamaBlock(dim, heads, kv_heads, seq) for _ in range(layers)])
        self.norm = RMSNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids):
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


def build_llama():
    model = Llama()

    def batch(seed):
        ids = _ids(seed, (2, 16), 96)
        return (ids,), _ids(seed + 100, (2, 16), 96)
    return model, batch, "cross_entropy"


# --- BERT-style masked LM: padding mask from ids, -100 labels ------------

class BertMLM(nn.Module):
    def __init__(self, vocab=80, dim=32, heads=4, layers=2, seq=12, pad=0):
        super().__init__()
        self.pad, self.heads = pad, heads
        self.word_embeddings = nn.Embedding(vocab, dim, padding_idx=pad)
        self.position_embeddings = nn.Embedding(seq, dim)
        self.ln = nn.LayerNorm(dim)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(
            dim, heads, 2 * dim, dropout=0.1, activation="gelu",
            batch_first=True) for _ in range(layers)])
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, labels):
        positions = torch.arange(input_ids.shape[1])
        x = self.ln(self.word_embeddings(input_ids)
                    + self.position_embeddings(positions))
        attention_mask = (input_ids != self.pad).long()       # tokenizer style
        bias = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) \
            * torch.finfo(torch.float32).min
        bias = bias.expand(-1, self.heads, input_ids.shape[1], -1)
        bias = bias.reshape(-1, input_ids.shape[1], input_ids.shape[1])
        for layer in self.layers:
            x = layer(x, src_mask=bias)
        logits = self.head(x)
        return F.cross_entropy(logits.view(-1, logits.shape[-1]),
                               labels.view(-1))


def build_bert_mlm():
    model = BertMLM()

    def batch(seed):
        ids = _ids(seed, (2, 12), 80, low=1)
        ids[0, 9:] = 0                                  # padding
        ids[1, 11:] = 0
        labels = torch.full_like(ids, -100)
        pick = _ids(seed + 1, (2, 12), 100) < 30        # ~30% masked
        labels[pick] = _ids(seed + 2, (2, 12), 80, low=1)[pick]
        labels[ids == 0] = -100
        labels[0, 0] = 5                                # at least one row
        return (ids,), labels
    return model, batch, None


# --- GPT (nanoGPT style) with the loss and label smoothing in forward ----

class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, seq):
        super().__init__()
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.attn_dropout = nn.Dropout(0.1)
        self.heads = heads
        self.register_buffer("bias", torch.tril(torch.ones(seq, seq))
                             .view(1, 1, seq, seq))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class GPTBlock(nn.Module):
    def __init__(self, dim, heads, seq):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, seq)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(),
                                 nn.Linear(4 * dim, dim), nn.Dropout(0.1))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab=64, dim=32, heads=4, layers=2, seq=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(seq, dim)
        self.blocks = nn.ModuleList([GPTBlock(dim, heads, seq)
                                     for _ in range(layers)])
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.wte.weight = self.lm_head.weight            # weight tying

    def forward(self, idx, targets=None):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        if targets is None:
            return logits
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)),
                               targets.view(-1), label_smoothing=0.1)
        return logits, loss


class GPTWithLoss(nn.Module):
    """nanoGPT's (logits, loss) return, labels passed as its last
    argument."""
    def __init__(self):
        super().__init__()
        self.gpt = GPT()

    def forward(self, idx, targets):
        return self.gpt(idx, targets)[1]


def build_gpt_label_smoothing():
    model = GPTWithLoss()

    def batch(seed):
        return (_ids(seed, (2, 16), 64),), _ids(seed + 7, (2, 16), 64)
    return model, batch, None


# --- LoRA fine-tune: frozen backbone, trainable low-rank adapters ---------

class LoRALinear(nn.Module):
    def __init__(self, base, rank=4, alpha=8):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.randn(rank, base.in_features) * 0.01)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) \
            * self.scaling


def build_lora():
    backbone = GPT(vocab=64, dim=32, heads=4, layers=2, seq=16)
    for p in backbone.parameters():
        p.requires_grad_(False)
    for block in backbone.blocks:
        block.attn.c_attn = LoRALinear(block.attn.c_attn)
        block.attn.c_proj = LoRALinear(block.attn.c_proj)
    with torch.no_grad():                     # a trained adapter, not zero
        for m in backbone.modules():
            if isinstance(m, LoRALinear):
                m.lora_B.normal_(0, 0.02)

    def batch(seed):
        return (_ids(seed, (2, 16), 64),), _ids(seed + 3, (2, 16), 64)
    return backbone, batch, "cross_entropy"


# --- Distillation: a frozen teacher under no_grad --------------------------

class Distill(nn.Module):
    def __init__(self, temperature=2.0):
        super().__init__()
        self.teacher = nn.Sequential(nn.Linear(24, 64), nn.ReLU(),
                                     nn.Linear(64, 10))
        self.student = nn.Sequential(nn.Linear(24, 16), nn.ReLU(),
                                     nn.Linear(16, 10))
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.t = temperature

    def forward(self, x, labels):
        with torch.no_grad():
            soft = F.softmax(self.teacher(x) / self.t, dim=-1)
        logits = self.student(x)
        distill = -(soft * F.log_softmax(logits / self.t, dim=-1)).sum(-1) \
            .mean() * self.t ** 2
        return 0.5 * distill + 0.5 * F.cross_entropy(logits, labels)


def build_distillation():
    model = Distill()

    def batch(seed):
        return (_normal(seed, (8, 24)),), _ids(seed + 1, (8,), 10)
    return model, batch, None


# --- UNet with transposed convolutions, per-pixel loss --------------------

class UNet(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1),
                                 nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        self.down1, self.down2 = block(3, 8), block(8, 16)
        self.pool = nn.MaxPool2d(2)
        self.mid = block(16, 16)
        self.up2 = nn.ConvTranspose2d(16, 16, 2, stride=2)
        self.dec2 = block(32, 8)
        self.up1 = nn.ConvTranspose2d(8, 8, 2, stride=2)
        self.dec1 = block(16, 8)
        self.out = nn.Conv2d(8, classes, 1)

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(self.pool(d1))
        m = self.mid(self.pool(d2))
        u2 = self.dec2(torch.cat([self.up2(m), d2], dim=1))
        u1 = self.dec1(torch.cat([self.up1(u2), d1], dim=1))
        return self.out(u1)


def build_unet():
    model = UNet()

    def batch(seed):
        return (_normal(seed, (2, 3, 16, 16)),), _ids(seed + 1, (2, 16, 16), 3)
    return model, batch, "cross_entropy"


# --- Top-2 mixture of experts ----------------------------------------------

class Top2MoE(nn.Module):
    def __init__(self, dim=16, experts=4, hidden=32, classes=5):
        super().__init__()
        self.gate = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList([nn.Sequential(
            nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
            for _ in range(experts)])
        self.head = nn.Linear(dim, classes)
        self.num_experts = experts

    def forward(self, x):
        probs = F.softmax(self.gate(x), dim=-1)
        weights, chosen = torch.topk(probs, 2, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        dispatch = F.one_hot(chosen, self.num_experts).to(x.dtype)  # t,2,E
        combine = (dispatch * weights.unsqueeze(-1)).sum(1)          # t,E
        out = torch.stack([e(x) for e in self.experts], dim=-1)      # t,d,E
        y = (out * combine.unsqueeze(1)).sum(-1)
        return self.head(x + y)


def build_moe():
    model = Top2MoE()

    def batch(seed):
        return (_normal(seed, (12, 16)),), _ids(seed + 1, (12,), 5)
    return model, batch, "cross_entropy"


# --- DDPM denoiser with a sinusoidal timestep embedding --------------------

def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32)
                      / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, channels=4, dim=32):
        super().__init__()
        self.dim = dim
        self.time_mlp = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(),
                                      nn.Linear(dim, dim))
        self.conv_in = nn.Conv2d(channels, dim, 3, padding=1)
        self.norm = nn.GroupNorm(4, dim)
        self.conv_out = nn.Conv2d(dim, channels, 3, padding=1)

    def forward(self, x, t, noise):
        t_emb = timestep_embedding(t, self.dim).to(dtype=x.dtype)  # diffusers
        h = self.conv_in(x) + self.time_mlp(t_emb)[:, :, None, None]
        h = F.silu(self.norm(h))
        return F.mse_loss(self.conv_out(h), noise)


def build_ddpm():
    model = Denoiser()

    def batch(seed):
        return ((_normal(seed, (2, 4, 8, 8)), _ids(seed + 1, (2,), 1000)),
                _normal(seed + 2, (2, 4, 8, 8)))
    return model, batch, None


# --- Conformer block --------------------------------------------------------

class ConformerConv(nn.Module):
    def __init__(self, dim, kernel=7):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        self.pw1 = nn.Conv1d(dim, 2 * dim, 1)
        self.dw = nn.Conv1d(dim, dim, kernel, padding=kernel // 2, groups=dim)
        self.bn = nn.BatchNorm1d(dim)
        self.pw2 = nn.Conv1d(dim, dim, 1)

    def forward(self, x):
        y = self.ln(x).transpose(1, 2)
        y = F.glu(self.pw1(y), dim=1)
        y = self.pw2(F.silu(self.bn(self.dw(y))))
        return y.transpose(1, 2)


class Conformer(nn.Module):
    def __init__(self, dim=32, heads=4, classes=6):
        super().__init__()
        def ff():
            return nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim),
                                 nn.SiLU(), nn.Linear(4 * dim, dim))
        self.ff1, self.ff2 = ff(), ff()
        self.ln_att = nn.LayerNorm(dim)
        self.att = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.conv = ConformerConv(dim)
        self.ln_out = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = x + 0.5 * self.ff1(x)
        a = self.ln_att(x)
        x = x + self.att(a, a, a, need_weights=False)[0]
        x = x + self.conv(x)
        x = self.ln_out(x + 0.5 * self.ff2(x))
        return self.head(x)


def build_conformer():
    model = Conformer()

    def batch(seed):
        return (_normal(seed, (2, 20, 32)),), _ids(seed + 1, (2, 20), 6)
    return model, batch, "cross_entropy"


# --- T5 block with relative position bias ----------------------------------

class T5LayerNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(var + self.eps))


def relative_position_bucket(relative_position, num_buckets=16, max_distance=32):
    num_buckets //= 2
    buckets = (relative_position > 0).to(torch.long) * num_buckets
    n = torch.abs(relative_position)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    large = max_exact + (torch.log(n.float() / max_exact)
                         / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, n, large)


class T5Block(nn.Module):
    def __init__(self, vocab=64, dim=32, heads=4, seq=12):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.embed = nn.Embedding(vocab, dim)
        self.ln1 = T5LayerNorm(dim)
        self.q = nn.Linear(dim, dim, bias=False)
        self.k = nn.Linear(dim, dim, bias=False)
        self.v = nn.Linear(dim, dim, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)
        self.relative_attention_bias = nn.Embedding(16, heads)
        self.ln2 = T5LayerNorm(dim)
        self.wi_0 = nn.Linear(dim, 2 * dim, bias=False)
        self.wi_1 = nn.Linear(dim, 2 * dim, bias=False)
        self.wo = nn.Linear(2 * dim, dim, bias=False)
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids):
        b, s = ids.shape
        x = self.embed(ids)
        h = self.ln1(x)
        q = self.q(h).view(b, s, self.heads, self.dh).transpose(1, 2)
        k = self.k(h).view(b, s, self.heads, self.dh).transpose(1, 2)
        v = self.v(h).view(b, s, self.heads, self.dh).transpose(1, 2)
        ctx = torch.arange(s)[:, None]
        mem = torch.arange(s)[None, :]
        buckets = relative_position_bucket(mem - ctx)
        bias = self.relative_attention_bias(buckets).permute(2, 0, 1)[None]
        scores = q @ k.transpose(-1, -2) + bias           # T5: no scaling
        attn = F.softmax(scores.float(), dim=-1).type_as(scores)
        x = x + self.o((attn @ v).transpose(1, 2).reshape(b, s, -1))
        h = self.ln2(x)
        x = x + self.wo(F.gelu(self.wi_0(h), approximate="tanh") * self.wi_1(h))
        return self.lm_head(x)


def build_t5():
    model = T5Block()

    def batch(seed):
        return (_ids(seed, (2, 12), 64),), _ids(seed + 1, (2, 12), 64)
    return model, batch, "cross_entropy"


# --- A Hugging Face-style model after gradient_checkpointing_enable() -----

class HFLayer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln1 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(),
                                nn.Linear(4 * dim, dim))
        self.ln2 = nn.LayerNorm(dim)

    def forward(self, x):
        x = self.ln1(x + self.attention(x, x, x, need_weights=False)[0])
        return self.ln2(x + self.ff(x))


class HFModel(nn.Module):
    supports_gradient_checkpointing = True

    def __init__(self, vocab=64, dim=32, heads=4, layers=3):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, dim)
        self.layer = nn.ModuleList([HFLayer(dim, heads) for _ in range(layers)])
        self.classifier = nn.Linear(dim, vocab)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def forward(self, input_ids, labels=None):
        x = self.embeddings(input_ids)
        for layer in self.layer:
            if self.gradient_checkpointing and self.training:
                x = torch.utils.checkpoint.checkpoint(layer, x)
            else:
                x = layer(x)
        logits = self.classifier(x)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)),
                                   labels.view(-1))
        return {"loss": loss, "logits": logits}


def build_hf_checkpointing():
    model = HFModel()
    model.gradient_checkpointing_enable()

    def batch(seed):
        return (_ids(seed, (2, 10), 64),), _ids(seed + 1, (2, 10), 64)
    return model, batch, None


MODELS = {
    "llama_decoder": build_llama,
    "bert_mlm_padding": build_bert_mlm,
    "gpt_label_smoothing": build_gpt_label_smoothing,
    "lora_finetune": build_lora,
    "distillation": build_distillation,
    "unet_transposed": build_unet,
    "moe_top2": build_moe,
    "ddpm_denoiser": build_ddpm,
    "conformer": build_conformer,
    "t5_block": build_t5,
    "hf_checkpointing": build_hf_checkpointing,
}
