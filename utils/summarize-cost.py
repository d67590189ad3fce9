#!/usr/bin/env python3
"""Summarizes `echo-opt --echo-test-cost` remarks (read from stdin) per op.

Each remark names a source location and the op's FLOP estimate from
CostOpInterface; the op name is read from the model at that location.
"""

import collections
import re
import sys

REMARK = re.compile(r"^(.*?):(\d+):(\d+): remark: flops = (\d+)(, compute-heavy)?")
OP_NAME = re.compile(r'"?(echo\.\w+)"?')


def main() -> int:
    lines_of = {}
    per_op = collections.defaultdict(lambda: [0, 0, False])
    for line in sys.stdin:
        match = REMARK.match(line)
        if not match:
            continue
        path, row, col, flops, heavy = match.groups()
        if path not in lines_of:
            with open(path, encoding="utf-8") as f:
                lines_of[path] = f.read().splitlines()
        source = lines_of[path][int(row) - 1][int(col) - 1:]
        name = OP_NAME.search(source)
        entry = per_op[name.group(1) if name else "?"]
        entry[0] += 1
        entry[1] += int(flops)
        entry[2] = entry[2] or bool(heavy)
    if not per_op:
        print("no Echo ops found", file=sys.stderr)
        return 1
    total = sum(e[1] for e in per_op.values())
    print(f"{'op':<24}{'count':>7}{'MFLOP':>12}{'share':>8}  compute-heavy")
    for name, (count, flops, heavy) in sorted(
            per_op.items(), key=lambda item: -item[1][1]):
        print(f"{name:<24}{count:>7}{flops / 1e6:>12.3f}"
              f"{100.0 * flops / max(total, 1):>7.1f}%  {'yes' if heavy else ''}")
    print(f"{'forward total':<24}{sum(e[0] for e in per_op.values()):>7}"
          f"{total / 1e6:>12.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
