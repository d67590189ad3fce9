"""Losses a module computes in its forward (the Hugging Face style
``model(ids, labels=labels) -> loss``, or a loss function traced with the
module): PyTorch's cross-entropy and NLL as ``echo.cross_entropy`` (their
trace nodes, :mod:`echo.frontend.trace`), or ``echo.cross_entropy_rows``
for per-row losses and class weights, the others written with Echo's
elementwise ops and sums, each with PyTorch's formula, so that their
gradients are PyTorch's.

``F.kl_div`` traces to ``xlogy(target, target) - target * input``:
``xlogy`` is written with ``echo.compare`` and ``echo.select``.

``reduction`` is PyTorch's enum: 0 none, 1 mean, 2 sum.
"""

from echo.frontend.aten import aten, normalize_dim, overload
from echo.frontend.aten.elementwise import unary
from echo.frontend.aten.masks import compare
from echo.frontend.trace import CROSS_ENTROPY, NLL_LOSS
from echo.models import f64_attr, i64_attr

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}

# The values the _log_softmax handler made: their name -> (logits, dim).
_LOG_SOFTMAX = "log_softmax_of"


def _reduce(ctx, x, reduction):
    """``x`` reduced as PyTorch's ``reduction``: the mean or sum of every
    element (a 0-d tensor), or ``x`` itself."""
    g = ctx.g
    ctx.require(reduction in _REDUCTIONS, "reduction %r (PyTorch's are 0, "
                "1 and 2)" % (reduction,))
    if reduction == 0:
        return x
    total = g.reduce_sum(x, list(range(x.rank))) if x.rank else x
    if reduction == 2:
        return total
    n = 1
    for d in x.shape:
        n *= d
    return g.mul(total, g.constant(1.0 / n, ()))


def _class_rows(ctx, x, target, class_dim):
    """``x`` as [rows, classes] (its class dim moved last) and ``target``
    as [rows]: PyTorch's layouts of a classification loss, [C] with a 0-d
    target, [N, C] or [N, C, d...] with [N, d...]."""
    g = ctx.g
    x = ctx.tensor(x, "f32")
    labels = ctx.tensor(target, "i32", "target")
    if x.rank == 1:
        return g.reshape(x, [1, x.shape[0]]), g.reshape(labels, [1])
    expected = (x.shape[0],) + x.shape[2:]
    ctx.require(labels.shape == expected, "a target of shape %s for input "
                "%s (PyTorch's: the input without its class dim 1)" % (
                    list(labels.shape), list(x.shape)))
    rows = 1
    for d in expected:
        rows *= d
    if x.rank > 2:
        x = ctx.transpose(x, [0] + list(range(2, x.rank)) + [1])
    return (g.reshape(x, [rows, x.shape[-1] if x.rank > 2 else x.shape[1]]),
            g.reshape(labels, [rows]))


def _cross_entropy(ctx, logits, labels, weight, reduction, ignore_index,
                   smoothing):
    """PyTorch's cross-entropy of [rows, C] logits: ``echo.cross_entropy``
    (its chunked, fused form) for a mean or a sum without class weights;
    ``echo.cross_entropy_rows`` for per-row losses and class weights (the
    weights of the labels multiply the rows); written out from the
    log-softmax (:func:`_weighted_nll`) for class weights with label
    smoothing, whose uniform part PyTorch weights too."""
    g = ctx.g
    ctx.require(reduction in _REDUCTIONS, "reduction %r (PyTorch's are 0, "
                "1 and 2)" % (reduction,))
    if weight is not None and smoothing:
        return _weighted_nll(ctx, _log_softmax_of(ctx, logits, 1), labels,
                             weight, reduction, ignore_index, smoothing)
    if weight is not None or reduction == 0:
        attrs = {} if ignore_index is None else {
            "ignore_index": i64_attr(ignore_index)}
        if smoothing:
            attrs["label_smoothing"] = f64_attr(smoothing)
        rows = g.op("cross_entropy_rows", [logits, labels],
                    [((labels.shape[0],), "f32")], attrs)[0]
        if weight is None:
            return rows
        w = _label_weights(ctx, labels, weight, logits.shape[1],
                           ignore_index)
        rows = g.mul(rows, w)
        if reduction == 0:
            return rows
        total = g.reduce_sum(rows, [0])
        return total if reduction == 2 else g.div(
            total, g.reduce_sum(w, [0]))
    loss = g.cross_entropy(logits, labels, ignore_index, smoothing)
    if reduction == 1:
        return loss
    # The sum: the mean times the rows that count.
    if ignore_index is None:
        count = g.constant(float(labels.shape[0]), ())
    else:
        count = g.op("label_count", [labels], [((), "f32")],
                     {"ignore_index": i64_attr(ignore_index)})[0]
    return g.mul(loss, count)


