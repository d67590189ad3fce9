#!/usr/bin/python3
"""Prints the memory reports of several strategies as one table: the
tensor-level peak, the stashed feature maps, and the planned arena (from
`echo-pipeline report=`; '-' where the IR was not planned).

    utils/memory-table.py none.json mirror.json sublinear.json echo.json
"""
import json
import sys

rows = [json.load(open(p))[0] for p in sys.argv[1:]]
base = next((r for r in rows if r["strategy"] == "none"), rows[0])
print("%-10s %12s %12s %8s %12s %10s %16s" % (
    "strategy", "peak bytes", "stashed", "vs none", "arena bytes",
    "recomputed", "recompute FLOPs"))
for r in rows:
    step = r["forward_flops"] + r["backward_flops"]
    arena = r.get("planned_bytes")
    print("%-10s %12d %12d %7.2fx %12s %10d %9d (%4.1f%%)" % (
        r["strategy"], r["peak_live_bytes"], r["feature_map_bytes"],
        base["peak_live_bytes"] / r["peak_live_bytes"],
        "-" if arena is None else str(arena), r["recomputed_ops"],
        r["recompute_flops"], 100.0 * r["recompute_flops"] / step))
