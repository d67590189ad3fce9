"""Prints the convolution algorithms of an echo-run --target=cuda report,
one per line (sorted), then the calls and whether the device peak is the
step's bytes plus the largest workspace."""
import json
import sys

r = json.load(open(sys.argv[1]))[0]
rows = r["conv_algorithms"]
for c in sorted(rows, key=lambda c: (c["direction"], c["convolution"])):
    print(f"{c['direction']} {c['convolution']}: algorithm {c['algorithm']}, "
          f"workspace {c['workspace_bytes']}, "
          f"{'fits' if c['fits'] else 'does not fit'}")
workspace = max(c["workspace_bytes"] for c in rows)
extra = r["device_peak_bytes"] - r["step_bytes"]
print(f"{sum(c['calls'] for c in rows)} calls; device peak = step bytes + "
      f"{extra}" + ("" if extra == workspace else f" (largest workspace "
                                                      f"{workspace})"))
