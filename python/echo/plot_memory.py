#!/usr/bin/python3
"""Draws the live-bytes timelines of several memory reports in one PNG.

    python3 -m echo.plot_memory none.json echo.json mirror.json -o mem.png

Each argument is a report from `echo-opt --echo-memory-report` or
`echo-run --report` (the first training step of each is drawn, labelled with
its strategy): the tensor-level estimate (dashed) and, where the report
comes from a planned step, the plan's bytes per op (solid: the arena's live
slots plus parameters, data and results), over the fraction of the step. Needs Debian's python3-matplotlib (run with /usr/bin/python3).
"""
import argparse
import json
import sys


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
    fig, ax = plt.subplots(figsize=(10, 4))
    planned_any = False
    for path in args.reports:
        with open(path) as f:
            report = json.load(f)
        if not report:
            sys.exit(f"plot_memory: {path} has no training step")
        step = report[0]
        # The tensor-level step and the bufferized one have different op
        # counts: both are drawn over the fraction of the step.
        line = step["timeline"]
        xs = [i / max(len(line) - 1, 1) for i in range(len(line))]
        estimate, = ax.plot(
            xs, [b / 2**20 for b in line], linestyle="--",
            label="%s estimate (peak %.0f MiB)" % (
                step["strategy"], step["peak_live_bytes"] / 2**20))
        planned = step.get("planned_timeline")
        if planned:
            planned_any = True
            xs = [i / max(len(planned) - 1, 1) for i in range(len(planned))]
            measured = step.get("measured_peak_bytes")
            ax.plot(xs, [b / 2**20 for b in planned],
                    color=estimate.get_color(),
                    label="%s planned (peak %.0f MiB%s)" % (
                        step["strategy"], max(planned) / 2**20,
                        "; measured %.0f MiB" % (measured / 2**20)
                        if measured else ""))
    ax.set_xlabel("position in the training step (forward, then backward)")
    ax.set_ylabel("live MiB" + (" (planned: arena slots + buffers "
                                "outside it)" if planned_any else ""))
    ax.set_title(args.title or report[0]["function"])
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)


if __name__ == "__main__":
    main()
