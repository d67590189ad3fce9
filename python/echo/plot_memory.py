#!/usr/bin/python3
"""Draws the memory of several training steps by category in one PNG.

    python3 -m echo.plot_memory none.json echo.json mirror.json -o mem.png

Each argument is a report from `echo-opt --echo-memory-report`,
`echo-opt --echo-pipeline="report=..."` or `echo-run --report` (the first
training step of each is drawn, labelled with its strategy), one panel per
report on a shared scale: the step's bytes at each program point as a
stacked area per memory category (parameters, optimizer state, data,
stashed activations, recompute, temporaries, gradients; docs/Contract.md),
from the plan where the report comes from a planned step (the arena's live
slots plus the buffers outside it, at each op of the bufferized step), else
from the tensor-level estimate; the estimate's total is the dashed line
(drawn over the fraction of the step, as the two steps have different op
counts). Reports without categories are drawn as their totals. Needs
Debian's python3-matplotlib (run with /usr/bin/python3).
"""
import argparse
import sys

from echo import jsonfile

#: Stacking order (bottom first) and colours (matplotlib's tab10).
CATEGORIES = [("parameters", "tab:blue"), ("optimizer_state", "tab:purple"),
              ("data", "tab:gray"), ("activations", "tab:orange"),
              ("recompute", "tab:olive"), ("temporaries", "tab:cyan"),
              ("gradients", "tab:red")]
MIB = 2.0 ** 20


def _fraction(n):
    return [i / max(n - 1, 1) for i in range(n)]


def draw(ax, step):
    """One step's panel; returns its peak in MiB."""
    planned = step.get("planned_category_timeline")
    lines = planned or step.get("category_timeline")
    source = "plan" if planned else "estimate"
    peak = 0.0
    if lines:
        n = len(next(iter(lines.values())))
        xs = _fraction(n)
        ys = [[b / MIB for b in lines.get(name, [0] * n)]
              for name, _ in CATEGORIES]
        ax.stackplot(xs, *ys, colors=[c for _, c in CATEGORIES],
                     labels=[name.replace("_", " ")
                             for name, _ in CATEGORIES], linewidth=0)
        peak = max(sum(col) for col in zip(*ys))
    elif step.get("planned_timeline"):
        line = step["planned_timeline"]
        ax.plot(_fraction(len(line)), [b / MIB for b in line], label="plan")
        peak = max(line) / MIB
    estimate = step["timeline"]
    ax.plot(_fraction(len(estimate)), [b / MIB for b in estimate],
            color="black", linestyle="--", linewidth=1,
            label="estimate (total)")
    peak = max(peak, max(estimate, default=0) / MIB)
    measured = step.get("measured_peak_bytes")
    ax.set_title("%s: %s peak %.4g MiB%s" % (
        step["strategy"], source,
        (max(step["planned_timeline"]) if planned else
         step["peak_live_bytes"]) / MIB,
        "; measured %.4g MiB" % (measured / MIB) if measured else ""),
        fontsize=10)
    return peak


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", help="memory-report JSON files")
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    ap.add_argument("--title", default=None)
    args = ap.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_memory: needs matplotlib (apt-get install "
                 "python3-matplotlib; run with /usr/bin/python3)")
    steps = []
    for path in args.reports:
        try:
            report = jsonfile.load(path)
        except (OSError, ValueError) as e:
            sys.exit(f"plot_memory: {e}")
        if not report:
            sys.exit(f"plot_memory: {path} has no training step")
        steps.append(report[0])
    fig, axes = plt.subplots(1, len(steps), figsize=(5 * len(steps) + 2, 4),
                             sharey=True, squeeze=False)
    for ax, step in zip(axes[0], steps):
        draw(ax, step)
        ax.set_xlabel("position in the step (forward, then backward)")
    axes[0][0].set_ylabel("MiB")
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles[::-1], labels[::-1], loc="center right", fontsize=8)
    fig.suptitle(args.title or steps[0]["function"])
    fig.tight_layout(rect=(0, 0, 1 - 1.6 / (5 * len(steps) + 2), 1))
    fig.savefig(args.output, dpi=120)


if __name__ == "__main__":
    main()
