"""Builders of Echo training graphs, emitted as MLIR text.

Each builder returns the text of one ``func.func @<model>`` that follows the
model convention of the Echo contract (shared/SPEC.md):

* the only result is the scalar loss, ``tensor<f32>``;
* trainable arguments carry the unit attribute ``{echo.param}``; data
  arguments (inputs, ``i32`` ids and labels) carry none.  Data arguments come
  first, then the parameters, each group in the order the model creates them;
* the body is a single block of Echo forward ops in MLIR's *generic* op form
  (``%y = "echo.relu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>``), with
  ``arith.constant`` dense splats for constants (zero initial states, scales).

Every shape is computed and checked here, so a model that builds is also one
that ``echo-opt --echo-verify-model`` accepts; impossible sizes (say, a head
count that does not divide ``d_model``) raise :class:`ShapeError`.

Models (all sizes are keyword arguments; ``--list`` prints the defaults):

``mlp``          linear + relu layers, cross-entropy.
``lstm``         unrolled LSTM over a sequence, classifies the last state.
``nmt``          Sockeye-like encoder-decoder: embeddings, LSTM encoder, LSTM
                 decoder with MLP (Bahdanau) attention and input feeding,
                 dropout, output projection, token-level cross-entropy.
``transformer``  encoder blocks (multi-head self-attention, layer norm,
                 residuals, feed-forward), token-level cross-entropy.
``resnet``       conv-batch_norm-relu basic blocks with residual adds,
                 max and average pooling, linear classifier.
``deepspeech2``  conv front-end, unrolled tanh RNN layers with sequence-wise
                 batch norm, per-timestep classifier.

Command line (with ``PYTHONPATH`` containing the ``python`` directory)::

    python3 -m echo.models nmt --batch=4 --src_len=5 -o nmt.mlir
    python3 -m echo.models --list

The output starts with a comment that repeats the command with every size
spelled out, so a file can be regenerated from its own first line.

Only the Python 3 standard library is used.
"""

import inspect
import math
import sys

# The builder, re-exported: echo.models.GraphBuilder and the attribute
# spellings stay where users import them from.
from echo.graph import (  # noqa: F401
    GraphBuilder, ShapeError, Value, _check, bool_attr, f64_attr,
    format_element, format_float, i64_array_attr, i64_attr, tensor_type)

__all__ = [
    "ShapeError",
    "Value",
    "GraphBuilder",
    "MODELS",
    "build",
    "command_line",
    "mlp",
    "lstm",
    "nmt",
    "transformer",
    "resnet",
    "deepspeech2",
    "main",
]


def _dense(g, x, features, name):
    """A linear layer with fresh parameters ``<name>_w`` [F,K], ``<name>_b``."""
    w = g.param(name + "_w", [features, x.shape[1]])
    b = g.param(name + "_b", [features])
    return g.linear(x, w, b)


def _lstm_params(g, name, input_size, hidden):
    """Weights of one LSTM layer: ``w`` [4H, input+H] (gates i, f, g, o)."""
    return (g.param(name + "_w", [4 * hidden, input_size + hidden]),
            g.param(name + "_b", [4 * hidden]))


def _lstm_cell(g, inputs, h, c, weights):
    """One LSTM step on ``concat(inputs + [h])``; returns ``(h', c')``.

    The four gates come from a single ``echo.linear`` on the concatenated
    input and state, split with ``echo.slice`` (order i, f, g, o):
    ``c' = sigmoid(f)*c + sigmoid(i)*tanh(g)``, ``h' = sigmoid(o)*tanh(c')``.
    """
    w, b = weights
    batch, hidden = h.shape
    x = g.concat(list(inputs) + [h], axis=1)
    gates = g.linear(x, w, b)

    def gate(k):
        return g.slice(gates, [0, k * hidden], [batch, hidden])

    i = g.sigmoid(gate(0))
    f = g.sigmoid(gate(1))
    cand = g.tanh(gate(2))
    o = g.sigmoid(gate(3))
    c = g.add(g.mul(f, c), g.mul(i, cand))
    h = g.mul(o, g.tanh(c))
    return h, c


