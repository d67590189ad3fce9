"""Small models written as their users write them, each with an idiom the
importer used to refuse (see check_idioms.py and import-torch-idioms.test):

- ``unet``: a UNet with ``nn.ConvTranspose2d`` (2x2 stride 2, and 3x3
  stride 2 with ``output_padding``) and ``F.interpolate`` (bilinear with
  and without ``align_corners``; the logits upsampled with ``nearest``
  before a per-pixel loss);
- ``ddpm``: a DDPM denoiser conditioned on a sinusoidal timestep embedding
  computed in forward from the (float) timesteps;
- ``llama``: a LLaMA block as Meta's reference writes it: RMSNorm, complex
  rotary embeddings (``view_as_complex`` times ``freqs_cis`` made with
  ``torch.polar``, ``view_as_real(...).flatten(3)``), causal attention,
  SwiGLU;
- ``byol``: a BYOL/SimSiam-style model: a target network of frozen (EMA)
  parameters under ``torch.no_grad()``, the online network's projection of
  one view under ``torch.no_grad()`` and of the other ``.detach()``-ed;
- ``distill``: knowledge distillation: a teacher whose parameters require
  grad run under ``torch.no_grad()``, the loss (cross-entropy plus the soft
  cross-entropy against the teacher) returned by forward;
- ``hf_checkpointed`` / ``hf_checkpointed_reentrant``: a Hugging
  Face-style transformer after ``gradient_checkpointing_enable()``
  (``torch.utils.checkpoint.checkpoint(create_custom_forward(layer), ...)``
  per layer, ``use_reentrant`` False / True).

Each factory builds the module after ``torch.manual_seed(0)`` (the
importer's command line does it too); ``SPECS`` gives each one's inputs,
loss and labels.
"""

import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint


# -- (a) UNet -----------------------------------------------------------------

class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.SiLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1),
                                 nn.SiLU())

    def forward(self, x):
        return self.net(x)


class SmallUNet(nn.Module):
    def __init__(self, channels=3, classes=4, base=8):
        super().__init__()
        self.inc = DoubleConv(channels, base)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(base, 2 * base))
        self.down2 = nn.Sequential(nn.MaxPool2d(2),
                                   DoubleConv(2 * base, 4 * base))
        self.up2 = nn.ConvTranspose2d(4 * base, 2 * base, 2, stride=2)
        self.conv2 = DoubleConv(4 * base, 2 * base)
        self.up1 = nn.ConvTranspose2d(2 * base, base, 3, stride=2, padding=1,
                                      output_padding=1)
        self.conv1 = DoubleConv(2 * base, base)
        self.side = nn.Conv2d(4 * base, base, 1)
        self.outc = nn.Conv2d(base, classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        u = self.conv2(torch.cat([x2, self.up2(x3)], dim=1))
        u = self.conv1(torch.cat([x1, self.up1(u)], dim=1))
        # A deep-supervision branch: the bottleneck brought to full size by
        # bilinear interpolation (both corner conventions).
        side = self.side(x3)
        side = F.interpolate(side, scale_factor=2, mode="bilinear",
                             align_corners=False)
        side = F.interpolate(side, size=x.shape[-2:], mode="bilinear",
                             align_corners=True)
        logits = self.outc(u + side)
        # Half-resolution logits upsampled for the per-pixel loss.
        logits = F.avg_pool2d(logits, 2)
        return F.interpolate(logits, scale_factor=2, mode="nearest")


def unet():
    torch.manual_seed(0)
    return SmallUNet()


# -- (b) DDPM denoiser --------------------------------------------------------

def timestep_embedding(timesteps, dim, max_period=10000):
    """The sinusoidal embedding of guided-diffusion / DDPM."""
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) *
                      torch.arange(0, half, dtype=timesteps.dtype) / half)
    args = timesteps[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, channels=2, width=16, temb=16):
        super().__init__()
        self.temb = temb
        self.time_mlp = nn.Sequential(nn.Linear(temb, width), nn.SiLU(),
                                      nn.Linear(width, width))
        self.conv_in = nn.Conv2d(channels, width, 3, padding=1)
        self.conv_mid = nn.Conv2d(width, width, 3, padding=1)
        self.conv_out = nn.Conv2d(width, channels, 3, padding=1)

    def forward(self, x, t):
        emb = self.time_mlp(timestep_embedding(t, self.temb))
        h = F.silu(self.conv_in(x))
        h = h + emb[:, :, None, None]
        h = F.silu(self.conv_mid(h))
        return self.conv_out(h)


