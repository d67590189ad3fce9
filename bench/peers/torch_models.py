"""PyTorch peers of Echo's NMT and Transformer builders (python/echo/models.py).

Each peer has the parameters of the Echo model built with the same keyword
arguments (names, shapes, the builder's argument order, so that
`echo-run --inputs` .npy files load into both), the same layer formulas and
the same data layout (time-major NMT labels, batch-major Transformer
tokens); `forward` returns the logits and `loss()` the cross-entropy.
The Echo side of the benchmarks is not the builder's model but the peer
itself, imported by echo.import_torch (`import_peer`): both sides run
exactly the same computation. Dropout masks come from different random
number generators, so losses agree exactly only with dropout off; the
side-by-side benchmark compares losses with dropout off and times both
with the model's dropout.

Used by bench/peers/cpu_side_by_side.py; needs Debian's python3-torch.
"""
import collections
import math

import torch
import torch.nn.functional as F
import torch.utils.checkpoint

# A peer calls ids.long() for PyTorch's embedding; the importer reads it
# as the identity on Echo's i32 ids.


def echo_arguments(mlir_text, model):
    """(name, shape, dtype, is_param) of each argument of func @model, in
    order, read off the model's MLIR."""
    import re
    header = re.search(r"func\.func @%s\((.*?)\)\s*->" % re.escape(model),
                       mlir_text, re.S).group(1)
    out = []
    for m in re.finditer(r"%([A-Za-z0-9_]+): tensor<([^>]*)>(\s*\{echo\.param\})?",
                         header):
        parts = m.group(2).split("x")
        dtype = parts[-1]
        shape = [int(d) for d in parts[:-1]]
        out.append((m.group(1), shape, dtype, bool(m.group(3))))
    return out


class EchoPeer(torch.nn.Module):
    """Parameters named and shaped as the Echo model's `echo.param`
    arguments."""

    def __init__(self, arguments):
        super().__init__()
        self.arguments = arguments
        # An OrderedDict keeps the builder's order (ParameterDict sorts a
        # plain dict's keys): named_parameters() is the argument order.
        self.params = torch.nn.ParameterDict(collections.OrderedDict(
            (name, torch.nn.Parameter(torch.zeros(shape)))
            for name, shape, _, is_param in arguments if is_param))

    def load_arguments(self, values):
        """Copies parameter values (numpy arrays, by argument index)."""
        with torch.no_grad():
            for i, (name, _, _, is_param) in enumerate(self.arguments):
                if is_param:
                    self.params[name].copy_(torch.from_numpy(values[i]))

    def p(self, name):
        return self.params[name]

    # With `checkpointed` set, each time step (NMT) or layer (Transformer)
    # runs under torch.utils.checkpoint: its activations are recomputed in
    # the backward pass instead of stashed (bench/peers/torch_memory.py).
    checkpointed = False

    def segment(self, fn, *args):
        if self.checkpointed and self.training:
            return torch.utils.checkpoint.checkpoint(fn, *args,
                                                     use_reentrant=False)
        return fn(*args)


def _linear(x, w, b):
    return F.linear(x, w, b)


