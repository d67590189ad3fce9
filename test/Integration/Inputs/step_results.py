"""Helpers the strategy and budget checkers share (check_strategies.py,
check_budget.py)."""
import filecmp
import os


def bundled_models(models_dir):
    """The .mlir models of `models_dir`, sorted."""
    return sorted(os.path.join(models_dir, n) for n in os.listdir(models_dir)
                  if n.endswith(".mlir"))


def same_results(stdout_a, dump_a, stdout_b, dump_b):
    """Two echo-run runs printed the same losses and dumped bitwise-equal
    results."""
    files = sorted(os.listdir(dump_a))
    _, mismatch, errors = filecmp.cmpfiles(dump_a, dump_b, files,
                                           shallow=False)
    return stdout_a == stdout_b and files and not mismatch and not errors