def _label_weights(ctx, labels, weight, classes, ignore_index):
    """``weight[labels[i]]`` per row (0 where the label is ignored): the
    row's one-hot (``echo.one_hot``, so that the caller's labels stay
    checked against the classes) times the weights, summed. Data only: its
    [rows, C] one-hot lives in the forward, and only the [rows] result is
    read by the backward."""
    g = ctx.g
    rows = labels.shape[0]
    attrs = {} if ignore_index is None else {
        "ignore_index": i64_attr(ignore_index)}
    picked = g.op("one_hot", [labels], [((rows, classes), "f32")], attrs)[0]
    return g.reduce_sum(g.mul(picked, ctx.operand(weight, (rows, classes))),
                        [1])


def _weighted_nll(ctx, logp, labels, weight, reduction, ignore_index,
                  smoothing):
    """PyTorch's NLL of [rows, C] log-probabilities with class weights
    ``w``, label smoothing ``e`` and ignored labels, row by row:

        loss_i = (1 - e) w[y_i] (-logp[i, y_i])
                 + e / C sum_c w[c] (-logp[i, c])       (0 where ignored)

    reduced as PyTorch reduces it: each term's sum over the rows divided,
    for the mean, by the sum of w[y_i] over the rows that count. The row
    of ``y_i`` is picked with ``echo.one_hot``, whose ``ignore_index``
    zeroes ignored rows and keeps a caller's labels checked against the
    classes (a label outside is an error, as in PyTorch)."""
    g = ctx.g
    rows, classes = logp.shape
    attrs = {} if ignore_index is None else {
        "ignore_index": i64_attr(ignore_index)}
    picked = g.op("one_hot", [labels], [((rows, classes), "f32")], attrs)[0]
    w = None if weight is None else ctx.operand(weight, (rows, classes))
    weighted = picked if w is None else g.mul(picked, w)
    nll = g.neg(g.reduce_sum(g.mul(weighted, logp), [1]))
    per_row = nll
    if smoothing:
        counted = g.reduce_sum(picked, [1])  # 1, or 0 where ignored
        spread = logp if w is None else g.mul(w, logp)
        smooth = g.mul(g.neg(g.reduce_sum(spread, [1])), counted)
        per_row = g.add(g.mul(nll, g.constant(1.0 - smoothing, (rows,))),
                        g.mul(smooth, g.constant(smoothing / classes,
                                                 (rows,))))
    if reduction == 0:
        return per_row
    total = g.reduce_sum(per_row, [0])
    if reduction == 2:
        return total
    return g.div(total, g.reduce_sum(weighted, [0, 1]))


@aten(CROSS_ENTROPY)
def _cross_entropy_node(ctx, x, target, weight, reduction, ignore_index,
                        label_smoothing):
    """F.cross_entropy: over the class dim 1, PyTorch's ignore_index
    (-100 by default) and label_smoothing."""
    ctx.require(0.0 <= label_smoothing <= 1.0, "label_smoothing %r outside "
                "[0, 1]" % (label_smoothing,))
    logits, labels = _class_rows(ctx, x, target, 1)
    return _rows_as_target(ctx, _cross_entropy(
        ctx, logits, labels, weight, reduction, int(ignore_index),
        float(label_smoothing)), target, reduction)


