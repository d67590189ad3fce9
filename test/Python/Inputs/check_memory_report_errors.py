"""echo.memory_snapshot and echo.memory_categories on malformed reports (see
memory-report-errors.test).

    check_memory_report_errors.py DIR REPORT.json...

Writes every case malformed_reports.py makes of each report under DIR and
runs both tools on it (their main(), as `python3 -m` does): `python3 -m
echo.memory_snapshot CASE -o CASE.pickle` and `python3 -m
echo.memory_categories --check --markdown CASE`. Prints one line per case
(what each tool did: `error: ...` with the message less its file, `same`
when it wrote what it writes for the unmutated report, `ok` when it wrote
another valid output) and a summary. A refusal must be exactly one line
`PROG: error: CASE: ...` and exit 1, leaving no snapshot; a snapshot
written must be valid: one segment tiled by its blocks, every number a
non-negative integer, and a trace whose allocations stay in the arena and
never overlap a live one.
"""
import contextlib
import io
import os
import pickle
import sys

from echo import memory_categories, memory_snapshot
from malformed_reports import cases


def run(main, argv):
    """(exit status, stdout, stderr, exception escaped or None)."""
    out, err = io.StringIO(), io.StringIO()
    exc = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
        except Exception as e:  # what would be a traceback
            rc, exc = None, e
    return rc, out.getvalue(), err.getvalue(), exc


def count(value):
    return type(value) is int and value >= 0


def invalid_snapshot(path):
    """Why the snapshot at ``path`` is not valid, or None."""
    with open(path, "rb") as f:
        snap = pickle.load(f)
    segments = snap["segments"]
    if len(segments) != 1:
        return "%d segments" % len(segments)
    seg = segments[0]
    base, total = seg["address"], seg["total_size"]
    if not (count(base) and count(total)):
        return "segment at %r of %r bytes" % (base, total)
    at, active = base, 0
    for block in seg["blocks"]:
        size = block["size"]
        if block["address"] != at or not count(size) or size == 0:
            return "block %r at %r, expected at %r" % (size,
                                                       block["address"], at)
        if block["state"] == "active_allocated":
            active += size
            if not (count(block["requested_size"]) and
                    block["requested_size"] <= size):
                return "requested_size %r" % block["requested_size"]
        at += size
    if at != base + total:
        return "blocks end at %d, the segment at %d" % (at, base + total)
    if seg["allocated_size"] != active:
        return "allocated_size %r, blocks %d" % (seg["allocated_size"], active)
    live = {}
    for event in snap["device_traces"][0]:
        addr, size = event["addr"], event["size"]
        if not (count(addr) and count(size) and count(event["time_us"])):
            return "event %r" % event
        if addr < base or addr + size > base + total:
            return "event outside the arena: %r" % event
        if event["action"] == "alloc":
            for a, s in live.items():
                if a < addr + size and addr < a + s:
                    return "alloc [%d, %d) over a live [%d, %d)" % (
                        addr, addr + size, a, a + s)
            live[addr] = size
        elif event["action"] == "free_completed":
            if live.pop(addr, None) != size:
                return "free of %d bytes at %d not allocated" % (size, addr)
    if live:
        return "%d allocations never freed" % len(live)
    return None


def outcome(prog, path, result, output=None, base=None):
    """What a tool did: ('error', message), ('same', ''), ('ok', ''), or
    what it should not have done."""
    rc, out, err, exc = result
    if exc is not None:
        return "traceback", "%s: %s" % (type(exc).__name__,
                                        str(exc).splitlines()[:1])
    if rc != 0:
        lines = err.splitlines()
        head = "%s: error: %s: " % (prog, path)
        if (rc != 1 or len(lines) != 1 or not lines[0].startswith(head) or
                len(lines[0]) == len(head)):
            return "not one error line", "exit %r: %r" % (rc, err[:300])
        if output is not None and os.path.exists(output):
            return "refused but wrote", lines[0]
        return "error", lines[0][len(head):]
    if err:
        return "stderr on success", repr(err[:300])
    if output is not None:
        why = invalid_snapshot(output)
        if why:
            return "invalid snapshot", why
        with open(output, "rb") as f:
            out = f.read()
    return ("same" if out == base else "ok"), ""


def snapshot(path):
    output = path + ".pickle"
    if os.path.exists(output):
        os.remove(output)
    return run(memory_snapshot.main, [path, "-o", output]), output


def categories(path):
    return run(memory_categories.main, ["--check", "--markdown", path])


def main():
    out_dir, reports = sys.argv[1], sys.argv[2:]
    total = 0
    tally = {}
    wrong = []
    for report in reports:
        name = os.path.splitext(os.path.basename(report))[0]
        with open(report, "rb") as f:
            data = f.read()
        result, output = snapshot(report)
        assert outcome("memory_snapshot", report, result, output)[0] == "ok"
        with open(output, "rb") as f:
            base_snap = f.read()
        result = categories(report)
        assert result[0] == 0 and not result[2], result
        base_cats = result[1]
        for i, (case, text, want_snap, want_cats) in enumerate(cases(data)):
            total += 1
            path = os.path.join(out_dir, "%s-%03d.json" % (name, i))
            with open(path, "wb") as f:
                f.write(text)
            result, output = snapshot(path)
            got = [("snapshot", want_snap, outcome(
                        "memory_snapshot", path, result, output, base_snap)),
                   ("categories", want_cats, outcome(
                        "memory_categories", path, categories(path),
                        None, base_cats))]
            words = []
            for tool, want, (kind, message) in got:
                tally[tool, kind] = tally.get((tool, kind), 0) + 1
                words.append("%s %s%s" % (tool, kind,
                                          ": " + message if message else ""))
                if not (kind == want or (want == "ok" and kind == "same")):
                    wrong.append("%s %s: %s %s, expected %s" % (
                        name, case, tool, kind, want))
            print("%s %s: %s" % (name, case, "; ".join(words)))
    print("%d malformed reports" % total)
    for tool in ("snapshot", "categories"):
        print("%s: %s" % (tool, ", ".join(
            "%s %d" % (kind, n) for (t, kind), n in sorted(tally.items())
            if t == tool)))
    for line in wrong:
        print("unexpected: " + line)
    print("not as expected: %d" % len(wrong))


if __name__ == "__main__":
    main()
