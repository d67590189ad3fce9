"""Imports a PyTorch module into an Echo model (a contract command line).

    PYTHONPATH=python python3 -m echo.import_torch MODULE:FACTORY \\
        --input SHAPE:DTYPE [--input ...] --loss cross_entropy|mse \\
        --labels SHAPE[:DTYPE] -o model.mlir --weights DIR

``MODULE`` is imported from the current directory or ``PYTHONPATH``;
``FACTORY()`` returns the ``nn.Module``.  The model function takes the inputs
as given, then the labels, then the module's parameters in
``named_parameters()`` order; ``DIR/argN.npy`` holds the initial value of
parameter argument N, so ``echo-run --inputs=DIR`` trains from the module's
own weights.  Shapes are ``2x3x32x32`` (or ``2,3,32,32``); dtypes ``f32`` or
``i32`` (labels default to ``i32`` for ``cross_entropy`` and ``f32`` for
``mse``).  Errors name the node, its target and its source line; the exit
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
        description="Import a PyTorch nn.Module (torch.fx) into an Echo "
                    "model.")
    parser.add_argument("factory", metavar="MODULE:FACTORY")
    parser.add_argument("--input", action="append", default=[],
                        metavar="SHAPE:DTYPE", required=True)
    parser.add_argument("--loss", choices=("cross_entropy", "mse"),
                        required=True)
    parser.add_argument("--labels", metavar="SHAPE[:DTYPE]", required=True)
    parser.add_argument("-o", dest="output", metavar="model.mlir",
                        required=True)
    parser.add_argument("--weights", metavar="DIR", required=True)
    parser.add_argument("--name", help="the model function's name "
                        "(default: FACTORY)")
    args = parser.parse_args(argv)

    def fail(message):
        print("echo.import_torch: error: %s" % message, file=sys.stderr)
        return 1

    module_name, _, factory_name = args.factory.partition(":")
    if not module_name or not factory_name:
        return fail("'%s' is not MODULE:FACTORY" % args.factory)
    # The current directory first, as `python3 -m` users expect.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    from echo.frontend import UnsupportedError, import_module, parse_input
    try:
        inputs = [parse_input(i) for i in args.input]
        labels = parse_input(args.labels, "i32" if args.loss ==
                             "cross_entropy" else "f32")
    except UnsupportedError as e:
        return fail(str(e))
    try:
        py_module = importlib.import_module(module_name)
    except Exception as e:
        return fail("cannot import '%s': %s: %s" % (module_name,
                                                   type(e).__name__, e))
    factory = getattr(py_module, factory_name, None)
    if not callable(factory):
        return fail("'%s' has no callable '%s'" % (module_name, factory_name))
    import torch
    torch.manual_seed(0)
    try:
        module = factory()
    except Exception as e:
        return fail("%s() raised %s: %s" % (factory_name, type(e).__name__,
                                            e))
    if not isinstance(module, torch.nn.Module):
        return fail("%s() returned a %s, not an nn.Module" % (
            factory_name, type(module).__name__))
    start = time.perf_counter()
    try:
        imported = import_module(module, inputs, args.loss, labels,
                                 args.name or factory_name)
    except UnsupportedError as e:
        return fail(str(e))
    header = "// Imported from PyTorch by: python3 -m echo.import_torch %s\n" % (
        " ".join(sys.argv[1:] if argv is None else argv))
    try:
        with open(args.output, "w") as f:
            f.write(header + imported.text)
        imported.write_weights(args.weights)
    except OSError as e:
        return fail(str(e))
    print("echo.import_torch: %s: %d inputs, labels, %d parameters -> %s, "
          "weights in %s (%.2f s)" % (
              factory_name, len(inputs), len(imported.weights), args.output,
              args.weights, time.perf_counter() - start), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