@aten(NLL_LOSS)
def _nll_loss_node(ctx, x, target, weight, reduction, ignore_index):
    """F.nll_loss over the class dim 1: of a log-softmax, the cross-entropy
    of the log-softmax's input (log_softmax is shift-invariant, so the two
    agree, gradients included); of other values, PyTorch's
    ``-w[y] x[y]`` written out (:func:`_weighted_nll`)."""
    value = ctx.tensor(x, "f32")
    source = getattr(ctx, _LOG_SOFTMAX, {}).get(value.name)
    class_dim = 0 if value.rank == 1 else 1
    if source is not None and source[1] == class_dim:
        logits, labels = _class_rows(ctx, source[0], target, 1)
        return _rows_as_target(ctx, _cross_entropy(
            ctx, logits, labels, weight, reduction, int(ignore_index), 0.0),
            target, reduction)
    logp, labels = _class_rows(ctx, value, target, 1)
    ctx.require(reduction in _REDUCTIONS, "reduction %r (PyTorch's are 0, "
                "1 and 2)" % (reduction,))
    return _rows_as_target(ctx, _weighted_nll(
        ctx, logp, labels, weight, reduction, int(ignore_index), 0.0),
        target, reduction)


def _rows_as_target(ctx, loss, target, reduction):
    """A reduction='none' loss of [rows] in the target's shape."""
    if reduction != 0:
        return loss
    return ctx.g.reshape(loss, list(ctx.tensor(target, "i32",
                                               "target").shape))


def _log_softmax_of(ctx, x, d):
    """x - max - log(sum(exp(x - max))) along ``d`` (the stable form,
    PyTorch's)."""
    g = ctx.g
    m = g.reduce_max(x, [d])
    shifted = g.sub(x, ctx.broadcast_to(g.reshape(m, _kept(x.shape, d)),
                                        x.shape))
    s = g.reduce_sum(unary(ctx, "exp", shifted), [d])
    lse = g.reshape(unary(ctx, "log", s), _kept(x.shape, d))
    return g.sub(shifted, ctx.broadcast_to(lse, x.shape))


@aten(overload("_log_softmax"))
def _log_softmax(ctx, self, dim, half_to_float=False):
    """The log-softmax of ``x`` along ``dim``, remembered as such so that
    a following nll_loss is the cross-entropy of ``x``."""
    x = ctx.tensor(self, "f32")
    d = normalize_dim(dim, x.rank)
    y = _log_softmax_of(ctx, x, d)
    if not hasattr(ctx, _LOG_SOFTMAX):
        setattr(ctx, _LOG_SOFTMAX, {})
    getattr(ctx, _LOG_SOFTMAX)[y.name] = (x, d)
    return y


def _kept(shape, d):
    return [1 if i == d else s for i, s in enumerate(shape)]


def _pair(ctx, self, target):
    """The prediction and the target, the target broadcast to the
    prediction's shape (PyTorch broadcasts them and warns)."""
    x = ctx.tensor(self, "f32")
    return x, ctx.operand(target, x.shape)


@aten(overload("mse_loss"))
def _mse_loss(ctx, self, target, reduction=1):
    x, t = _pair(ctx, self, target)
    if reduction == 1:
        return ctx.g.mse_loss(x, t)
    d = ctx.g.sub(x, t)
    return _reduce(ctx, ctx.g.mul(d, d), reduction)


def _absolute(ctx, x):
    """|x| as relu(x) + relu(-x): gradient 0 at 0, PyTorch's sign."""
    return ctx.g.add(unary(ctx, "relu", x),
                     unary(ctx, "relu", unary(ctx, "neg", x)))


def _clamped(ctx, x, low, high):
    return ctx.g.clamp(x, low, high)


