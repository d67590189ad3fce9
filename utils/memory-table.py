#!/usr/bin/python3
"""Prints the memory reports of several strategies as one table: the
tensor-level estimate (peak of live tensors), the stashed feature maps, the
planned arena and what the planned step needs allocated (`step_bytes`: the
arena plus parameters, data and results), and, for `echo-run --report`
reports, the bytes the step really allocated (`measured_peak_bytes`).
"vs none" compares measured bytes where there are some, else estimates.

    utils/memory-table.py none.json mirror.json sublinear.json echo.json
"""
import json
import sys

rows = [json.load(open(p))[0] for p in sys.argv[1:]]
base = next((r for r in rows if r["strategy"] == "none"), rows[0])
key = ("measured_peak_bytes" if all(r.get("measured_peak_bytes")
                                    for r in rows) else "peak_live_bytes")


def num(v):
    return "-" if v is None else str(v)


print("%-10s %12s %12s %12s %12s %12s %8s %10s %16s" % (
    "strategy", "estimate", "stashed", "arena", "step bytes", "measured",
    "vs none", "recomputed", "recompute FLOPs"))
for r in rows:
    step = r["forward_flops"] + r["backward_flops"]
    print("%-10s %12d %12d %12s %12s %12s %7.2fx %10d %9d (%4.1f%%)" % (
        r["strategy"], r["peak_live_bytes"], r["feature_map_bytes"],
        num(r.get("planned_bytes")), num(r.get("step_bytes")),
        num(r.get("measured_peak_bytes")), base[key] / r[key],
        r["recomputed_ops"], r["recompute_flops"],
        100.0 * r["recompute_flops"] / step))
if key == "measured_peak_bytes":
    print("(measured: every byte the step allocated, counted by echo-run's "
          "allocator: parameters, data, gradients, the arena, library "
          "workspace)")
