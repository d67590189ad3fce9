"""A GPT-style decoder for long-context memory measurements.

``python3 -m echo.models_gpt --seq=1024 -o gpt.mlir`` writes a model whose
attention is ``echo.attention`` (causal, with attention dropout): the fused
op that keeps no S x S tensor for the backward pass. The materialized
version of the same model is ``echo-opt --echo-decompose-attention`` of it.
"""

import argparse
import math
import sys

from echo.graph import GraphBuilder, f64_attr, i64_attr, bool_attr


def _dense(g, x, features, name):
    w = g.param(name + "_w", [features, x.shape[1]])
    b = g.param(name + "_b", [features])
    return g.linear(x, w, b)


def attention(g, q, k, v, scale, causal=True, dropout=0.0):
    """``echo.attention`` of q [B,H,S,D], k, v [B,Hkv,Sk,*]; returns out."""
    attrs = {"scale": f64_attr(scale), "causal": bool_attr(causal)}
    operands = [q, k, v]
    segments = [1, 1, 1, 0, 0]
    if dropout:
        attrs["dropout_ratio"] = f64_attr(dropout)
        attrs["seed"] = i64_attr(g._next_seed)
        g._next_seed += 1
        if g.step_seed:
            operands.append(g.seed_argument())
            segments[4] = 1
    attrs["operandSegmentSizes"] = "array<i32: %s>" % ", ".join(
        str(s) for s in segments)
    b, h, s, _ = q.shape
    out, _ = g.op("attention", operands,
                  [([b, h, s, v.shape[3]], q.dtype), ([b, h, s], "f32")],
                  attrs)
    return out


def gpt(batch=2, seq=512, d_model=256, heads=4, layers=4, vocab=4096,
        dropout=0.1, step_seed=True, seed=1):
    """Pre-LN GPT: token + position embeddings, ``layers`` blocks of
    ``x += Drop(Proj(CausalAttention(LN(x))))``, ``x += Drop(FF(LN(x)))``
    (GELU, 4 x d_model), a final LN and the vocabulary projection with a
    next-token cross-entropy over every position. Dropout ``dropout`` on
    the embeddings, the attention probabilities and both residual
    branches."""
    if d_model % heads:
        raise ValueError("heads (%d) must divide d_model (%d)" % (heads,
                                                                 d_model))
    dh = d_model // heads
    n = batch * seq
    g = GraphBuilder("gpt", seed=seed, step_seed=step_seed)
    ids = g.data("ids", [batch, seq], "i32")
    labels = g.data("labels", [n], "i32")

    def drop(x):
        return g.dropout(x, dropout)[0] if dropout else x

    def heads_of(x):  # [B*S, d] -> [B, H, S, dh]
        return g.transpose(g.reshape(x, [batch, seq, heads, dh]),
                           [0, 2, 1, 3])

    def ln(x, name):
        return g.layer_norm(x, g.param(name + "_g", [d_model]),
                            g.param(name + "_b", [d_model]))

    x = g.embedding(ids, g.param("tok_embed", [vocab, d_model]))
    pos = g.param("pos_embed", [seq, d_model])
    x = g.add(x, g.broadcast(pos, [batch, seq, d_model], [0]))
    x = drop(g.reshape(x, [n, d_model]))
    for l in range(layers):
        g.comment("block %d: causal self-attention" % l)
        h = ln(x, "l%d_ln1" % l)
        q = heads_of(_dense(g, h, d_model, "l%d_q" % l))
        k = heads_of(_dense(g, h, d_model, "l%d_k" % l))
        v = heads_of(_dense(g, h, d_model, "l%d_v" % l))
        o = attention(g, q, k, v, 1.0 / math.sqrt(dh), True, dropout)
        o = g.reshape(g.transpose(o, [0, 2, 1, 3]), [n, d_model])
        x = g.add(x, drop(_dense(g, o, d_model, "l%d_proj" % l)))
        g.comment("block %d: MLP" % l)
        f = g.gelu(_dense(g, ln(x, "l%d_ln2" % l), 4 * d_model, "l%d_fc" % l))
        x = g.add(x, drop(_dense(g, f, d_model, "l%d_out" % l)))
    logits = _dense(g, ln(x, "ln_f"), vocab, "head")
    return g.finish(g.cross_entropy(logits, labels))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--d_model", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=4096)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--no-step-seed", action="store_true",
                        help="dropout masks fixed across steps")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args(argv)
    try:
        text = gpt(args.batch, args.seq, args.d_model, args.heads,
                   args.layers, args.vocab, args.dropout,
                   not args.no_step_seed)
    except ValueError as err:
        sys.stderr.write("echo.models_gpt: error: %s\n" % err)
        return 2
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