def _gru_step(g, proj, t, batch, h, w_g, w_n):
    """One GRU step of ``deepspeech2`` on rows ``t`` of ``proj`` [T*B, 3H]
    (``h`` is None at the first step, standing for zeros)."""
    hidden = w_n.shape[0]

    def part(k, width):
        return g.slice(proj, [t * batch, k * hidden], [batch, width])

    x_n = part(2, hidden)
    if h is None:  # z = sigmoid(x_z), n = tanh(x_n), h' = n - z*n
        z = g.sigmoid(part(0, hidden))
        n = g.tanh(x_n)
        return g.sub(n, g.mul(z, n))
    gates = g.sigmoid(g.add(part(0, 2 * hidden),
                            g.matmul(h, w_g, transpose_b=True)))
    z = g.slice(gates, [0, 0], [batch, hidden])
    r = g.slice(gates, [0, hidden], [batch, hidden])
    n = g.tanh(g.add(x_n, g.matmul(g.mul(r, h), w_n, transpose_b=True)))
    return g.add(h, g.mul(z, g.sub(n, h)))


def _time_step(g, seq, t):
    """Row ``t`` of a batch-major sequence [B,T,F], as a [B,F] matrix."""
    b, _, f = seq.shape
    return g.reshape(g.slice(seq, [0, t, 0], [b, 1, f]), [b, f])


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


def mlp(batch=8, sizes=(32, 64, 64, 10)):
    """Multi-layer perceptron.

    ``sizes`` lists the layer widths, input first and classes last: a linear
    layer joins each consecutive pair, with relu between them.  Arguments:
    ``x`` [batch, sizes[0]], ``labels`` [batch] (i32).
    """
    sizes = [int(s) for s in sizes]
    _check(len(sizes) >= 2, "mlp: sizes needs at least input and classes")
    g = GraphBuilder("mlp")
    h = g.data("x", [batch, sizes[0]])
    labels = g.data("labels", [batch], "i32")
    for i, width in enumerate(sizes[1:]):
        h = _dense(g, h, width, "fc%d" % i)
        if i + 2 < len(sizes):
            h = g.relu(h)
    return g.finish(g.cross_entropy(h, labels))


def lstm(batch=4, seq_len=6, input=8, hidden=16, classes=5, layers=1):
    """Unrolled (stacked) LSTM sequence classifier.

    Arguments: ``x`` [batch, seq_len, input] (batch-major), ``labels``
    [batch].  Each of ``layers`` layers runs ``seq_len`` LSTM steps from
    zero states (a single gate matmul per step on ``[x_t, h]``); a linear
    layer classifies the last hidden state of the top layer.
    """
    g = GraphBuilder("lstm")
    x = g.data("x", [batch, seq_len, input])
    labels = g.data("labels", [batch], "i32")
    zero = g.zeros([batch, hidden])
    outputs = None
    for layer in range(layers):
        weights = _lstm_params(g, "lstm%d" % layer,
                               input if layer == 0 else hidden, hidden)
        h, c, steps = zero, zero, []
        for t in range(seq_len):
            g.comment("layer %d, step %d" % (layer, t))
            x_t = _time_step(g, x, t) if layer == 0 else outputs[t]
            h, c = _lstm_cell(g, [x_t], h, c, weights)
            steps.append(h)
        outputs = steps
    logits = _dense(g, outputs[-1], classes, "fc")
    return g.finish(g.cross_entropy(logits, labels))


