"""Reads an Echo memory snapshot back with PyTorch's own memory_viz.

    check_memory_snapshot.py report.json snap.pickle

torch 1.13's torch.cuda._memory_viz takes the list of segments (newer
releases take the snapshot dict and also draw `device_traces`): its
`stats` must find one segment of the plan's arena bytes, whose allocated
blocks are the arena less its free bytes at the planned peak; its `memory`
flame graph lines, grouped by the category frame, must add up to the same
bytes. The trace, replayed, must reach the plan's most live bytes
(`lower_bound_bytes`) and end empty.
"""
import json
import pickle
import sys

from torch.cuda import _memory_viz

report = json.load(open(sys.argv[1]))[0]
snap = pickle.load(open(sys.argv[2], "rb"))
planned = report["planned_bytes"]
free = report["categories"]["free"]["planned"]

stats = _memory_viz.stats(snap["segments"])
assert stats["segments"] == 1, stats
assert stats["total_size"].value == planned, (stats, planned)
active = stats["active_allocated"].value
assert active == planned - free, (active, planned, free)

by_category = {}
lines = _memory_viz.memory(snap["segments"], format_flamegraph=lambda s: s)
for line in lines.splitlines():
    stack, size = line.rsplit(" ", 1)
    frames = stack.split(";")
    if frames[1] != "active_allocated":
        continue
    category = frames[2].split(":")[-1]
    by_category[category] = by_category.get(category, 0) + int(size)
assert sum(by_category.values()) == active, (by_category, active)

live = peak = 0
for event in snap["device_traces"][0]:
    if event["action"] == "alloc":
        live += event["size"]
        peak = max(peak, live)
    elif event["action"] == "free_completed":
        live -= event["size"]
assert live == 0, live
assert peak == report["plan"]["lower_bound_bytes"], (peak, report["plan"])

print("segment", stats["total_size"].value, "= planned_bytes", planned)
print("active at the peak", active, "= planned_bytes - free", planned - free)
print("by category", " ".join(
    "%s=%d" % kv for kv in sorted(by_category.items())))
print("trace peak", peak, "= lower_bound_bytes")
