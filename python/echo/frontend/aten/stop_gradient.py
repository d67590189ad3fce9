"""Stop-gradients: ``x.detach()`` and what a module computes under
``torch.no_grad()`` from trained parameters (the targets of EMA, BYOL and
DINO-style models, SimSiam's stop-gradient branch).

A detached value that depends on trained parameters is
``echo.stop_gradient`` of it (a value computed from data and frozen
parameters only gets no gradient anyway: it is the value itself). A node
traced with autograd off (``meta["echo_grad"]`` False, see
:mod:`echo.frontend.trace`) that depends on trained parameters reads each
such operand made with autograd on through one ``echo.stop_gradient``: no
gradient flows back into the no-grad computation, as in PyTorch, where its
results do not require grad. Each value is stopped once, however many
nodes read it.
"""

from echo.frontend.aten import aten, overload
from echo.graph import Value

__all__ = ["stop_gradient", "stop_at_no_grad"]


def stop_gradient(ctx, x):
    """``echo.stop_gradient`` of the f32 value ``x`` (one per value)."""
    if not isinstance(x, Value) or x.dtype != "f32":
        return x
    key = ("stop_gradient", x.name)
    if key not in ctx.memo:
        ctx.memo[key] = ctx.g.op("stop_gradient", [x],
                                 [(x.shape, x.dtype)])[0]
    return ctx.memo[key]


@aten(overload("detach"))
def _detach(ctx, self):
    x = ctx.tensor(self)
    if not ctx.from_params(ctx.node):
        return x
    return stop_gradient(ctx, x)


def _made_with_grad(node):
    return node.meta.get("echo_grad") is not False


def stop_at_no_grad(ctx, node, args):
    """``args`` (the normalized arguments of ``node``, made under
    ``torch.no_grad()``) with every value that a node made with autograd on
    computed from trained parameters replaced by its stop-gradient."""
    replace = {}
    for source in node.all_input_nodes:
        value = ctx.env.get(source)
        if isinstance(value, Value) and _made_with_grad(source) and \
                ctx.from_params(source):
            replace[id(value)] = stop_gradient(ctx, value)

    def swap(v):
        if isinstance(v, (list, tuple)):
            return type(v)(swap(u) for u in v)
        return replace.get(id(v), v)
    return {name: swap(v) for name, v in args.items()} if replace else args
