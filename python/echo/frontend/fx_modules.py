"""Module-level handlers of the PyTorch importer, keyed by torch.nn class.

:data:`MODULES` maps each torch.nn class the importer keeps whole to a
small handler ``(imp, node, m, prefix, args, kwargs) -> value``.  A module
reaches its handler only when :func:`echo.frontend.fx_importer.library_class`
says it runs that class's own forward; a subclass with a forward of its own
is traced through instead.  The composite modules (recurrent layers,
attention, the Transformer encoder) are decomposed as PyTorch's training
(slow) path computes them.
"""

import math
import operator

import torch.nn as nn
import torch.nn.functional as F

from echo.frontend.fx_functions import conv2d
from echo.models import Value

__all__ = ["MODULES", "library_class"]

# torch.nn class -> (handler, the methods whose code the handler reproduces:
# forward and the helpers forward calls).
MODULES = {}


def handles(*classes, **helpers):
    """Registers the decorated handler for ``classes``; ``helpers=(...)``
    names the methods forward calls that the handler also reproduces."""
    methods = ("forward",) + tuple(helpers.get("helpers", ()))

    def register(handler):
        for cls in classes:
            MODULES[cls] = (handler, methods)
        return handler
    return register


def library_class(module):
    """The torch.nn class of :data:`MODULES` whose own computation
    ``module`` runs, or None.

    That is the nearest such class among its bases, provided neither the
    module's class nor the module itself replaces forward (or a helper
    forward calls): torchvision's ``LayerNorm2d`` is an ``nn.LayerNorm``
    whose forward normalizes the channels of NCHW, not the last dim, so it
    is traced through, not mapped onto ``echo.layer_norm``.
    """
    cls = type(module)
    for base in cls.__mro__:
        if base in MODULES:
            own = all(getattr(cls, name, None) is getattr(base, name)
                      for name in MODULES[base][1])
            return base if own and "forward" not in vars(module) else None
    return None


def require_library(imp, child, name, cls):
    """A submodule the importer decomposes by its parameters: it must run
    torch.nn's own ``cls`` forward, which is what PyTorch's composite
    computes with it."""
    imp.require(library_class(child) is cls,
                "its %s is a %s, not torch.nn's own %s (Echo decomposes "
                "the module with torch.nn's submodules only)" % (
                    name, type(child).__name__, cls.__name__))


@handles(nn.Linear)
def _linear(imp, node, m, prefix, args, kwargs):
    return imp.linear(args[0], imp.param(prefix + ".weight"),
                      imp.module_param(prefix, "bias"))


@handles(nn.Conv2d, helpers=("_conv_forward",))
def _conv2d(imp, node, m, prefix, args, kwargs):
    return conv2d(imp, args[0], imp.param(prefix + ".weight"),
                  imp.module_param(prefix, "bias"), m.stride, m.padding,
                  m.dilation, m.groups, m.padding_mode)


@handles(nn.BatchNorm1d, nn.BatchNorm2d)
def _batch_norm(imp, node, m, prefix, args, kwargs):
    g = imp.g
    imp.require(m.training or not m.track_running_stats,
                "BatchNorm in eval mode (Echo's batch_norm uses batch "
                "statistics: call model.train())")
    x = imp.tensor(args[0])
    c = x.shape[1]
    gamma = imp.module_param(prefix, "weight", [c], 1.0)
    beta = imp.module_param(prefix, "bias", [c], 0.0)
    if x.rank == 3:
        y = g.batch_norm(g.reshape(x, list(x.shape) + [1]), gamma, beta,
                         m.eps)
        return g.reshape(y, x.shape)
    imp.require(x.rank in (2, 4), "batch norm of %s" % x.type)
    return g.batch_norm(x, gamma, beta, m.eps)


@handles(nn.LayerNorm)
def _layer_norm(imp, node, m, prefix, args, kwargs):
    return call_norm(imp, m, prefix, args[0])


def call_norm(imp, m, prefix, x):
    require_library(imp, m, prefix or "norm", nn.LayerNorm)
    return imp.layer_norm(x, list(m.normalized_shape),
                          imp.module_param(prefix, "weight"),
                          imp.module_param(prefix, "bias"), m.eps)


@handles(nn.ReLU)
def _relu(imp, node, m, prefix, args, kwargs):
    return imp.g.relu(imp.tensor(args[0]))


@handles(nn.Tanh)
def _tanh(imp, node, m, prefix, args, kwargs):
    return imp.g.tanh(imp.tensor(args[0]))