@aten(overload("smooth_l1_loss"))
def _smooth_l1_loss(ctx, self, target, reduction=1, beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - beta/2: with c =
    clamp(|d|, 0, beta), 0.5 c^2 / beta + (|d| - c) (PyTorch's values and
    gradients, the linear branch's at |d| = beta)."""
    g = ctx.g
    x, t = _pair(ctx, self, target)
    a = _absolute(ctx, g.sub(x, t))
    if beta == 0:
        return _reduce(ctx, a, reduction)
    ctx.require(beta > 0, "smooth_l1_loss with beta %r < 0" % beta)
    c = _clamped(ctx, a, 0.0, beta)
    quadratic = g.mul(g.mul(c, c), g.constant(0.5 / beta, c.shape))
    return _reduce(ctx, g.add(quadratic, g.sub(a, c)), reduction)


@aten(overload("huber_loss"))
def _huber_loss(ctx, self, target, reduction=1, delta=1.0):
    """0.5 d^2 where |d| < delta, else delta (|d| - delta/2): with c =
    clamp(|d|, 0, delta), 0.5 c^2 + delta (|d| - c)."""
    g = ctx.g
    ctx.require(delta > 0, "huber_loss with delta %r <= 0" % delta)
    x, t = _pair(ctx, self, target)
    a = _absolute(ctx, g.sub(x, t))
    c = _clamped(ctx, a, 0.0, delta)
    quadratic = g.mul(g.mul(c, c), g.constant(0.5, c.shape))
    linear = g.mul(g.sub(a, c), g.constant(float(delta), c.shape))
    return _reduce(ctx, g.add(quadratic, linear), reduction)


def _softplus_neg(ctx, x):
    """log(1 + exp(-x)) = relu(-x) + log(1 + exp(-|x|)), finite for every
    x."""
    g = ctx.g
    tail = unary(ctx, "log", g.add(g.constant(1.0, x.shape), unary(
        ctx, "exp", unary(ctx, "neg", _absolute(ctx, x)))))
    return g.add(unary(ctx, "relu", unary(ctx, "neg", x)), tail)


@aten(overload("binary_cross_entropy_with_logits"))
def _bce_with_logits(ctx, self, target, weight=None, pos_weight=None,
                     reduction=1):
    """PyTorch's: (1 - y) x + (1 + (pos_weight - 1) y) log(1 + exp(-x)),
    times ``weight``."""
    g = ctx.g
    x, y = _pair(ctx, self, target)
    one = g.constant(1.0, x.shape)
    loss = g.mul(g.sub(one, y), x)
    tail = _softplus_neg(ctx, x)
    if pos_weight is not None:
        pw = ctx.operand(pos_weight, x.shape)
        tail = g.mul(g.add(one, g.mul(g.sub(pw, one), y)), tail)
    loss = g.add(loss, tail)
    if weight is not None:
        loss = g.mul(loss, ctx.operand(weight, x.shape))
    return _reduce(ctx, loss, reduction)


@aten(overload("binary_cross_entropy"))
def _bce(ctx, self, target, weight=None, reduction=1):
    """-(y log p + (1 - y) log(1 - p)), each log clamped at -100 as
    PyTorch's."""
    g = ctx.g
    p, y = _pair(ctx, self, target)
    one = g.constant(1.0, p.shape)
    inf = float("inf")
    log_p = _clamped(ctx, unary(ctx, "log", p), -100.0, inf)
    log_q = _clamped(ctx, unary(ctx, "log", g.sub(one, p)), -100.0, inf)
    loss = unary(ctx, "neg", g.add(g.mul(y, log_p),
                                   g.mul(g.sub(one, y), log_q)))
    if weight is not None:
        loss = g.mul(loss, ctx.operand(weight, p.shape))
    return _reduce(ctx, loss, reduction)


@aten(overload("xlogy", "Tensor"))
def _xlogy(ctx, self, other):
    """x * log(y), 0 where x == 0 (PyTorch's xlogy; F.kl_div's
    ``xlogy(target, target)``): log reads y with 1 where x == 0, so that
    neither the value nor the gradients see log(0); the gradients are
    PyTorch's (log(y) for x where x != 0, x / y for y)."""
    g = ctx.g
    shape = ctx.out_shape()
    x, y = ctx.operand(self, shape), ctx.operand(other, shape)
    zero = compare(ctx, "eq", x, 0.0)
    safe = g.op("select", [zero, g.constant(1.0, shape), y],
                [(shape, "f32")])[0]
    product = g.mul(x, unary(ctx, "log", safe))
    return g.op("select", [zero, g.constant(0.0, shape), product],
                [(shape, "f32")])[0]
