"""JSON files read with a bound on their nesting depth.

Python's json module recurses once per level of nesting and raises
RecursionError (a RuntimeError) near sys.getrecursionlimit(): a calibration
or a report nested 100,000 levels deep would escape the ValueError that
callers catch for malformed JSON. Here the text is scanned first (strings
skipped) and refused beyond MAX_DEPTH levels, the bound Echo's C++ tools
apply (echo/Support/Nesting.h); json's own limit, the interpreter's
recursion limit (some 990 levels by default), is a ValueError as well.
Standard library only.
"""
import json
import re

MAX_DEPTH = 1000

# A string (with its escapes) or a bracket: strings are skipped whole.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def check_depth(text, limit=MAX_DEPTH):
    """Raise ValueError when the JSON `text` nests deeper than `limit`."""
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                at = match.start()
                line = text.count("\n", 0, at) + 1
                column = at - (text.rfind("\n", 0, at) + 1) + 1
                raise ValueError(f"nests deeper than {limit} levels (line "
                                 f"{line}, column {column})")
        elif token in "]}" and depth:
            depth -= 1


def loads(text, limit=MAX_DEPTH):
    """json.loads, with nesting deeper than `limit` a ValueError."""
    check_depth(text, limit)
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nests deeper than Python's json module parses "
                         "(its recursion limit)") from None


def load(path, limit=MAX_DEPTH):
    """The JSON file at `path` (OSError when unreadable, ValueError when
    malformed or nested deeper than `limit`; the message names the file)."""
    with open(path) as f:
        text = f.read()
    try:
        return loads(text, limit)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