def nmt(batch=4, src_len=5, tgt_len=5, vocab=20, embed=16, hidden=16,
        attention=0, dropout=0.1, seed=1):
    """Sockeye-like RNN encoder-decoder with MLP attention, one training step.

    Arguments (data): ``src_ids`` [batch, src_len], ``tgt_ids`` [batch,
    tgt_len] (decoder inputs, i.e. the shifted targets) and ``labels``
    [tgt_len*batch], *time-major* (label of step t, sentence b at
    ``t*batch + b``).  ``attention`` is the attention MLP width (0 = hidden).

    * Encoder: source embedding, dropout, unrolled LSTM from zero states.
    * Decoder state starts at ``tanh(W_init h_enc_last + b)``.  Each step
      feeds ``[embed(y_t), a_{t-1}]`` (input feeding) to an LSTM giving
      ``d_t``; MLP attention ``score_s = v . tanh(W_k h_s + W_q d_t)``,
      softmax over the source positions, ``ctx_t = sum_s alpha_s h_s``
      (batch_matmul); attentional state ``a_t = tanh(W_a [d_t; ctx_t] + b)``.
    * ``dropout`` on each ``a_t`` (one seed per op, from ``seed`` up), one
      output projection over all steps, cross-entropy against ``labels``.

    ``W_k h_s`` is computed once for all source positions.  ``dropout=0``
    leaves the dropout ops out.
    """
    attention = attention or hidden
    b, s_len, t_len = batch, src_len, tgt_len
    g = GraphBuilder("nmt", seed=seed)
    src_ids = g.data("src_ids", [b, s_len], "i32")
    tgt_ids = g.data("tgt_ids", [b, t_len], "i32")
    labels = g.data("labels", [t_len * b], "i32")

    def drop(x, ratio=dropout):
        return g.dropout(x, ratio)[0] if ratio else x

    g.comment("encoder")
    src = drop(g.embedding(src_ids, g.param("src_embed", [vocab, embed])))
    enc = _lstm_params(g, "enc", embed, hidden)
    zero = g.zeros([b, hidden])
    h, c, states = zero, zero, []
    for s in range(s_len):
        g.comment("encoder step %d" % s)
        h, c = _lstm_cell(g, [_time_step(g, src, s)], h, c, enc)
        states.append(h)

    g.comment("attention memory: encoder states [B,S,H] and W_k h_s")
    flat = g.concat(states, axis=1)  # [B, S*H] == [B, S, H] row-major
    memory = g.reshape(flat, [b, s_len, hidden])
    keys = g.reshape(_dense(g, g.reshape(flat, [b * s_len, hidden]),
                            attention, "att_key"), [b, s_len, attention])
    w_query = g.param("att_query_w", [attention, hidden])
    v = g.param("att_v", [1, attention])

    g.comment("decoder")
    d = g.tanh(_dense(g, h, hidden, "dec_init"))
    c = zero
    feed = zero
    tgt = g.embedding(tgt_ids, g.param("tgt_embed", [vocab, embed]))
    dec = _lstm_params(g, "dec", embed + hidden, hidden)
    w_att = g.param("dec_att_w", [hidden, 2 * hidden])
    b_att = g.param("dec_att_b", [hidden])
    outputs = []
    for t in range(t_len):
        g.comment("decoder step %d" % t)
        d, c = _lstm_cell(g, [_time_step(g, tgt, t), feed], d, c, dec)
        query = g.matmul(d, w_query, transpose_b=True)  # [B, A]
        hid = g.tanh(g.add(keys, g.broadcast(query, [b, s_len, attention],
                                             [1])))
        scores = g.matmul(g.reshape(hid, [b * s_len, attention]), v,
                          transpose_b=True)  # [B*S, 1]
        alpha = g.softmax(g.reshape(scores, [b, s_len]), axis=1)
        ctx = g.batch_matmul(g.reshape(alpha, [b, 1, s_len]), memory)
        ctx = g.reshape(ctx, [b, hidden])
        feed = g.tanh(g.linear(g.concat([d, ctx], axis=1), w_att, b_att))
        outputs.append(drop(feed))

    g.comment("output layer over all steps (time-major rows)")
    logits = _dense(g, g.concat(outputs, axis=0), vocab, "out")
    return g.finish(g.cross_entropy(logits, labels))


