"""Malformed memory reports, made by mutating a real one.

    malformed_reports.py OUT_DIR REPORT.json...

writes OUT_DIR/<report>-<case>.json for every case of every report and
prints one line per case: the file, then what echo.memory_snapshot and
echo.memory_categories --check should do with it. :func:`cases` is what
check_memory_report_errors.py drives.

Each case says what each tool must do with it:

  error  refuse it: one `PROG: error: FILE: ...` line on stderr, exit 1
  same   what it writes for the unmutated report (the case changes nothing
         the tool reads)
  ok     write a valid output (the case changes something the tool reads,
         within what a report may hold)

The cases: the file (empty, truncated, not UTF-8, not JSON, nested past
what Python parses), the JSON (not a list of step objects), the step's keys
each tool reads (missing, of the wrong type, NaN, infinite, negative, past
2^60, fractional, a boolean) and the plan's buffers (the same, and buffers
that overlap while both live, reach past the arena, are not aligned, end
before they start or past the step).
"""
import copy
import json
import os
import sys

DELETE = object()

#: Values that are not a byte count or a position: (name, value).
NOT_COUNTS = [
    ("null", None), ("a string", "64"), ("fractional", 64.5),
    ("integral float", 64.0), ("true", True), ("NaN", float("nan")),
    ("Infinity", float("inf")), ("-Infinity", float("-inf")),
    ("negative", -64), ("2^100", 2 ** 100), ("a list", [64]),
    ("an object", {"bytes": 64}),
]
#: Values that are not a name.
NOT_NAMES = [("null", None), ("a number", 42), ("a list", ["x"]),
             ("empty", ""), ("a newline", "linear\nrelu"),
             ("a lone surrogate", "\ud800")]


def _set(report, path, value):
    """``report`` with the value at ``path`` (keys and indices) replaced
    (or deleted for DELETE)."""
    report = copy.deepcopy(report)
    target = report
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return report


def _dump(report):
    # NaN and Infinity as JavaScript writes them, which Python's json reads.
    return json.dumps(report).encode()


def _overlapping(buffers, alignment):
    """Indices (i, j) of two buffers at different offsets, live together
    and not an in-place pair."""
    for i, a in enumerate(buffers):
        for j, b in enumerate(buffers):
            if (a["offset"] != b["offset"] and a["bytes"] > alignment and
                    a["first"] < b["first"] < a["last"]):
                return i, j
    raise AssertionError("no two buffers live together")


