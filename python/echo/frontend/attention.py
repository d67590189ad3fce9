"""Fused attention in imported models.

An imported module's attention is what its forward wrote: q·kᵀ, a scale, a
mask or a bias, softmax, dropout, ·v, each an op holding an S×S value.
With ``attention="fused"`` (the default of :func:`echo.frontend.import_module`,
``python3 -m echo.import_torch`` and ``echo.torch.compile_step``) the
imported function goes through ``echo-opt --echo-fuse-attention``, which
makes every exact match one ``echo.attention`` (a causal mask, however the
module built it, becomes its ``causal`` flag: the importer writes it as
``echo.triangle``), so that no S×S value is held; what does not match
exactly stays as written (correct, materialized). ``"materialized"`` keeps
the ops as written.
"""

import re
import subprocess

from echo.frontend.errors import UsageError

__all__ = ["ATTENTION_MODES", "check_attention", "fuse_attention"]

ATTENTION_MODES = ("fused", "materialized")


def check_attention(attention):
    """``attention`` is one of :data:`ATTENTION_MODES` (else UsageError)."""
    if attention not in ATTENTION_MODES:
        raise UsageError("attention must be one of %s, not %r" % (
            ", ".join(ATTENTION_MODES), attention))


def fuse_attention(text, attention="fused"):
    """``text`` (a model function) with its attention fused when
    ``attention`` is "fused" and it has a softmax between two batched
    GEMMs (else as it is)."""
    check_attention(attention)
    if attention != "fused" or "echo.softmax" not in text or \
            "echo.batch_matmul" not in text:
        return text
    from echo.torch import CompileError, find_tool
    try:
        echo_opt = find_tool("echo-opt")
    except CompileError as e:
        raise UsageError("%s (echo-fuse-attention runs in it; "
                         "attention='materialized' imports without)" % e)
    try:
        run = subprocess.run([echo_opt, "-", "--echo-fuse-attention"],
                             input=text, capture_output=True, text=True)
    except OSError as e:
        raise UsageError("cannot run %s: %s" % (echo_opt, e))
    if run.returncode != 0:
        lines = run.stderr.strip().splitlines()
        raise UsageError("%s --echo-fuse-attention failed on the imported "
                         "model (exit status %d): %s" % (
                             echo_opt, run.returncode,
                             lines[0] if lines else "no message"))
    # Unchanged where nothing matched: the importer's text as written.
    if run.stdout.count("echo.attention ") <= text.count("echo.attention "):
        return text
    return _argument_names(text, run.stdout)


def _argument_names(original, printed):
    """``printed`` (echo-opt's print of ``original``, one function) with
    the function's arguments named as ``original`` names them (echo-opt
    writes %arg0, %arg1, ...)."""
    signature = original[original.index("func.func"):]
    signature = signature[:signature.index("{\n")]
    names = re.findall(r"(%[A-Za-z_][\w$.-]*)\s*:", signature)

    def rename(match):
        index = int(match.group(1))
        return names[index] if index < len(names) else match.group(0)
    return re.sub(r"%arg(\d+)\b", rename, printed)