def _lstm_cell(inputs, h, c, w, b):
    """Echo's _lstm_cell: one linear on concat(inputs + [h]), gates i f g o."""
    gates = _linear(torch.cat(list(inputs) + [h], dim=1), w, b)
    i, f, g, o = gates.chunk(4, dim=1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    h = torch.sigmoid(o) * torch.tanh(c)
    return h, c


class NMT(EchoPeer):
    """models.nmt: LSTM encoder, MLP attention, input-feeding LSTM decoder."""

    def __init__(self, arguments, batch, src_len, tgt_len, hidden, dropout,
                 **_):
        super().__init__(arguments)
        self.batch, self.src_len, self.tgt_len = batch, src_len, tgt_len
        self.hidden, self.dropout = hidden, dropout

    def forward(self, src_ids, tgt_ids):
        p, b, h_dim = self.p, self.batch, self.hidden
        drop = (lambda x: F.dropout(x, self.dropout, self.training)) \
            if self.dropout else (lambda x: x)
        src = drop(F.embedding(src_ids.long(), p("src_embed")))
        zero = src.new_zeros(b, h_dim)
        h, c, states = zero, zero, []

        def encode(x, h, c):
            return _lstm_cell([x], h, c, p("enc_w"), p("enc_b"))
        for s in range(self.src_len):
            h, c = self.segment(encode, src[:, s], h, c)
            states.append(h)
        memory = torch.stack(states, dim=1)  # [B, S, H]
        keys = _linear(memory.reshape(b * self.src_len, h_dim),
                       p("att_key_w"), p("att_key_b"))
        keys = keys.reshape(b, self.src_len, -1)
        d = torch.tanh(_linear(h, p("dec_init_w"), p("dec_init_b")))
        c, feed = zero, zero
        tgt = F.embedding(tgt_ids.long(), p("tgt_embed"))
        outputs = []

        def decode(x, feed, d, c):
            d, c = _lstm_cell([x, feed], d, c, p("dec_w"), p("dec_b"))
            query = d.matmul(p("att_query_w").t())  # [B, A]
            hid = torch.tanh(keys + query.unsqueeze(1))
            scores = hid.reshape(b * self.src_len, -1).matmul(p("att_v").t())
            alpha = torch.softmax(scores.reshape(b, self.src_len), dim=1)
            ctx = torch.bmm(alpha.unsqueeze(1), memory).reshape(b, h_dim)
            feed = torch.tanh(_linear(torch.cat([d, ctx], dim=1),
                                      p("dec_att_w"), p("dec_att_b")))
            return feed, d, c
        for t in range(self.tgt_len):
            feed, d, c = self.segment(decode, tgt[:, t], feed, d, c)
            outputs.append(drop(feed))
        return _linear(torch.cat(outputs, dim=0), p("out_w"), p("out_b"))


class Transformer(EchoPeer):
    """models.transformer: post-LN encoder blocks and a token classifier."""

    def __init__(self, arguments, batch, seq, d_model, heads, layers, dropout,
                 attention_dropout=0.0, act_dropout=0.0, **_):
        super().__init__(arguments)
        self.batch, self.seq, self.d_model = batch, seq, d_model
        self.heads, self.layers = heads, layers
        self.dropout, self.attention_dropout = dropout, attention_dropout
        self.act_dropout = act_dropout

    def forward(self, ids):
        p, b, s, d = self.p, self.batch, self.seq, self.d_model
        heads, dh = self.heads, self.d_model // self.heads
        n = b * s

        def drop(x, ratio):
            return F.dropout(x, ratio, self.training) if ratio else x

        def split_heads(x):  # [B*S, D] -> [B*H, S, dh]
            return x.reshape(b, s, heads, dh).transpose(1, 2).reshape(
                b * heads, s, dh)

        x = F.embedding(ids.long(), p("tok_embed")) + p("pos_embed")
        x = x.reshape(n, d)
        scale = 1.0 / math.sqrt(dh)

        def layer(x, l):
            q = split_heads(_linear(x, p("l%d_q_w" % l), p("l%d_q_b" % l)))
            k = split_heads(_linear(x, p("l%d_k_w" % l), p("l%d_k_b" % l)))
            v = split_heads(_linear(x, p("l%d_v_w" % l), p("l%d_v_b" % l)))
            att = torch.softmax(torch.bmm(q, k.transpose(1, 2)) * scale, dim=2)
            o = torch.bmm(drop(att, self.attention_dropout), v)
            o = o.reshape(b, heads, s, dh).transpose(1, 2).reshape(n, d)
            o = drop(_linear(o, p("l%d_o_w" % l), p("l%d_o_b" % l)),
                     self.dropout)
            x = F.layer_norm(x + o, (d,), p("l%d_ln1_g" % l),
                             p("l%d_ln1_b" % l))
            f = drop(torch.relu(_linear(x, p("l%d_ff1_w" % l),
                                        p("l%d_ff1_b" % l))),
                     self.act_dropout)
            f = drop(_linear(f, p("l%d_ff2_w" % l), p("l%d_ff2_b" % l)),
                     self.dropout)
            return F.layer_norm(x + f, (d,), p("l%d_ln2_g" % l),
                                p("l%d_ln2_b" % l))
        for l in range(self.layers):
            x = self.segment(layer, x, l)
        return _linear(x, p("out_w"), p("out_b"))


PEERS = {"nmt": NMT, "transformer": Transformer}


def loss(logits, labels):
    """The loss Echo's importer appends: mean cross-entropy."""
    return F.cross_entropy(logits, labels.long())


def make_peer(name, kwargs):
    """The peer of models.<name>(**kwargs) and the builder's argument list
    (its data arguments are the peer's inputs, then the labels)."""
    from echo import models
    arguments = echo_arguments(getattr(models, name)(**kwargs), name)
    return PEERS[name](arguments, **kwargs), arguments


def import_peer(name, kwargs):
    """(Echo model text, arguments, peer, import seconds): the peer imported
    by echo.import_torch; its arguments are the builder's, in order."""
    import time
    from echo.frontend import import_module
    peer, arguments = make_peer(name, kwargs)
    data = [(tuple(shape), dtype) for _, shape, dtype, is_param in arguments
            if not is_param]
    start = time.perf_counter()
    imported = import_module(peer, data[:-1], "cross_entropy", data[-1],
                             name)
    return imported.text, arguments, peer, time.perf_counter() - start
