"""Recompute and buffer-plan properties over the bundled models (see
strategies.test)."""
import concurrent.futures
import json
import os
import subprocess
import sys

import step_results

models_dir, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
strategies = ["none", "mirror", "sublinear", "echo"]
unplanned = ["none", "echo"]


def run(model, strategy, plan):
    """Runs two steps; returns (stdout, report, dump dir)."""
    tag = f"{os.path.basename(model)}.{strategy}.{'plan' if plan else 'noplan'}"
    dump = os.path.join(tmp, tag)
    report = dump + ".json"
    out = subprocess.run(
        ["echo-run", "--opt-level=0", model, f"--strategy={strategy}",
         "--steps=2", f"--plan-buffers={'true' if plan else 'false'}",
         f"--dump={dump}", f"--report={report}"],
        check=True, capture_output=True, text=True)
    with open(report) as f:
        return out.stdout, json.load(f)[0], dump


def same_results(a, b):
    return step_results.same_results(a[0], a[2], b[0], b[2])


models = step_results.bundled_models(models_dir)
jobs = [(m, s, True) for m in models for s in strategies] + \
       [(m, s, False) for m in models for s in unplanned]
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = dict(zip(jobs, pool.map(lambda j: run(*j), jobs)))

failures = []
for model in models:
    name = os.path.basename(model)
    planned = {s: results[(model, s, True)] for s in strategies}
    for s in strategies:
        report = planned[s][1]
        plan = report["plan"]
        assert report["strategy"] == s, report["strategy"]
        assert report["feature_map_bytes"] <= report["peak_live_bytes"]
        print(f"{name} {s}: peak {report['peak_live_bytes']} arena "
              f"{report['planned_bytes']} (lower bound "
              f"{plan['lower_bound_bytes']}, {plan['buffers']} buffers, "
              f"{plan['in_place']} in place, {plan['heuristic']})")
        if report["planned_bytes"] > 1.05 * plan["lower_bound_bytes"]:
            failures.append(f"{name} {s}: arena {report['planned_bytes']} > "
                            f"1.05 x {plan['lower_bound_bytes']}")
        if not same_results(planned["none"], planned[s]):
            failures.append(f"{name}: results differ between none and {s}")
    for s in unplanned:
        plain = results[(model, s, False)]
        assert plain[1]["planned_bytes"] is None and "plan" not in plain[1]
        if not same_results(plain, planned[s]):
            failures.append(f"{name} {s}: results differ with planning")
    for key in ["peak_live_bytes", "planned_bytes"]:
        if planned["echo"][1][key] > planned["none"][1][key]:
            failures.append(f"{name}: echo's {key} {planned['echo'][1][key]} "
                            f"> none's {planned['none'][1][key]}")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("all properties hold")
