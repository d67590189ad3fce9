#!/usr/bin/python3
"""Draws the live-bytes timelines of several memory reports in one PNG.

    python3 -m echo.plot_memory none.json echo.json mirror.json -o mem.png

Each argument is a report from `echo-opt --echo-memory-report` or
`echo-run --report` (the first training step of each is drawn, labelled with
its strategy). Needs Debian's python3-matplotlib (run with /usr/bin/python3).
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
    for path in args.reports:
        with open(path) as f:
            report = json.load(f)
        if not report:
            sys.exit(f"plot_memory: {path} has no training step")
        step = report[0]
        mib = [b / 2**20 for b in step["timeline"]]
        ax.plot(range(len(mib)), mib,
                label="%s (peak %.1f MiB)" % (step["strategy"],
                                              step["peak_live_bytes"] / 2**20))
    ax.set_xlabel("op index in the training step")
    ax.set_ylabel("live MiB")
    ax.set_title(args.title or report[0]["function"])
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)


if __name__ == "__main__":
    main()
