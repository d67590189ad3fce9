"""Imports a PyTorch module into an Echo model (a contract command line).

    PYTHONPATH=python python3 -m echo.import_torch MODULE:FACTORY \\
        --input SHAPE:DTYPE [--input ...] --loss cross_entropy|mse \\
        --labels SHAPE[:DTYPE] -o model.mlir --weights DIR

``MODULE`` is imported from the current directory or ``PYTHONPATH``;
``FACTORY()`` returns the ``nn.Module``.  The model function takes the inputs
as given, then the labels, then the module's parameters in
``named_parameters()`` order (those with ``requires_grad=False`` first, as
frozen data), then, when the module has dropout, the step's seed (echo-run
passes a fresh one every step); ``DIR/argN.npy`` holds the initial value of
parameter argument N, so ``echo-run --inputs=DIR`` trains from the module's
own weights.  ``cross_entropy`` takes PyTorch's class dim 1 and its
``--ignore-index`` (default -100, ``none`` for none) and
``--label-smoothing`` (default 0).  Shapes are ``2x3x32x32`` (or ``2,3,32,32``); dtypes ``f32`` or
``i32`` (labels default to ``i32`` for ``cross_entropy`` and ``f32`` for
``mse``).  ``--attention=fused`` (the default) runs echo-fuse-attention on
the imported model (attention written with materialized ops becomes
``echo.attention`` where it matches exactly: no S×S value is held);
``--attention=materialized`` keeps the ops as written.  Errors name the node, its target and its source line; the exit
status is 1.
"""

import argparse
import importlib
import os
import sys
import time


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m echo.import_torch",
        description="Import a PyTorch nn.Module (traced at the ATen level) "
                    "into an Echo model.")
    parser.add_argument("factory", metavar="MODULE:FACTORY")
    parser.add_argument("--input", action="append", default=[],
                        metavar="SHAPE:DTYPE", required=True)
    parser.add_argument("--loss", choices=("cross_entropy", "mse", "none"),
                        required=True, help="the loss appended to the "
                        "module's output, or none: the module returns its "
                        "loss, the labels passed to it (as labels= when its "
                        "forward has that parameter, else last)")
    parser.add_argument("--labels", metavar="SHAPE[:DTYPE]", required=True)
    parser.add_argument("--ignore-index", default="-100", metavar="N|none",
                        help="cross_entropy: the label value whose rows "
                             "count for nothing (PyTorch's default -100)")
    parser.add_argument("--label-smoothing", type=float, default=0.0,
                        metavar="E", help="cross_entropy: label smoothing "
                                          "in [0, 1] (default 0)")
    parser.add_argument("-o", dest="output", metavar="model.mlir",
                        required=True)
    parser.add_argument("--weights", metavar="DIR", required=True)
    parser.add_argument("--attention", choices=("fused", "materialized"),
                        default="fused",
                        help="fused (default): attention written with "
                             "materialized ops becomes echo.attention where "
                             "it matches exactly (echo-fuse-attention); "
                             "materialized: the ops as written")
    parser.add_argument("--name", help="the model function's name "
                        "(default: FACTORY)")
    args = parser.parse_args(argv)
    from echo.frontend.errors import report
    return report("echo.import_torch", lambda: _import(args, argv))


def build_module(spec):
    """``MODULE:FACTORY`` -> the ``nn.Module`` ``FACTORY()`` returns (built
    after ``torch.manual_seed(0)``); a failure is a :class:`UsageError` or
    :class:`ModuleError` that says which part failed and where."""
    from echo.frontend.errors import (ModuleError, UsageError, describe,
                                      raise_site)
    module_name, _, factory_name = spec.partition(":")
    if not module_name or not factory_name:
        raise UsageError("'%s' is not MODULE:FACTORY" % spec)
    # The current directory first, as `python3 -m` users expect.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        py_module = importlib.import_module(module_name)
    except Exception as e:
        site = raise_site(e)
        raise UsageError("cannot import '%s'%s: %s" % (
            module_name, " at " + site if site and not isinstance(
                e, ImportError) else "", describe(e)))
    factory = getattr(py_module, factory_name, None)
    if not callable(factory):
        raise UsageError("'%s' has no callable '%s'" % (module_name,
                                                       factory_name))
    import torch
    torch.manual_seed(0)
    try:
        module = factory()
    except Exception as e:
        site = raise_site(e)
        raise ModuleError("%s() failed%s: %s" % (
            factory_name, " at " + site if site else "", describe(e)))
    if not isinstance(module, torch.nn.Module):
        raise UsageError("%s() returned a %s, not an nn.Module" % (
            factory_name, type(module).__name__))
    return module, factory_name


def loss_spec(args):
    """The :class:`LossSpec` of ``--loss``, ``--ignore-index`` and
    ``--label-smoothing``."""
    from echo.frontend import LossSpec
    from echo.frontend.errors import UsageError
    ignore = args.ignore_index
    if ignore == "none":
        ignore = None
    else:
        try:
            ignore = int(ignore)
        except ValueError:
            raise UsageError("--ignore-index must be an integer or 'none', "
                             "not '%s'" % args.ignore_index)
    if args.loss == "none":
        return LossSpec("module")
    return LossSpec(args.loss, ignore, args.label_smoothing)


def _import(args, argv):
    from echo.frontend import import_module, parse_input
    loss = loss_spec(args)
    inputs = [parse_input(i) for i in args.input]
    labels = parse_input(args.labels, "f32" if args.loss == "mse"
                         else "i32")
    module, factory_name = build_module(args.factory)
    start = time.perf_counter()
    imported = import_module(module, inputs, loss, labels,
                             args.name or factory_name,
                             attention=args.attention)
    header = "// Imported from PyTorch by: python3 -m echo.import_torch %s\n" % (
        " ".join(sys.argv[1:] if argv is None else argv))
    try:
        with open(args.output, "w") as f:
            f.write(header + imported.text)
        imported.write_weights(args.weights)
    except OSError as e:
        from echo.frontend.errors import UsageError
        raise UsageError(str(e))
    print("echo.import_torch: %s: %d inputs, labels, %d parameters -> %s, "
          "weights in %s (%.2f s)" % (
              factory_name, len(inputs), len(imported.weights), args.output,
              args.weights, time.perf_counter() - start), file=sys.stderr)
    for note in imported.notes:
        print("echo.import_torch: note: %s" % note, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
