#!/usr/bin/python3
"""Writes the buffer plan of a memory report as a PyTorch memory snapshot.

    python3 -m echo.memory_snapshot report.json -o snap.pickle

The report is one from `echo-opt --echo-pipeline="report=..."` or
`echo-run --report` of a planned step (it carries `planned_buffers`). The
pickle has the layout `torch.cuda.memory._snapshot()` writes, so that
PyTorch's memory_viz (pytorch.org/memory_viz, `torch.cuda._memory_viz`)
opens it:

- `segments`: one segment, the arena (`total_size` = the plan's
  `planned_bytes`), as it stands at the plan's peak (`planned_peak_position`):
  each buffer live there an `active_allocated` block at its offset, the bytes
  between them `inactive` blocks.
- `device_traces`: the whole step, one list for device 0: every planned
  buffer an `alloc` at its arena offset at its first use and a
  `free_requested`/`free_completed` pair after its last use (`time_us` is
  the position of the op in the bufferized step). A buffer that takes the
  bytes of one dying at the op that writes it (in-place reuse) follows that
  one's free.

Block and event sizes are the plan's (each buffer rounded up to the plan's
alignment, the bytes it holds in the arena), as is the history's
`real_size` (torch 1.13's memory_viz attributes a block's bytes to its
history); a block's `requested_size` is the buffer's own bytes. Every
block and event has two frames, outermost first in PyTorch's order reversed:
the op that made the buffer (its source location and op name) and its
memory category (`echo:0:<category>`), so that memory_viz groups the bytes
by category and then by op. Only the arena is in the snapshot: the caller's
buffers (parameters, data, results) and the libraries' workspace are in the
report's `categories`.

Every value the snapshot is made of is checked first (echo.memory_report):
byte counts and positions are integers within the arena and the step, and
the buffers are aligned, inside the arena and never share a byte while both
are live, but for a buffer written in place over a dying one. A report that
is not such a plan is one `memory_snapshot: error: REPORT: ...` line and
exit 1, and nothing is written.
"""
import argparse
import pickle
import re
import sys

from echo.memory_report import MAX_BYTES, Object, ReportError, load

#: Where the arena starts in the snapshot's address space (any nonzero
#: base; memory_viz shows addresses as given).
ARENA_ADDRESS = 0x7F0000000000


class SnapshotError(ReportError):
    """A report that cannot be written as a snapshot."""


def _align(n, alignment):
    n = max(n, 1)
    return (n + alignment - 1) // alignment * alignment


def _frames(buffer):
    """PyTorch frames (innermost first): the op, then its category."""
    filename, line = buffer.get("loc", ""), 0
    parts = filename.rsplit(":", 2)
    if len(parts) == 3 and re.fullmatch("[0-9]+", parts[1]):
        filename, line = parts[0], int(parts[1])
    return [
        {"filename": filename or "<unknown>", "line": line,
         "name": buffer["op"]},
        {"filename": "echo", "line": 0, "name": buffer["category"]},
    ]


def _step(report, function):
    """The entry of the training step ``function`` (default: the first) of
    a loaded report."""
    for i, value in enumerate(report):
        step = Object.of_step(value, i)
        name = step.name("function", optional=True)
        if function is None or name == function:
            break
    else:
        raise SnapshotError(f"the report has no function '{function}'")
    if "planned_buffers" not in step:
        raise SnapshotError(
            f"{step.where} has no planned buffers: write the "
            "report from a planned step (echo-opt --echo-pipeline="
            "\"report=...\" or echo-run --report)")
    return step.value


def _plan(step):
    """The arena bytes, peak position and buffers (each with its aligned
    ``size``) of a step's entry, every value checked: counts and
    positions are integers within the arena and the step, the alignment a
    power of two, each buffer aligned, in the arena, ending no earlier than
    it starts, and no two buffers hold a byte while both are live, but for
    a buffer written in place over one dying at the op that writes it (at
    its offset), as echo-verify-buffer-plan checks the plan."""
    step = Object.of_step(step, 0)
    plan = step.object("plan")
    alignment = plan.count("alignment", optional=True)
    if alignment is None:
        alignment = 1
    elif alignment & (alignment - 1) or alignment == 0:
        raise SnapshotError(f"{plan.where}.alignment is {alignment}, not a "
                            "power of two")
    arena = step.count("planned_bytes")
    timeline = step.array("planned_timeline", optional=True)
    last = MAX_BYTES if timeline is None else len(timeline) - 1
    peak = step.count("planned_peak_position", limit=last)
    buffers = []
    for b in step.objects("planned_buffers"):
        nbytes, offset = b.count("bytes"), b.count("offset")
        first, end = b.count("first", limit=last), b.count("last", limit=last)
        b.name("op")
        b.name("category")
        b.name("loc", optional=True, empty=True)
        if first > end:
            raise SnapshotError(f"{b.where} lives from position {first} to "
                                f"{end}: it ends before it starts")
        if offset % alignment:
            raise SnapshotError(f"{b.where}.offset is {offset}, not a "
                                f"multiple of the plan's alignment "
                                f"{alignment}")
        size = _align(nbytes, alignment)
        if offset + size > arena:
            raise SnapshotError(f"{b.where} holds bytes [{offset}, "
                                f"{offset + size}), past the arena of "
                                f"{arena} (planned_bytes)")
        buffers.append(dict(b.value, size=size))
    # Sweep in order of first use against the buffers still live.
    live = []
    for i in sorted(range(len(buffers)), key=lambda i: (
            buffers[i]["first"], buffers[i]["offset"])):
        b = buffers[i]
        live = [j for j in live if buffers[j]["last"] >= b["first"]]
        for j in live:
            a = buffers[j]
            if (a["offset"] >= b["offset"] + b["size"] or
                    b["offset"] >= a["offset"] + a["size"]):
                continue
            if (a["offset"] == b["offset"] and a["last"] == b["first"] and
                    a["first"] < b["first"]):
                continue  # written in place over a dying buffer
            raise SnapshotError(
                f"{step.step}: planned_buffers[{i}] holds bytes "
                f"[{b['offset']}, {b['offset'] + b['size']}) and "
                f"planned_buffers[{j}] bytes [{a['offset']}, "
                f"{a['offset'] + a['size']}) while both are live (position "
                f"{b['first']})")
        live.append(i)
    return arena, peak, buffers