def transformer(batch=2, seq=8, d_model=16, heads=2, ff=32, layers=2,
                vocab=20, dropout=0.1, attention_dropout=0.0, act_dropout=0.0,
                seed=1):
    """Transformer encoder with a token-level classifier (post-LN blocks).

    Arguments: ``ids`` [batch, seq] and ``labels`` [batch*seq] (batch-major,
    one per token).  Token plus learned position embeddings, then ``layers``
    blocks of ``x = LN(x + Drop(MHA(x)))``, ``x = LN(x + Drop(FF(x)))`` with
    relu in the feed-forward; a linear layer maps every token to ``vocab``
    logits.  Attention heads are formed with reshape/transpose to
    [batch*heads, seq, d_model/heads]; scores use batch_matmul with
    ``transpose_b``, scaled by a constant, softmax over the keys.
    ``dropout`` applies to each sublayer's output before the residual add;
    ``attention_dropout`` to the attention probabilities and
    ``act_dropout`` to the feed-forward's relu output (Sockeye's
    prepost, attention and act dropouts). A ratio of 0 leaves the op out.
    """
    _check(d_model % heads == 0, "transformer: heads (%d) must divide "
           "d_model (%d)", heads, d_model)
    dh = d_model // heads
    n = batch * seq
    g = GraphBuilder("transformer", seed=seed)
    ids = g.data("ids", [batch, seq], "i32")
    labels = g.data("labels", [n], "i32")

    def drop(x, ratio=dropout):
        return g.dropout(x, ratio)[0] if ratio else x

    def split_heads(x):  # [B*S, D] -> [B*H, S, dh]
        x = g.reshape(x, [batch, seq, heads, dh])
        x = g.transpose(x, [0, 2, 1, 3])
        return g.reshape(x, [batch * heads, seq, dh])

    x = g.embedding(ids, g.param("tok_embed", [vocab, d_model]))
    pos = g.param("pos_embed", [seq, d_model])
    x = g.add(x, g.broadcast(pos, [batch, seq, d_model], [0]))
    x = g.reshape(x, [n, d_model])
    scale = g.constant(1.0 / math.sqrt(dh), [batch * heads, seq, seq])
    for l in range(layers):
        g.comment("block %d: self-attention" % l)
        q = split_heads(_dense(g, x, d_model, "l%d_q" % l))
        k = split_heads(_dense(g, x, d_model, "l%d_k" % l))
        v = split_heads(_dense(g, x, d_model, "l%d_v" % l))
        p = g.softmax(g.mul(g.batch_matmul(q, k, transpose_b=True), scale),
                      axis=2)
        o = g.batch_matmul(drop(p, attention_dropout), v)  # [B*H, S, dh]
        o = g.reshape(o, [batch, heads, seq, dh])
        o = g.reshape(g.transpose(o, [0, 2, 1, 3]), [n, d_model])
        o = drop(_dense(g, o, d_model, "l%d_o" % l))
        x = g.layer_norm(g.add(x, o), g.param("l%d_ln1_g" % l, [d_model]),
                         g.param("l%d_ln1_b" % l, [d_model]))
        g.comment("block %d: feed-forward" % l)
        f = drop(g.relu(_dense(g, x, ff, "l%d_ff1" % l)), act_dropout)
        f = drop(_dense(g, f, d_model, "l%d_ff2" % l))
        x = g.layer_norm(g.add(x, f), g.param("l%d_ln2_g" % l, [d_model]),
                         g.param("l%d_ln2_b" % l, [d_model]))
    logits = _dense(g, x, vocab, "out")
    return g.finish(g.cross_entropy(logits, labels))


def resnet(batch=2, channels=8, image=16, blocks=2, classes=10, stages=2,
           in_channels=3):
    """ResNet with basic blocks (CIFAR/ImageNet style, scaled down).

    Arguments: ``x`` [batch, in_channels, image, image], ``labels`` [batch].
    Stem: 3x3 conv, batch norm, relu, 3x3/2 max pool.  ``stages`` stages of
    ``blocks`` basic blocks (conv-bn-relu-conv-bn, residual add, relu); stage
    ``i`` has ``channels * 2**i`` channels and, for ``i > 0``, starts with a
    stride-2 block whose shortcut is a 1x1 stride-2 conv + batch norm.
    Global average pooling (avg_pool2d over the whole map), a linear layer
    and cross-entropy.
    """
    g = GraphBuilder("resnet")
    x = g.data("x", [batch, in_channels, image, image])
    labels = g.data("labels", [batch], "i32")

    def conv_bn(h, out, kernel, stride, name):
        w = g.param(name + "_w", [out, h.shape[1], kernel, kernel])
        pad = kernel // 2
        h = g.conv2d(h, w, [stride, stride], [pad, pad])
        return g.batch_norm(h, g.param(name + "_bn_g", [out]),
                            g.param(name + "_bn_b", [out]))

    g.comment("stem")
    h = g.relu(conv_bn(x, channels, 3, 1, "stem"))
    h = g.max_pool2d(h, [3, 3], [2, 2], [1, 1])
    for i in range(stages):
        width = channels * 2 ** i
        for j in range(blocks):
            name = "s%d_b%d" % (i, j)
            g.comment("stage %d, block %d" % (i, j))
            stride = 2 if i > 0 and j == 0 else 1
            shortcut = h
            if stride != 1 or h.shape[1] != width:
                shortcut = conv_bn(h, width, 1, stride, name + "_proj")
            y = g.relu(conv_bn(h, width, 3, stride, name + "_conv1"))
            y = conv_bn(y, width, 3, 1, name + "_conv2")
            h = g.relu(g.add(y, shortcut))
    g.comment("head")
    _, width, hh, ww = h.shape
    h = g.avg_pool2d(h, [hh, ww], [1, 1])
    logits = _dense(g, g.reshape(h, [batch, width]), classes, "fc")
    return g.finish(g.cross_entropy(logits, labels))