def cases(data):
    """(name, bytes, snapshot, categories) of every case made from the
    report ``data`` (bytes), its expectations ``error``, ``same`` or
    ``ok``."""
    report = json.loads(data)
    step = report[0]
    alignment = step["plan"]["alignment"]
    arena = step["planned_bytes"]
    buffers = step["planned_buffers"]
    positions = len(step["planned_timeline"])
    out = []

    def add(name, text, snap, cats):
        out.append((name, text, snap, cats))

    def mutate(name, path, value, snap, cats):
        add(name, _dump(_set(report, path, value)), snap, cats)

    # The file.
    add("identity", _dump(report), "same", "same")
    add("empty", b"", "error", "error")
    add("whitespace", b" \n\t\n", "error", "error")
    add("truncated half", data[:len(data) // 2], "error", "error")
    add("truncated last byte", data.rstrip()[:-1], "error", "error")
    add("trailing garbage", data.rstrip() + b" ]", "error", "error")
    fn = step["function"].encode()
    add("not UTF-8", data.replace(fn, fn[:2] + b"\xff" + fn[2:], 1),
        "error", "error")
    add("overlong UTF-8", data.replace(fn, fn[:2] + b"\xc0\xaf" + fn[2:], 1),
        "error", "error")
    add("UTF-16", data.decode().encode("utf-16"), "error", "error")
    add("byte-order mark", b"\xef\xbb\xbf" + data, "error", "error")
    add("NUL bytes", b"\0" * 64, "error", "error")
    add("binary", bytes(range(256)) * 4, "error", "error")
    add("not JSON", b"planned_bytes = 64\n", "error", "error")
    add("nested 100000 deep", b"[" * 100000 + b"]" * 100000,
        "error", "error")
    deep = b"[" * 100000 + b"]" * 100000
    add("buffers nested 100000 deep",
        _dump(_set(report, (0, "planned_buffers"), "@@")).replace(
            b'"@@"', deep), "error", "error")
    add("an unread key nested 200 deep",
        _dump(_set(report, (0, "extra"), "@@")).replace(
            b'"@@"', b"[" * 200 + b"]" * 200), "same", "same")
    add("planned_bytes of 5000 digits",
        _dump(_set(report, (0, "planned_bytes"), "@@")).replace(
            b'"@@"', b"9" * 5000), "error", "error")
    add("planned_bytes 1e400",
        _dump(_set(report, (0, "planned_bytes"), "@@")).replace(
            b'"@@"', b"1e400"), "error", "same")

    # The JSON's shape.
    for name, value in [("a number", 42), ("a string", "report"),
                        ("null", None), ("true", True), ("an object", {}),
                        ("an empty list", []), ("a list of a number", [42]),
                        ("a list of null", [None]), ("a list of a list", [[]]),
                        ("a list of a string", ["step"]),
                        ("a list of an empty object", [{}]),
                        ("the step unwrapped", step),
                        ("a number after the step", [step, 42]),
                        ("a number before the step", [42, step])]:
        add("the JSON " + name, _dump(value), "error", "error")
    add("the step twice", _dump([step, step]), "same", "same")

    # The step's keys the snapshot reads.
    for key in ("planned_bytes", "planned_peak_position"):
        mutate(key + " missing", (0, key), DELETE, "error", "same")
        for name, value in NOT_COUNTS:
            mutate("%s %s" % (key, name), (0, key), value, "error", "same")
    mutate("planned_bytes 2^60 + 64", (0, "planned_bytes"), 2 ** 60 + 64,
           "error", "same")
    mutate("planned_bytes 2^60", (0, "planned_bytes"), 2 ** 60, "ok", "same")
    mutate("planned_bytes one alignment more", (0, "planned_bytes"),
           arena + alignment, "ok", "same")
    mutate("planned_bytes one alignment less", (0, "planned_bytes"),
           arena - alignment, "error", "same")
    mutate("planned_peak_position past the step",
           (0, "planned_peak_position"), positions, "error", "same")
    mutate("planned_timeline missing", (0, "planned_timeline"), DELETE,
           "same", "same")
    mutate("planned_timeline an object", (0, "planned_timeline"), {},
           "error", "same")
    for name, value in [("missing", DELETE), ("null", None), ("a list", []),
                        ("a string", "plan")]:
        mutate("plan " + name, (0, "plan"), value, "error", "same")
    mutate("plan.alignment missing", (0, "plan", "alignment"), DELETE,
           "ok", "same")
    for name, value in NOT_COUNTS + [("0", 0), ("3", 3), ("2^62", 2 ** 62)]:
        mutate("plan.alignment " + name, (0, "plan", "alignment"), value,
               "error", "same")
    mutate("function missing", (0, "function"), DELETE, "same", "same")
    for name, value in NOT_NAMES[:3]:
        mutate("function " + name, (0, "function"), value, "error", "same")
    mutate("planned_buffers missing", (0, "planned_buffers"), DELETE,
           "error", "same")
    mutate("planned_buffers empty", (0, "planned_buffers"), [], "ok", "same")
    for name, value in [("null", None), ("an object", {}), ("a string", "x"),
                        ("a number", 42)]:
        mutate("planned_buffers " + name, (0, "planned_buffers"), value,
               "error", "same")

    # One buffer's fields.
    for name, value in [("null", None), ("a number", 42), ("a string", "b"),
                        ("a list", [])]:
        mutate("buffer " + name, (0, "planned_buffers", 1), value,
               "error", "same")
    for key in ("bytes", "offset", "first", "last"):
        mutate("buffer %s missing" % key, (0, "planned_buffers", 1, key),
               DELETE, "error", "same")
        for name, value in NOT_COUNTS:
            mutate("buffer %s %s" % (key, name),
                   (0, "planned_buffers", 1, key), value, "error", "same")
    for key in ("op", "category"):
        mutate("buffer %s missing" % key, (0, "planned_buffers", 1, key),
               DELETE, "error", "same")
        for name, value in NOT_NAMES:
            mutate("buffer %s %s" % (key, name),
                   (0, "planned_buffers", 1, key), value, "error", "same")
    mutate("buffer loc missing", (0, "planned_buffers", 1, "loc"), DELETE,
           "ok", "same")
    mutate("buffer loc empty", (0, "planned_buffers", 1, "loc"), "",
           "ok", "same")
    mutate("buffer loc with a superscript line",
           (0, "planned_buffers", 1, "loc"), "m.mlir:\u00b2:1", "ok", "same")
    for name, value in NOT_NAMES[:3]:
        mutate("buffer loc " + name, (0, "planned_buffers", 1, "loc"), value,
               "error", "same")
    mutate("buffer with an extra key", (0, "planned_buffers", 1, "extra"),
           [None], "same", "same")
    b = buffers[1]
    mutate("buffer ends before it starts", (0, "planned_buffers", 1),
           dict(b, first=b["last"], last=b["first"]), "error", "same")
    mutate("buffer lives past the step", (0, "planned_buffers", 1, "last"),
           positions, "error", "same")
    mutate("buffer at the arena's end", (0, "planned_buffers", 1, "offset"),
           arena, "error", "same")
    size = -(-b["bytes"] // alignment) * alignment
    mutate("buffer past the arena", (0, "planned_buffers", 1, "offset"),
           arena - size + alignment, "error", "same")
    mutate("buffer past 2^60", (0, "planned_buffers", 1, "offset"),
           2 ** 60 - alignment, "error", "same")
    mutate("buffer not aligned", (0, "planned_buffers", 1, "offset"),
           b["offset"] + 1, "error", "same")
    i, j = _overlapping(buffers, alignment)
    mutate("two live buffers at one offset", (0, "planned_buffers", j,
                                              "offset"),
           buffers[i]["offset"], "error", "same")
    mutate("two live buffers overlapping", (0, "planned_buffers", j,
                                            "offset"),
           buffers[i]["offset"] + alignment, "error", "same")
    mutate("a buffer twice", (0, "planned_buffers"),
           buffers + [buffers[1]], "error", "same")

    # The keys the categories read.
    for name, value in [("missing", DELETE), ("null", None),
                        ("a number", 42), ("a string", "x"), ("a list", [])]:
        mutate("categories " + name, (0, "categories"), value, "same",
               "error")
    for name, value in [("null", None), ("a number", 42), ("a list", [])]:
        mutate("categories.activations " + name,
               (0, "categories", "activations"), value, "same", "error")
    for name, value in NOT_COUNTS:
        mutate("categories.activations.planned " + name,
               (0, "categories", "activations", "planned"), value,
               "same", "error")
    mutate("categories.activations.planned missing",
           (0, "categories", "activations", "planned"), DELETE,
           "same", "error")
    mutate("categories.host_offload.estimated NaN",
           (0, "categories", "host_offload", "estimated"), float("nan"),
           "same", "error")
    mutate("categories with one more", (0, "categories", "more"),
           {"planned": 64}, "same", "error")
    mutate("categories with a key of a newline",
           (0, "categories", "free\nactivations"), {"planned": -1},
           "same", "error")
    for name, value in NOT_NAMES:
        mutate("strategy " + name, (0, "strategy"), value, "same", "error")
    mutate("strategy missing", (0, "strategy"), DELETE, "same", "error")
    totals = ["peak_live_bytes", "step_bytes"]
    if "measured_peak_bytes" in step:
        totals.append("measured_peak_bytes")
    for key in totals:
        mutate(key + " missing", (0, key), DELETE, "same", "error")
        for name, value in NOT_COUNTS:
            mutate("%s %s" % (key, name), (0, key), value, "same", "error")
        mutate(key + " one more", (0, key), step[key] + 1, "same", "error")
    return out


def main():
    out_dir, reports = sys.argv[1], sys.argv[2:]
    for path in reports:
        base = os.path.splitext(os.path.basename(path))[0]
        with open(path, "rb") as f:
            data = f.read()
        for i, (name, text, snap, cats) in enumerate(cases(data)):
            case = os.path.join(out_dir, "%s-%03d.json" % (base, i))
            with open(case, "wb") as f:
                f.write(text)
            print("%s: %s: snapshot %s, categories %s" % (case, name, snap,
                                                          cats))


if __name__ == "__main__":
    main()