def ddpm():
    torch.manual_seed(0)
    return Denoiser()


# -- (c) LLaMA block ----------------------------------------------------------

def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() /
                             dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    shape = [d if i == 1 or i == ndim - 1 else 1
             for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        return self._norm(x.float()).type_as(x) * self.weight


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x, freqs_cis, mask):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)
        xq, xk, xv = xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2)
        scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(
            self.head_dim)
        scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, xv)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.attention = Attention(dim, heads)
        self.feed_forward = FeedForward(dim, hidden)
        self.attention_norm = RMSNorm(dim)
        self.ffn_norm = RMSNorm(dim)

    def forward(self, x, freqs_cis, mask):
        h = x + self.attention(self.attention_norm(x), freqs_cis, mask)
        return h + self.feed_forward(self.ffn_norm(h))


class Llama(nn.Module):
    def __init__(self, vocab=32, dim=16, heads=2, hidden=32, layers=1,
                 max_seq_len=16):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(
            [TransformerBlock(dim, heads, hidden) for _ in range(layers)])
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        # An attribute, not a buffer, as in Meta's reference.
        self.freqs_cis = precompute_freqs_cis(dim // heads, max_seq_len * 2)

    def forward(self, tokens):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        self.freqs_cis = self.freqs_cis.to(h.device)
        freqs_cis = self.freqs_cis[0:seqlen]
        mask = torch.full((1, 1, seqlen, seqlen), float("-inf"),
                          device=tokens.device)
        mask = torch.triu(mask, diagonal=1).type_as(h)
        for layer in self.layers:
            h = layer(h, freqs_cis, mask)
        return self.output(self.norm(h)).float()


def llama():
    torch.manual_seed(0)
    return Llama()


# -- (d) BYOL / SimSiam -------------------------------------------------------

def mlp(sizes):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


class Byol(nn.Module):
    """Returns the differences of normalized vectors whose squared mean is
    the loss: BYOL's against the EMA target (frozen, under no_grad),
    SimSiam's against the online projection of the other view (no_grad for
    one view, detach for the other)."""

    def __init__(self, features=12, hidden=16, out=8):
        super().__init__()
        self.online = mlp([features, hidden, out])
        self.predictor = mlp([out, hidden, out])
        self.target = copy.deepcopy(self.online)
        for p in self.target.parameters():
            p.requires_grad = False

    @torch.no_grad()
    def update_target(self, momentum=0.9):
        """The EMA step, after the optimizer's."""
        for t, o in zip(self.target.parameters(), self.online.parameters()):
            t.mul_(momentum).add_(o.detach(), alpha=1 - momentum)

    def forward(self, x1, x2):
        z1, z2 = self.online(x1), self.online(x2)
        p1, p2 = self.predictor(z1), self.predictor(z2)
        with torch.no_grad():
            t1, t2 = self.target(x1), self.target(x2)
            s2 = self.online(x2)
        s1 = z1.detach()

        def n(v):
            return F.normalize(v, dim=-1)
        return torch.cat([n(p1) - n(t2), n(p2) - n(t1), n(p1) - n(s2),
                          n(p2) - n(s1)], dim=-1)


def byol():
    torch.manual_seed(0)
    return Byol()


class Distill(nn.Module):
    """Knowledge distillation as its users write it: the teacher (a
    module of the model whose parameters require grad, as when nobody
    freezes it) runs under ``torch.no_grad()``; the loss, computed in
    forward, is the student's cross-entropy against the labels plus
    Hinton's soft cross-entropy against the teacher at temperature T."""

    def __init__(self, features=12, hidden=16, classes=5, temperature=2.0):
        super().__init__()
        self.student = mlp([features, hidden, classes])
        self.teacher = mlp([features, 2 * hidden, hidden, classes])
        self.temperature = temperature

    def forward(self, x, labels):
        logits = self.student(x)
        with torch.no_grad():
            soft = F.softmax(self.teacher(x) / self.temperature, dim=-1)
        distill = -(soft * F.log_softmax(logits / self.temperature,
                                         dim=-1)).sum(-1).mean()
        return F.cross_entropy(logits, labels) + \
            self.temperature ** 2 * distill


def distill():
    torch.manual_seed(0)
    return Distill()


# -- (e) Hugging Face-style gradient checkpointing ----------------------------

class HFLayer(nn.Module):
    def __init__(self, dim, heads, ff):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, ff)
        self.fc2 = nn.Linear(ff, dim)

    def forward(self, hidden_states):
        b, t, d = hidden_states.shape
        h = self.ln1(hidden_states)
        q, k, v = self.qkv(h).split(d, dim=-1)
        q, k, v = [u.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for u in (q, k, v)]
        att = torch.softmax(q @ k.transpose(-2, -1) /
                            math.sqrt(d // self.heads), dim=-1)
        h = (att @ v).transpose(1, 2).reshape(b, t, d)
        hidden_states = hidden_states + self.proj(h)
        h = self.fc2(F.gelu(self.fc1(self.ln2(hidden_states))))
        return hidden_states + h


class HFModel(nn.Module):
    supports_gradient_checkpointing = True

    def __init__(self, vocab=32, dim=16, heads=2, ff=32, layers=3,
                 use_reentrant=False):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(
            [HFLayer(dim, heads, ff) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)
        self.gradient_checkpointing = False
        self.use_reentrant = use_reentrant

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def forward(self, input_ids):
        hidden_states = self.embed(input_ids)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                def create_custom_forward(module):
                    def custom_forward(*inputs):
                        return module(*inputs)
                    return custom_forward
                hidden_states = torch.utils.checkpoint.checkpoint(
                    create_custom_forward(layer), hidden_states,
                    use_reentrant=self.use_reentrant)
            else:
                hidden_states = layer(hidden_states)
        return self.head(self.ln_f(hidden_states))


def hf_checkpointed():
    torch.manual_seed(0)
    model = HFModel(use_reentrant=False)
    model.gradient_checkpointing_enable()
    return model


def hf_checkpointed_reentrant():
    torch.manual_seed(0)
    model = HFModel(use_reentrant=True)
    model.gradient_checkpointing_enable()
    return model


def hf_plain():
    """The same model without checkpointing (the hints' baseline)."""
    torch.manual_seed(0)
    return HFModel()


# name -> (inputs as (shape, "f32"|"i32"), loss (None: the module
# returns it, the labels its last argument), labels shape)
SPECS = {
    "unet": ([((2, 3, 16, 16), "f32")], "cross_entropy", (2, 16, 16)),
    "ddpm": ([((4, 2, 8, 8), "f32"), ((4,), "f32")], "mse", (4, 2, 8, 8)),
    "llama": ([((2, 8), "i32")], "cross_entropy", (2, 8)),
    "byol": ([((6, 12), "f32"), ((6, 12), "f32")], "mse", (6, 32)),
    "distill": ([((6, 12), "f32")], None, (6,)),
    "hf_checkpointed": ([((2, 8), "i32")], "cross_entropy", (2, 8)),
    "hf_checkpointed_reentrant": ([((2, 8), "i32")], "cross_entropy",
                                  (2, 8)),
    "hf_plain": ([((2, 8), "i32")], "cross_entropy", (2, 8)),
}


class ComplexAbs(nn.Module):
    """The magnitude of a complex value: an op Echo has no complex
    mapping for (an error naming it)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.view_as_complex(self.fc(x).reshape(2, 4, 2)).abs()


def complex_abs():
    torch.manual_seed(0)
    return ComplexAbs()