def deepspeech2(batch=2, freq=32, time=16, channels=4, hidden=16,
                classes=10, rnn_layers=2, bidirectional=False, cell="rnn"):
    """DeepSpeech2-like acoustic model (CTC replaced by per-frame labels).

    Arguments: ``x`` [batch, 1, freq, time] (a spectrogram, NCHW) and
    ``labels`` [T'*batch], time-major, where T' is the time extent after the
    convolutions (``time`` halved, rounded up).
    Front end: conv 5x3 stride (2,2) and conv 5x3 stride (2,1), each with
    batch norm and relu.  The feature map is transposed to time-major and
    flattened to [T'*batch, channels*F'].  Each of ``rnn_layers`` layers
    projects its input for all steps at once (matmul + sequence-wise batch
    norm, as in DS2) and runs an unrolled recurrence, the directions summed
    with ``bidirectional``.  ``cell="rnn"``: ``h_t = tanh(x_t + W_hh
    h_{t-1})`` (``h_0 = tanh(x_0)``).  ``cell="gru"`` (as MXNet's DS2
    example): the projection has 3H columns ``[x_z, x_r, x_n]``;
    ``z, r = sigmoid([x_z, x_r] + W_g h)``, ``n = tanh(x_n + W_n (r*h))``,
    ``h' = h + z*(n - h)``, from ``h = 0`` (first step ``n - z*n``).
    A per-frame linear layer and cross-entropy over [T'*batch] rows.
    """
    _check(cell in ("rnn", "gru"), "deepspeech2: cell %r is not 'rnn' or "
           "'gru'", cell)
    g = GraphBuilder("deepspeech2")
    x = g.data("x", [batch, 1, freq, time])

    def conv_bn_relu(h, kernel, strides, name):
        w = g.param(name + "_w", [channels, h.shape[1]] + list(kernel))
        h = g.conv2d(h, w, strides, [kernel[0] // 2, kernel[1] // 2])
        h = g.batch_norm(h, g.param(name + "_bn_g", [channels]),
                         g.param(name + "_bn_b", [channels]))
        return g.relu(h)

    g.comment("convolutional front end")
    h = conv_bn_relu(x, [5, 3], [2, 2], "conv1")
    h = conv_bn_relu(h, [5, 3], [2, 1], "conv2")
    _, ch, f2, t2 = h.shape
    labels = g.data("labels", [t2 * batch], "i32")
    h = g.transpose(h, [3, 0, 1, 2])  # [T', B, C, F']
    seq = g.reshape(h, [t2 * batch, ch * f2])

    for l in range(rnn_layers):
        directions = ["fwd", "bwd"] if bidirectional else ["fwd"]
        outs = None
        for direction in directions:
            name = "rnn%d_%s" % (l, direction)
            g.comment("RNN layer %d (%s)" % (l, direction))
            width = hidden * (3 if cell == "gru" else 1)
            w_ih = g.param(name + "_w_ih", [width, seq.shape[1]])
            proj = g.batch_norm(g.matmul(seq, w_ih, transpose_b=True),
                                g.param(name + "_bn_g", [width]),
                                g.param(name + "_bn_b", [width]))
            if cell == "gru":
                w_g = g.param(name + "_w_hg", [2 * hidden, hidden])
                w_n = g.param(name + "_w_hn", [hidden, hidden])
            else:
                w_hh = g.param(name + "_w_hh", [hidden, hidden])
            order = range(t2) if direction == "fwd" else range(t2 - 1, -1, -1)
            hs, prev = [None] * t2, None
            for t in order:
                if cell == "gru":
                    hs[t] = prev = _gru_step(g, proj, t, batch, prev,
                                             w_g, w_n)
                    continue
                x_t = g.slice(proj, [t * batch, 0], [batch, hidden])
                if prev is not None:
                    x_t = g.add(x_t, g.matmul(prev, w_hh, transpose_b=True))
                hs[t] = prev = g.tanh(x_t)
            outs = hs if outs is None else [g.add(a, b)
                                            for a, b in zip(outs, hs)]
        seq = g.concat(outs, axis=0)  # [T'*B, H], time-major

    g.comment("per-frame classifier")
    logits = _dense(g, seq, classes, "fc")
    return g.finish(g.cross_entropy(logits, labels))


# ---------------------------------------------------------------------------
# Registry and command line
# ---------------------------------------------------------------------------

MODELS = {
    "mlp": mlp,
    "lstm": lstm,
    "nmt": nmt,
    "transformer": transformer,
    "resnet": resnet,
    "deepspeech2": deepspeech2,
}


def _defaults(model):
    return [(p.name, p.default)
            for p in inspect.signature(MODELS[model]).parameters.values()]


def _format_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(int(v)) for v in value)
    return str(value)


def _parse_value(text, default):
    """Parses a command-line value with the type of the keyword's default."""
    if isinstance(default, bool):
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError("expected true or false, got %r" % text)
    if isinstance(default, (list, tuple)):
        return tuple(int(v) for v in text.split(",") if v.strip())
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text


def _complete(model, kwargs):
    """All keyword arguments of ``model``: ``kwargs`` over the defaults."""
    names = [name for name, _ in _defaults(model)]
    for key in kwargs:
        if key not in names:
            raise ValueError("model %s has no size %r (has: %s)" % (
                model, key, ", ".join(names)))
    return [(name, kwargs.get(name, default))
            for name, default in _defaults(model)]


def command_line(model, **kwargs):
    """The canonical command that regenerates ``model`` with ``kwargs``."""
    return "python3 -m echo.models %s %s" % (model, " ".join(
        "--%s=%s" % (k, _format_value(v)) for k, v in _complete(model, kwargs)))


def build(model, **kwargs):
    """Builds ``model`` and returns its MLIR text with a header comment."""
    if model not in MODELS:
        raise ValueError("unknown model %r (known: %s)" % (
            model, ", ".join(MODELS)))
    full = _complete(model, kwargs)
    header = "// Echo model, generated by:\n//   %s\n" % command_line(
        model, **kwargs)
    return header + MODELS[model](**dict(full))


_USAGE = """\
usage: python3 -m echo.models <model> [--key=value ...] [-o out.mlir]
       python3 -m echo.models --list

Emits an Echo training graph (MLIR, generic op form) on stdout or to -o.
Lists take commas (--sizes=784,256,10); flags take true/false.
"""


def _list_models(out):
    for name, fn in MODELS.items():
        summary = inspect.getdoc(fn).splitlines()[0]
        out.write("%-12s %s\n" % (name, summary))
        out.write("%-12s %s\n" % ("", " ".join(
            "--%s=%s" % (k, _format_value(v)) for k, v in _defaults(name))))


def main(argv=None):
    """Command-line entry point; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    model, output, raw = None, None, {}
    i = 0
    try:
        while i < len(argv):
            arg = argv[i]
            i += 1
            if arg in ("-h", "--help"):
                sys.stdout.write(_USAGE)
                return 0
            if arg == "--list":
                _list_models(sys.stdout)
                return 0
            if arg in ("-o", "--output"):
                if i == len(argv):
                    raise ValueError("%s needs a file name" % arg)
                output = argv[i]
                i += 1
            elif arg.startswith("--output="):
                output = arg[len("--output="):]
            elif arg.startswith("--"):
                key, eq, value = arg[2:].partition("=")
                if not eq:
                    if i == len(argv):
                        raise ValueError("--%s needs a value" % key)
                    value = argv[i]
                    i += 1
                raw[key.replace("-", "_")] = value
            elif model is None:
                model = arg
            else:
                raise ValueError("unexpected argument %r" % arg)
        if model is None:
            raise ValueError("no model given (try --list)")
        if model not in MODELS:
            raise ValueError("unknown model %r (known: %s)" % (
                model, ", ".join(MODELS)))
        defaults = dict(_defaults(model))
        kwargs = {}
        for key, value in raw.items():
            if key not in defaults:
                raise ValueError("model %s has no size %r (has: %s)" % (
                    model, key, ", ".join(defaults)))
            try:
                kwargs[key] = _parse_value(value, defaults[key])
            except ValueError as err:
                raise ValueError("--%s: %s" % (key, err))
        text = build(model, **kwargs)
    except ValueError as err:  # includes ShapeError
        sys.stderr.write("echo.models: error: %s\n" % err)
        if not isinstance(err, ShapeError):
            sys.stderr.write(_USAGE)
        return 2
    if output is None or output == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(output, "w") as f:
            f.write(text)
    except OSError as err:
        sys.stderr.write("echo.models: error: %s\n" % err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