def snapshot(step):
    """The snapshot dict of one training step's report entry (a
    :class:`SnapshotError` or :class:`~echo.memory_report.ReportError`
    where a value of it is not what a plan holds)."""
    arena, peak, buffers = _plan(step)

    # The arena at the peak: of the buffers live there, one per offset (a
    # buffer written in place over a dying one, which starts later, holds
    # the bytes).
    live = {}
    for b in buffers:
        if b["first"] <= peak <= b["last"]:
            held = live.get(b["offset"])
            if held is None or b["first"] > held["first"]:
                live[b["offset"]] = b
    blocks, cursor = [], 0
    for offset in sorted(live):
        b = live[offset]
        if offset > cursor:
            blocks.append({"address": ARENA_ADDRESS + cursor,
                           "size": offset - cursor, "requested_size": 0,
                           "state": "inactive", "frames": []})
        frames = _frames(b)
        blocks.append({
            "address": ARENA_ADDRESS + offset, "size": b["size"],
            "requested_size": b["bytes"], "state": "active_allocated",
            "frames": frames,
            "history": [{"addr": ARENA_ADDRESS + offset,
                         "real_size": b["size"], "frames": frames}]})
        cursor = offset + b["size"]
    if cursor < arena:
        blocks.append({"address": ARENA_ADDRESS + cursor,
                       "size": arena - cursor, "requested_size": 0,
                       "state": "inactive", "frames": []})
    active = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
    segment = {
        "device": 0, "address": ARENA_ADDRESS, "total_size": arena,
        "allocated_size": active, "active_size": active, "requested_size":
        sum(b["requested_size"] for b in blocks), "stream": 0,
        "segment_type": "large", "blocks": blocks,
    }

    # The trace: allocations at their first use, frees after their last;
    # at one position, frees of buffers whose bytes are taken in place
    # first, then allocations, then the other frees.
    events = []
    for i, b in enumerate(buffers):
        events.append((b["first"], 1, i, "alloc"))
        events.append((b["last"], 2, i, "free"))
    events.sort()
    trace, at_address, freed = [], {}, set()

    def free(i):
        b = buffers[i]
        for action in ("free_requested", "free_completed"):
            trace.append({"action": action,
                          "addr": ARENA_ADDRESS + b["offset"],
                          "size": b["size"], "stream": 0,
                          "time_us": b["last"], "frames": _frames(b)})
        freed.add(i)
        at_address.pop(b["offset"], None)

    for position, _, i, kind in events:
        b = buffers[i]
        if kind == "free":
            if i not in freed:
                free(i)
            continue
        held = at_address.get(b["offset"])
        if held is not None:
            free(held)
        at_address[b["offset"]] = i
        trace.append({"action": "alloc", "addr": ARENA_ADDRESS + b["offset"],
                      "size": b["size"], "stream": 0, "time_us": position,
                      "frames": _frames(b)})
    return {"segments": [segment], "device_traces": [trace]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", help="memory-report JSON of a planned step")
    ap.add_argument("-o", "--output", required=True, help="pickle to write")
    ap.add_argument("--function", default=None,
                    help="the training step (default: the report's first)")
    args = ap.parse_args(argv)
    path = args.report
    try:
        snap = snapshot(_step(load(path), args.function))
        path = args.output
        data = pickle.dumps(snap)
        with open(args.output, "wb") as f:
            f.write(data)
    except OSError as e:
        return _error(path, e.strerror or str(e))
    except ReportError as e:
        return _error(path, e)
    except Exception as e:  # the boundary: nothing escapes as a traceback
        return _error(path, f"internal error: {type(e).__name__}: "
                      f"{' '.join(str(e).split())[:200]}")
    return 0


def _error(path, message):
    print(f"memory_snapshot: error: {path}: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
