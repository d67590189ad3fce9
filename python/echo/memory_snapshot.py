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
"""
import argparse
import pickle
import sys

from echo import jsonfile

#: Where the arena starts in the snapshot's address space (any nonzero
#: base; memory_viz shows addresses as given).
ARENA_ADDRESS = 0x7F0000000000


class SnapshotError(Exception):
    """A report that cannot be written as a snapshot."""


def _align(n, alignment):
    n = max(n, 1)
    return (n + alignment - 1) // alignment * alignment


def _frames(buffer):
    """PyTorch frames (innermost first): the op, then its category."""
    filename, line = buffer.get("loc", ""), 0
    parts = filename.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        filename, line = parts[0], int(parts[1])
    return [
        {"filename": filename or "<unknown>", "line": line,
         "name": buffer["op"]},
        {"filename": "echo", "line": 0, "name": buffer["category"]},
    ]


def _step(report, function):
    if not isinstance(report, list) or not report:
        raise SnapshotError("the report has no training step")
    for step in report:
        if function is None or step.get("function") == function:
            break
    else:
        raise SnapshotError(f"the report has no function '{function}'")
    if "planned_buffers" not in step:
        raise SnapshotError(
            f"@{step.get('function')} has no planned buffers: write the "
            "report from a planned step (echo-opt --echo-pipeline="
            "\"report=...\" or echo-run --report)")
    return step


def snapshot(step):
    """The snapshot dict of one training step's report entry."""
    alignment = step["plan"].get("alignment", 1)
    arena = step["planned_bytes"]
    peak = step["planned_peak_position"]
    buffers = [dict(b, size=_align(b["bytes"], alignment))
               for b in step["planned_buffers"]]

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
    if cursor > arena:
        raise SnapshotError(f"buffers reach byte {cursor} of an arena of "
                            f"{arena}")
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
    try:
        with open(args.report) as f:
            report = jsonfile.loads(f.read())
        snap = snapshot(_step(report, args.function))
    except (OSError, ValueError, KeyError, TypeError, SnapshotError) as e:
        print(f"memory_snapshot: {args.report}: {e}", file=sys.stderr)
        return 1
    with open(args.output, "wb") as f:
        pickle.dump(snap, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
