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

Every byte count is checked as it is read (echo.memory_report): an integer
from 0 to 2^60, and a kind that a category has needs its total. A report
that is not one, or whose categories do not add up under `--check`, is one
`memory_categories: error: REPORT: ...` line and exit 1.
"""
import argparse
import sys

from echo import memory_report
from echo.memory_report import Object, ReportError

#: The categories in the order they are printed and stacked.
CATEGORIES = ["parameters", "optimizer_state", "data", "activations",
              "recompute", "temporaries", "gradients", "workspace", "free",
              "unattributed", "host_offload"]
KINDS = ["estimated", "planned", "measured"]
#: Per kind, the total its device categories add up to.
TOTALS = [("estimated", "peak_live_bytes"), ("planned", "step_bytes"),
          ("measured", "measured_peak_bytes")]


def load(path):
    """The first step of the report at ``path``: its ``strategy``, its
    ``categories`` (per category, its bytes of each kind it has) and the
    totals, every value checked (byte counts from 0 to 2^60; a kind that
    some category has needs its total)."""
    step = Object.of_step(memory_report.load(path)[0], 0)
    if "categories" not in step:
        raise ReportError("no 'categories' (a report of this version of "
                          "Echo has them)")
    cats = step.object("categories")
    categories = {}
    for name in cats.value:
        entry = cats.object(name)
        categories[name] = {k: entry.count(k) for k in KINDS if k in entry}
    out = {"strategy": step.name("strategy"), "categories": categories}
    for kind, total in TOTALS:
        out[total] = step.count(total, optional=True, null=True)
        if out[total] is None and any(kind in c for c in categories.values()):
            raise ReportError("%s has %s categories but no %s (%s)" % (
                step.where, kind, total,
                "null" if total in step else "missing"))
    return out


def totals(step):
    """Per kind, the sum of the device categories and what it must equal."""
    cats = step["categories"]
    out = {}
    for kind, total in TOTALS:
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
    path = args.reports[0]
    try:
        steps = []
        for path in args.reports:
            steps.append(load(path))
        if args.markdown:
            print_markdown(steps)
        for path, step in zip(args.reports, steps):
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
    except ReportError as e:
        return _error(path, e)
    except Exception as e:  # the boundary: nothing escapes as a traceback
        return _error(path, f"internal error: {type(e).__name__}: "
                      f"{' '.join(str(e).split())[:200]}")
    return 0


def _error(path, message):
    print(f"memory_categories: error: {path}: {message}", file=sys.stderr)
    return 1


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
