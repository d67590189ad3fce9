"""Prints the kernel_profile of an echo-run / echo-step --report: one line
per entry (kind, name, shape, calls), then whether its entries come slowest
first and every entry's calls are a multiple of the profiled steps (all
but the first of several); or that the report has none."""
import json
import sys

report = json.load(open(sys.argv[1]))[0]
profile = report.get("kernel_profile")
if profile is None:
    print("no kernel_profile")
    sys.exit(0)
for e in sorted(profile, key=lambda e: (e["kind"], e["name"], e["shape"])):
    print(f"{e['kind']} {e['name']} [{e['shape']}] calls {e['calls']}")
times = [e["ms"] for e in profile]
print("slowest first:", times == sorted(times, reverse=True))
steps = report["steps"] - 1 if report["steps"] > 1 else 1
print("calls per step:", all(e["calls"] % steps == 0 for e in profile))