@handles(nn.Sigmoid)
def _sigmoid(imp, node, m, prefix, args, kwargs):
    return imp.g.sigmoid(imp.tensor(args[0]))


@handles(nn.GELU)
def _gelu(imp, node, m, prefix, args, kwargs):
    return imp.gelu(args[0], m.approximate)


@handles(nn.Softmax)
def _softmax(imp, node, m, prefix, args, kwargs):
    return imp.softmax(args[0], m.dim)


@handles(nn.MaxPool2d)
def _max_pool(imp, node, m, prefix, args, kwargs):
    return imp.pool("max_pool2d", args[0], m.kernel_size, m.stride,
                    m.padding, m.ceil_mode, dilation=m.dilation,
                    return_indices=m.return_indices)


@handles(nn.AvgPool2d)
def _avg_pool(imp, node, m, prefix, args, kwargs):
    return imp.pool("avg_pool2d", args[0], m.kernel_size, m.stride,
                    m.padding, m.ceil_mode, m.count_include_pad,
                    m.divisor_override)


@handles(nn.AdaptiveAvgPool2d)
def _adaptive_avg_pool(imp, node, m, prefix, args, kwargs):
    return imp.adaptive_avg_pool(args[0], m.output_size)


@handles(nn.Dropout)
def _dropout(imp, node, m, prefix, args, kwargs):
    return imp.dropout(args[0], m.p, m.training)


@handles(nn.Embedding)
def _embedding(imp, node, m, prefix, args, kwargs):
    imp.require(m.padding_idx is None,
                "padding_idx (PyTorch zeroes that row's gradient; Echo "
                "does not)")
    imp.require(m.max_norm is None, "max_norm")
    ids = imp.tensor(args[0])
    imp.require(ids.dtype == "i32", "embedding ids of type %s (give the "
                "input as i32)" % ids.type)
    return imp.g.embedding(ids, imp.param(prefix + ".weight"))


@handles(nn.Flatten)
def _flatten(imp, node, m, prefix, args, kwargs):
    return imp.flatten(args[0], m.start_dim, m.end_dim)


@handles(nn.Identity)
def _identity(imp, node, m, prefix, args, kwargs):
    return imp.tensor(args[0])


# -- recurrent layers -------------------------------------------------------

@handles(nn.LSTM, nn.GRU)
def _recurrent(imp, node, m, prefix, args, kwargs):
    """Unrolled into cells: layers, batch_first, bidirectional, initial
    states."""
    g = imp.g
    lstm = isinstance(m, nn.LSTM)
    imp.require(not lstm or m.proj_size == 0, "proj_size")
    imp.require(m.bias, "bias=False")
    imp.require(m.dropout == 0 or not m.training or m.num_layers == 1,
                "dropout between layers")
    x = imp.tensor(args[0])
    imp.require(x.rank == 3, "a %s input of %s (Echo takes batched "
                "sequences)" % (type(m).__name__, x.type))
    hx = args[1] if len(args) > 1 else kwargs.get("hx")
    hx = imp.value(hx)
    if m.batch_first:
        batch, steps = x.shape[0], x.shape[1]
    else:
        steps, batch = x.shape[0], x.shape[1]
    hidden = m.hidden_size
    dirs = 2 if m.bidirectional else 1
    state_shape = [m.num_layers * dirs, batch, hidden]

    def initial(i):
        if hx is None:
            return g.zeros([batch, hidden])
        states = hx if not lstm else hx[i]
        imp.require(isinstance(states, Value) and
                    list(states.shape) == state_shape,
                    "initial states of shape %s expected" % state_shape)
        return states
    h0 = initial(0)
    c0 = initial(1) if lstm else None

    def state(v, k):
        if v.rank == 2:
            return v
        return g.reshape(g.slice(v, [k, 0, 0], [1, batch, hidden]),
                         [batch, hidden])

    inputs = [_step(imp, x, t, m.batch_first) for t in range(steps)]
    finals_h, finals_c = [], []
    for layer in range(m.num_layers):
        outs_by_dir = []
        for d in range(dirs):
            sfx = "_l%d%s" % (layer, "_reverse" if d else "")
            w_ih = imp.param("%s.weight_ih%s" % (prefix, sfx))
            w_hh = imp.param("%s.weight_hh%s" % (prefix, sfx))
            b_ih = imp.param("%s.bias_ih%s" % (prefix, sfx))
            b_hh = imp.param("%s.bias_hh%s" % (prefix, sfx))
            k = layer * dirs + d
            h = state(h0, k)
            c = state(c0, k) if lstm else None
            order = range(steps - 1, -1, -1) if d else range(steps)
            outs = [None] * steps
            for t in order:
                gi = g.linear(inputs[t], w_ih, b_ih)
                gh = g.linear(h, w_hh, b_hh)
                if lstm:
                    z = g.add(gi, gh)
                    part = lambda j: g.slice(z, [0, j * hidden],
                                             [batch, hidden])
                    i_g, f_g = g.sigmoid(part(0)), g.sigmoid(part(1))
                    c_g, o_g = g.tanh(part(2)), g.sigmoid(part(3))
                    c = g.add(g.mul(f_g, c), g.mul(i_g, c_g))
                    h = g.mul(o_g, g.tanh(c))
                else:
                    pi = lambda j: g.slice(gi, [0, j * hidden],
                                           [batch, hidden])
                    ph = lambda j: g.slice(gh, [0, j * hidden],
                                           [batch, hidden])
                    r = g.sigmoid(g.add(pi(0), ph(0)))
                    z = g.sigmoid(g.add(pi(1), ph(1)))
                    n = g.tanh(g.add(pi(2), g.mul(r, ph(2))))
                    one = g.constant(1.0, [batch, hidden])
                    h = g.add(g.mul(g.sub(one, z), n), g.mul(z, h))
                outs[t] = h
            outs_by_dir.append(outs)
            finals_h.append(h)
            if lstm:
                finals_c.append(c)
        if dirs == 1:
            inputs = outs_by_dir[0]
        else:
            inputs = [g.concat([outs_by_dir[0][t], outs_by_dir[1][t]], 1)
                      for t in range(steps)]
    axis = 1 if m.batch_first else 0
    output = g.concat([g.reshape(o, [batch, 1, o.shape[1]] if axis == 1
                                 else [1, batch, o.shape[1]])
                       for o in inputs], axis)

    def stacked(vs):
        return g.concat([g.reshape(v, [1, batch, hidden]) for v in vs], 0)
    h_n = stacked(finals_h)
    if lstm:
        return (output, (h_n, stacked(finals_c)))
    return (output, h_n)



