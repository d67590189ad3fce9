#!/usr/bin/python3
"""Prints the memory categories of memory reports and checks their sums.

    python3 -m echo.memory_categories none.json echo.json [--check] [--markdown]

Each report is one from `echo-opt --echo-memory-report`, `echo-opt
--echo-pipeline="report=..."` or `echo-run --report` (docs/Contract.md,
`categories`). One line per report and category: its estimated bytes (at the
estimate's peak), planned bytes (at the plan's peak) and measured bytes
(echo-run), `-` where the report has none. `--check` asserts that the
device categories add up to the totals they break down: the estimate's to
`peak_live_bytes`, the plan's (with `free`) to `step_bytes`, the measured
ones (with `workspace` and `unattributed`) to `measured_peak_bytes`.
`host_offload` is host memory and in none of these sums. `--markdown`
prints one table, a column per report and kind.
"""
import argparse
import sys

from echo import jsonfile

#: The categories in the order they are printed and stacked.
CATEGORIES = ["parameters", "optimizer_state", "data", "activations",
              "recompute", "temporaries", "gradients", "workspace", "free",
              "unattributed", "host_offload"]
KINDS = ["estimated", "planned", "measured"]


class ReportError(Exception):
    """A report without categories, or whose categories do not add up."""


def load(path):
    report = jsonfile.load(path)
    if not report or "categories" not in report[0]:
        raise ReportError(f"{path}: no 'categories' (a report of this "
                          "version of Echo has them)")
    return report[0]


def totals(step):
    """Per kind, the sum of the device categories and what it must equal."""
    cats = step["categories"]
    out = {}
    for kind, total in (("estimated", "peak_live_bytes"),
                        ("planned", "step_bytes"),
                        ("measured", "measured_peak_bytes")):
        parts = [c[kind] for name, c in cats.items()
                 if name != "host_offload" and kind in c]
        if parts and step.get(total) is not None:
            out[kind] = (sum(parts), total, step[total])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", help="memory-report JSON files")
    ap.add_argument("--check", action="store_true",
                    help="fail unless each kind's categories add up")
    ap.add_argument("--markdown", action="store_true",
                    help="one Markdown table (MiB)")
    args = ap.parse_args(argv)
    try:
        steps = [load(p) for p in args.reports]
        if args.markdown:
            print_markdown(steps)
        for step in steps:
            cats = step["categories"]
            for name in CATEGORIES if not args.markdown else []:
                if name in cats:
                    print("%s %s %s" % (step["strategy"], name, " ".join(
                        "%s=%s" % (k, cats[name].get(k, "-"))
                        for k in KINDS)))
            for kind, (got, total, want) in (
                    totals(step).items() if args.check else []):
                if got != want:
                    raise ReportError(
                        f"{step['strategy']}: {kind} categories add up "
                        f"to {got}, {total} is {want}")
                print(f"{step['strategy']} {kind}: categories sum to "
                      f"{total} {want}")
    except (OSError, ValueError, KeyError, ReportError) as e:
        print(f"memory_categories: {e}", file=sys.stderr)
        return 1
    return 0


def print_markdown(steps):
    cols = [(s, k) for s in steps for k in KINDS
            if any(k in c for c in s["categories"].values())]
    print("| category | " + " | ".join(
        f"{s['strategy']} {k}" for s, k in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    rows = CATEGORIES + ["total (device)"]
    for name in rows:
        cells = []
        for s, k in cols:
            if name == "total (device)":
                v = totals(s).get(k, (None,))[0]
            else:
                v = s["categories"].get(name, {}).get(k)
            cells.append("–" if v is None else "%.1f" % (v / 2**20))
        if all(c == "–" for c in cells):
            continue
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
