"""The importer's errors: typed, each with its provenance.

Every failure of an import is one :class:`ImporterError`, whose message is
one line that says where: the node (its name, kind and target) and the
source line it was traced from, or the module and the line of its code that
raised.  :func:`report` is the boundary of the command lines: whatever
Python raises below it becomes one ``PROG: error: ...`` line on stderr and
the exit status 1, never a traceback.
"""

import linecache
import os
import sys
import traceback

__all__ = ["ImporterError", "UnsupportedError", "UsageError",
           "ModuleError", "InternalError", "describe", "raise_site",
           "report", "source_line", "target_name", "at_node"]


class ImporterError(Exception):
    """A failure of the importer; the message names where it happened."""


class UnsupportedError(ImporterError, ValueError):
    """A module, function or argument Echo cannot express."""


class UsageError(ImporterError, ValueError):
    """A command-line argument that is not what it should be (an input
    spec, a factory)."""


class ModuleError(ImporterError):
    """The user's code failed: the factory or the module's forward
    raised, or the module does not run on the inputs given."""


class InternalError(ImporterError):
    """The importer itself raised where it should not have (a bug); the
    message still names the node it was mapping."""


# Files whose frames are not the user's: torch.fx, torch.nn's wrappers,
# functorch, this package and Python's own bootstrap.
_TOOL_FILES = (os.sep + os.path.join("torch", "fx") + os.sep,
               os.sep + os.path.join("torch", "nn", "modules", "module.py"),
               os.sep + os.path.join("torch", "nn", "utils",
                                     "stateless.py"),
               os.sep + "functorch" + os.sep,
               os.path.dirname(os.path.abspath(__file__)) + os.sep,
               "<frozen ", "<string>")


def one_line(text):
    """``text`` with its whitespace (newlines included) collapsed."""
    return " ".join(str(text).split())


def describe(exc):
    """``TypeName: message`` of an exception, on one line: the innermost
    exception of a chain says what went wrong (fx wraps it in messages that
    repeat the whole stack)."""
    cause = exc
    while cause.__cause__ is not None or cause.__context__ is not None:
        cause = cause.__cause__ or cause.__context__
    message = one_line(cause)
    return "%s: %s" % (type(cause).__name__, message) if message else \
        type(cause).__name__


def _frame_text(filename, lineno, code):
    return "%s:%s%s" % (filename, lineno, ": " + code.strip() if code else "")


def _torch_files():
    torch = sys.modules.get("torch")
    return (os.path.dirname(torch.__file__) + os.sep,) if torch else ()


def raise_site(exc, user=True):
    """``FILE:LINE: code`` of the innermost frame of ``exc``'s traceback,
    or None.  With ``user``, the innermost frame of the user's code: outside
    torch (or, where no frame is, outside torch.fx) and the importer."""
    cause = exc
    while cause.__cause__ is not None or cause.__context__ is not None:
        cause = cause.__cause__ or cause.__context__
    frames = list(reversed(traceback.extract_tb(cause.__traceback__)))
    if not user:
        return _frame_text(frames[0].filename, frames[0].lineno,
                           frames[0].line) if frames else None
    for skipped in (_TOOL_FILES + _torch_files(), _TOOL_FILES):
        for frame in frames:
            if not any(t in frame.filename for t in skipped):
                return _frame_text(frame.filename, frame.lineno, frame.line)
    return None


def source_line(node):
    """``FILE:LINE: code`` of the user's line that made ``node`` (the
    innermost frame outside torch, functorch and the importer, recorded
    while tracing), or ``an unknown source line``."""
    site = node.meta.get("echo_site") if node is not None else None
    if not site:
        return "an unknown source line"
    filename, lineno = site
    return _frame_text(filename, lineno, linecache.getline(filename, lineno))


def target_name(node):
    """What a node calls: ``aten.addmm.default``, ``getitem``."""
    target = node.target
    if isinstance(target, str):
        return target
    name = str(target)
    if name.startswith("<built-in function "):
        return name[len("<built-in function "):-1]
    return name


def at_node(node, reason):
    """The message of an error at ``node``: ``node 'N' (TARGET in MODULE
    (CLASS)) at FILE:LINE: code: reason``."""
    scope = node.meta.get("echo_scope")
    where = ""
    if scope is not None:
        name, cls = scope
        where = " in %s (%s)" % (name, cls) if name else " in %s" % cls
    return "node '%s' (%s%s) at %s: %s" % (
        node.name, target_name(node), where, source_line(node), reason)


def report(prog, body):
    """Runs ``body()`` and returns its exit status; an exception becomes
    one ``PROG: error: ...`` line on stderr and the status 1."""
    try:
        return body()
    except ImporterError as e:
        message = one_line(e)
    except Exception as e:  # the boundary: nothing escapes as a traceback
        site = raise_site(e, user=False)
        message = "internal error%s: %s" % (
            " at " + site if site else "", describe(e))
    print("%s: error: %s" % (prog, message), file=sys.stderr)
    return 1