def _step(imp, x, t, batch_first):
    g = imp.g
    if batch_first:
        step = g.slice(x, [0, t, 0], [x.shape[0], 1, x.shape[2]])
    else:
        step = g.slice(x, [t, 0, 0], [1, x.shape[1], x.shape[2]])
    return g.reshape(step, [x.shape[0] if batch_first else x.shape[1],
                            x.shape[2]])


# -- attention and the Transformer encoder ------------------------------------

def no_masks(imp, args, kwargs):
    for a in list(args) + list(kwargs.values()):
        imp.require(a is None or isinstance(a, bool),
                    "attention masks are not supported")


@handles(nn.MultiheadAttention)
def _attention(imp, node, m, prefix, args, kwargs):
    names = ["query", "key", "value", "key_padding_mask", "need_weights",
             "attn_mask", "average_attn_weights"]
    bound = dict(zip(names, args))
    bound.update(kwargs)
    imp.require(bound.get("key_padding_mask") is None and
                bound.get("attn_mask") is None,
                "attention masks are not supported")
    q, k, v = (imp.tensor(bound[n]) for n in ("query", "key", "value"))
    need = bound.get("need_weights", True)
    average = bound.get("average_attn_weights", True)
    wanted = any(u.op == "call_function" and u.target is operator.getitem
                 and u.args[1] == 1 for u in node.users)
    out, weights = mha(imp, m, prefix, q, k, v, need and wanted, average)
    return (out, weights)


