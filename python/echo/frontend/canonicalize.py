"""Node rewrites that run before dispatch (torch-mlir's
``NODE_CANONICALIZE``): ops that are spellings of another become it, so the
table has one handler per computation.

:data:`CANONICALIZE` maps an ``OpOverload`` to ``(target, rewrite)``:
the handler of ``target`` is called with ``rewrite(args)``, ``args`` being
the source op's normalized arguments (``None``: the same arguments).
"""

import torch

__all__ = ["CANONICALIZE", "lookup"]

_aten = torch.ops.aten


def _op(name, variant="default"):
    try:
        return getattr(getattr(_aten, name), variant)
    except (AttributeError, RuntimeError):
        return None


def _identity(args):
    return {"self": args["self"]}


def _view(args):
    return {"self": args["self"], "size": args["size"]}


def _clamp(low, high):
    def rewrite(args):
        return {"self": args["self"], "min": args.get(low),
                "max": args.get(high)}
    return rewrite


def _split(args):
    return {"self": args["self"], "split_size": args["split_size"],
            "dim": args["dim"]}


def _sizes(args):
    return {"self": args["self"], "split_sizes": args["split_sizes"],
            "dim": args["dim"]}


def _where(args):
    return {"condition": args["condition"], "self": args["self"],
            "other": args["other"]}


def _masked_fill(args):
    return {"self": args["self"], "mask": args["mask"],
            "value": args["value"]}


def _scalar_to_tensor(args):
    return dict(args)


CANONICALIZE = {}


def _add(source, target, rewrite=None):
    if source is not None and target is not None:
        CANONICALIZE[source] = (target, rewrite)


# Views that read the same elements in the same (row-major) order: a
# reshape in Echo, whatever strides PyTorch chose.
_add(_op("_unsafe_view"), _op("view"), _view)
_add(_op("_reshape_alias"), _op("view"), _view)
_add(_op("reshape"), _op("view"), lambda a: {"self": a["self"],
                                             "size": a["shape"]})
# Copies and aliases: the value itself.
for _name in ("clone", "alias", "lift_fresh_copy", "lift_fresh",
              "contiguous"):
    _add(_op(_name), _op("alias"), _identity)
# Scalar overloads: the handlers take numbers where tensors go.
for _name in ("add", "sub", "mul", "div", "rsub"):
    _add(_op(_name, "Scalar"), _op(_name, "Tensor"), _scalar_to_tensor)
# Clamps: one clamp with optional bounds.
_add(_op("hardtanh"), _op("clamp"), _clamp("min_val", "max_val"))
_add(_op("clamp_min"), _op("clamp"), _clamp("min", None))
_add(_op("clamp_max"), _op("clamp"), _clamp(None, "max"))
# Splits that may alias: the same values.
_add(_op("unsafe_split", "Tensor"), _op("split", "Tensor"), _split)
_add(_op("unsafe_split_with_sizes"), _op("split_with_sizes"), _sizes)
# where / masked_fill with numbers.
for _variant in ("ScalarSelf", "ScalarOther", "Scalar"):
    _add(_op("where", _variant), _op("where", "self"), _where)
_add(_op("masked_fill", "Tensor"), _op("masked_fill", "Scalar"),
     _masked_fill)


def lookup(target):
    """``(target to dispatch on, argument rewrite or None)``."""
    return CANONICALIZE.get(target, (target, None))
