#!/usr/bin/python3
"""Prints the memory reports of several strategies as one table.

    utils/memory-table.py none.json mirror.json sublinear.json echo.json
"""
import json
import sys

rows = [json.load(open(p))[0] for p in sys.argv[1:]]
base = next((r for r in rows if r["strategy"] == "none"), rows[0])
print("%-10s %14s %14s %8s %10s %14s" % (
    "strategy", "peak bytes", "stashed bytes", "vs none", "recomputed",
    "recompute FLOPs"))
for r in rows:
    step = r["forward_flops"] + r["backward_flops"]
    print("%-10s %14d %14d %7.2fx %10d %9d (%4.1f%%)" % (
        r["strategy"], r["peak_live_bytes"], r["feature_map_bytes"],
        base["peak_live_bytes"] / r["peak_live_bytes"], r["recomputed_ops"],
        r["recompute_flops"], 100.0 * r["recompute_flops"] / step))