def mha(imp, m, prefix, q, k, v, weights=False, average=True):
    """PyTorch's multi_head_attention_forward (no masks): it reads the
    projections' parameters, not the out_proj module's forward."""
    imp.require(m._qkv_same_embed_dim, "kdim/vdim other than embed_dim")
    imp.require(m.bias_k is None and not m.add_zero_attn,
                "add_bias_kv / add_zero_attn")
    g = imp.g
    e, heads = m.embed_dim, m.num_heads
    dh = e // heads
    w = imp.param(prefix + ".in_proj_weight")
    b = imp.module_param(prefix, "in_proj_bias")

    def to_batch_major(x):  # [T,B,E] -> [B,T,E] unless batch_first
        return x if m.batch_first else g.transpose(x, [1, 0, 2])
    q, k, v = to_batch_major(q), to_batch_major(k), to_batch_major(v)
    bsz, tq, tk = q.shape[0], q.shape[1], k.shape[1]

    def project(x, j):
        wj = g.slice(w, [j * e, 0], [e, e])
        bj = g.slice(b, [j * e], [e]) if b is not None else None
        return imp.linear(x, wj, bj)

    def heads_major(x, t):  # [B,T,E] -> [B*H,T,dh]
        x = g.reshape(x, [bsz, t, heads, dh])
        return g.reshape(g.transpose(x, [0, 2, 1, 3]),
                         [bsz * heads, t, dh])
    qh = heads_major(project(q, 0), tq)
    kh = heads_major(project(k, 1), tk)
    vh = heads_major(project(v, 2), tk)
    qh = g.mul(qh, g.constant(1.0 / math.sqrt(dh), qh.shape))
    scores = g.batch_matmul(qh, kh, transpose_b=True)
    probs = g.softmax(scores, 2)
    probs_used = imp.dropout(probs, m.dropout, m.training)
    ctx = g.batch_matmul(probs_used, vh)  # [B*H,Tq,dh]
    ctx = g.reshape(g.transpose(g.reshape(ctx, [bsz, heads, tq, dh]),
                                [0, 2, 1, 3]), [bsz, tq, e])
    out = imp.linear(ctx, imp.param(prefix + ".out_proj.weight"),
                     imp.module_param(prefix + ".out_proj", "bias"))
    if not m.batch_first:
        out = g.transpose(out, [1, 0, 2])
    attn = None
    if weights:
        attn = g.reshape(probs, [bsz, heads, tq, tk])
        if average:
            attn = g.mul(g.reduce_sum(attn, [1]),
                         g.constant(1.0 / heads, [bsz, tq, tk]))
    return out, attn


@handles(nn.TransformerEncoderLayer, helpers=("_sa_block", "_ff_block"))
def _encoder_layer(imp, node, m, prefix, args, kwargs):
    no_masks(imp, args[1:], kwargs)
    return encoder_layer(imp, m, prefix, imp.tensor(args[0]))


@handles(nn.TransformerEncoder)
def _encoder(imp, node, m, prefix, args, kwargs):
    no_masks(imp, args[1:], kwargs)
    x = imp.tensor(args[0])
    for i, layer in enumerate(m.layers):
        name = "%s.layers.%d" % (prefix, i)
        require_library(imp, layer, name, nn.TransformerEncoderLayer)
        x = encoder_layer(imp, layer, name, x)
    if m.norm is not None:
        x = call_norm(imp, m.norm, prefix + ".norm", x)
    return x


def encoder_layer(imp, layer, prefix, x):
    """The slow path of nn.TransformerEncoderLayer.forward (training)."""
    g = imp.g
    act = layer.activation
    if act is F.relu or library_class(act) is nn.ReLU:
        activation = g.relu
    elif act is F.gelu or library_class(act) is nn.GELU:
        approx = getattr(act, "approximate", "none")
        activation = lambda v: imp.gelu(v, approx)
    else:
        imp.unsupported("the activation %r" % (act,))
    for name, cls in (("self_attn", nn.MultiheadAttention),
                      ("linear1", nn.Linear), ("linear2", nn.Linear),
                      ("norm1", nn.LayerNorm), ("norm2", nn.LayerNorm),
                      ("dropout", nn.Dropout), ("dropout1", nn.Dropout),
                      ("dropout2", nn.Dropout)):
        require_library(imp, getattr(layer, name), prefix + "." + name, cls)

    def sa(v):
        out, _ = mha(imp, layer.self_attn, prefix + ".self_attn", v, v, v)
        return imp.dropout(out, layer.dropout1.p, layer.training)

    def ff(v):
        h = imp.linear(v, imp.param(prefix + ".linear1.weight"),
                       imp.module_param(prefix + ".linear1", "bias"))
        h = imp.dropout(activation(h), layer.dropout.p, layer.training)
        h = imp.linear(h, imp.param(prefix + ".linear2.weight"),
                       imp.module_param(prefix + ".linear2", "bias"))
        return imp.dropout(h, layer.dropout2.p, layer.training)

    def norm(i, v):
        return call_norm(imp, getattr(layer, "norm%d" % i),
                         "%s.norm%d" % (prefix, i), v)
    if layer.norm_first:
        x = g.add(x, sa(norm(1, x)))
        return g.add(x, ff(norm(2, x)))
    x = norm(1, g.add(x, sa(x)))
    return norm(2, g.add(x, ff(x)))
