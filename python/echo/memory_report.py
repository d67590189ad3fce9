"""Reads memory reports for the Python tools, checking every value they use.

A report is the JSON that `echo-opt --echo-memory-report`, `echo-opt
--echo-pipeline="report=..."` and `echo-run --report` write
(docs/Contract.md): a list of one object per training step. :func:`load`
reads one (UTF-8 JSON, a list of objects); :class:`Object` hands on the
values of one of its objects, each checked where it is taken: a byte count
or a position is an integer from 0 to :data:`MAX_BYTES` (never a boolean,
a fraction, NaN or an infinity), a name a printable string. Whatever is
wrong raises :class:`ReportError`, whose message names the value by its
path in the report (``@mlp_train: planned_buffers[3].bytes``) and says what
it is instead; the tools print it as one ``PROG: error: FILE: ...`` line.
"""
import json
import math

from echo import jsonfile

#: The most bytes a count may be: Echo bounds all the tensors of a model
#: together at 2^60 bytes (docs/Contract.md, Verification), and a position
#: of the step is no larger.
MAX_BYTES = 1 << 60

_MISSING = object()


class ReportError(Exception):
    """A report that is not what the tools read."""


def describe(value):
    """A short description of a JSON value for a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, int):
        text = str(value)
        return text if len(text) <= 24 else "an integer of %d digits" % len(
            text)
    if isinstance(value, str):
        text = json.dumps(value)
        return text if len(text) <= 40 else text[:36] + '..."'
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def load(path):
    """The report at ``path``: a non-empty list of step objects."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReportError(e.strerror or str(e)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ReportError("not UTF-8 (byte 0x%02x at offset %d)" % (
            data[e.start], e.start)) from None
    if not text.strip():
        raise ReportError("empty, not a memory report")
    try:
        jsonfile.check_depth(text)
    except ValueError as e:
        raise ReportError("not a memory report: its JSON %s" % e) from None
    try:
        report = json.loads(text)
    except RecursionError:
        raise ReportError("not a memory report: its JSON nests deeper than "
                          "Python parses") from None
    except json.JSONDecodeError as e:
        raise ReportError("not JSON: %s" % e) from None
    except ValueError:  # an integer past Python's int_max_str_digits
        raise ReportError("not JSON Python reads: an integer of more "
                          "digits than it converts") from None
    if not isinstance(report, list) or not report:
        raise ReportError("not a memory report: the JSON is %s, not a list "
                          "of training steps" % (
                              describe(report) if report != [] else
                              "an empty list"))
    for i, step in enumerate(report):
        if not isinstance(step, dict):
            raise ReportError("not a memory report: step %d is %s, not an "
                              "object" % (i, describe(step)))
    return report


class Object(object):
    """One JSON object of a report, where it is, and its checked values.

    ``step`` names the training step (``@mlp_train``), ``path`` the object
    inside it (``planned_buffers[3]``; empty for the step itself).
    """

    def __init__(self, value, step, path=""):
        self.step, self.path = step, path
        if not isinstance(value, dict):
            raise ReportError("%s is %s, not an object" % (self.where,
                                                           describe(value)))
        self.value = value

    @classmethod
    def of_step(cls, value, index):
        """Step ``index`` of a report, named after its function where it
        has a name."""
        name = value.get("function") if isinstance(value, dict) else None
        return cls(value, "@" + name if _printable(name) else
                   "step %d" % index)

    @property
    def where(self):
        return "%s: %s" % (self.step, self.path) if self.path else self.step

    def _inner(self, key):
        """The path of ``key`` inside the step (a key that does not print
        as itself quoted, so that the message stays one line)."""
        key = key if _printable(key) else json.dumps(key)
        return "%s.%s" % (self.path, key) if self.path else key

    def _where(self, key):
        return "%s: %s" % (self.step, self._inner(key))

    def __contains__(self, key):
        return key in self.value

    def _get(self, key, optional):
        if key in self.value:
            return self.value[key]
        if not optional:
            raise ReportError("%s has no '%s'" % (self.where, key))
        return _MISSING

    def count(self, key, limit=MAX_BYTES, optional=False, null=False):
        """An integer from 0 to ``limit``; None where it is missing and
        ``optional``, or null and ``null``."""
        value = self._get(key, optional)
        if value is _MISSING or (value is None and null):
            return None
        if type(value) is not int or not 0 <= value <= limit:
            raise ReportError("%s is %s, not an integer from 0 to %s" % (
                self._where(key), describe(value), _power(limit)))
        return value

    def name(self, key, optional=False, empty=False):
        """A printable string (non-empty unless ``empty``); None where it
        is missing and ``optional``."""
        value = self._get(key, optional)
        if value is _MISSING:
            return None
        if not (_printable(value) or (empty and value == "")):
            raise ReportError("%s is %s, not a%s printable string" % (
                self._where(key), describe(value),
                "" if empty else " non-empty"))
        return value

    def object(self, key, optional=False):
        """The object at ``key``; None where it is missing and
        ``optional``."""
        value = self._get(key, optional)
        if value is _MISSING:
            return None
        return Object(value, self.step, self._inner(key))

    def array(self, key, optional=False):
        """The list at ``key``; None where it is missing and ``optional``."""
        value = self._get(key, optional)
        if value is _MISSING:
            return None
        if not isinstance(value, list):
            raise ReportError("%s is %s, not a list" % (self._where(key),
                                                        describe(value)))
        return value

    def objects(self, key):
        """The list of objects at ``key``, each an :class:`Object`."""
        return [Object(v, self.step, "%s[%d]" % (self._inner(key), i))
                for i, v in enumerate(self.array(key))]


def _printable(value):
    """A non-empty string that prints on one line as itself (no control
    characters, no lone surrogates)."""
    if not isinstance(value, str) or not value or not value.isprintable():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _power(n):
    if n & (n - 1) == 0 and n > 1:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)
