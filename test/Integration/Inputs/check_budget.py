"""strategy=budget over the bundled models (see budget.test): a sweep of
byte budgets from none's measured bytes down to half of them, each run by
echo-run --budget=<bytes> (two steps, buffers planned). For every budget
that has a plan, the measured peak (every byte the step allocated, counted
by echo-run's allocator) is at most the budget, and exactly the planned
step bytes plus the libraries' workspace; smaller budgets never give
larger steps; once a budget has no plan no smaller one has; and losses and
step results are bitwise identical to none's (dropout included)."""
import concurrent.futures
import json
import os
import subprocess
import sys

import step_results

models_dir, tmp, points = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(tmp, exist_ok=True)


def run(model, args, tag):
    """Runs two steps; returns (ok, stdout, report, dump, stderr)."""
    dump = os.path.join(tmp, f"{os.path.basename(model)}.{tag}")
    report = dump + ".json"
    out = subprocess.run(
        ["echo-run", "--opt-level=0", model, "--steps=2", f"--dump={dump}",
         f"--report={report}"] + args, capture_output=True, text=True)
    if out.returncode != 0:
        return False, out.stdout, None, dump, out.stderr
    with open(report) as f:
        return True, out.stdout, json.load(f)[0], dump, out.stderr


def same_results(a, b):
    return step_results.same_results(a[1], a[3], b[1], b[3])


models = step_results.bundled_models(models_dir)
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    nones = dict(zip(models, pool.map(
        lambda m: run(m, ["--strategy=none"], "none"), models)))
    jobs = []
    for m in models:
        none_bytes = nones[m][2]["measured_peak_bytes"]
        for i in range(points):
            budget = none_bytes - none_bytes * i // (2 * (points - 1))
            jobs.append((m, budget))
    runs = dict(zip(jobs, pool.map(
        lambda j: run(j[0], [f"--budget={j[1]}"], f"budget{j[1]}"), jobs)))

failures = []
for m in models:
    name = os.path.basename(m)
    none = nones[m]
    sweep = sorted((b, r) for (mm, b), r in runs.items() if mm == m)
    sweep.reverse()  # largest budget first
    previous, infeasible_at, fitted = None, None, 0
    for budget, r in sweep:
        ok, _, report, _, err = r
        if not ok:
            if "fits the budget of %d bytes" % budget not in err:
                failures.append(f"{name} {budget}: failed: {err.strip()}")
            infeasible_at = infeasible_at or budget
            continue
        fitted += 1
        if infeasible_at:
            failures.append(f"{name}: {budget} has a plan, the larger "
                            f"{infeasible_at} had none")
        measured = report["measured_peak_bytes"]
        planned = report["step_bytes"]
        workspace = report["library_workspace_bytes"]
        assert report["strategy"] == "budget", report["strategy"]
        # echo-run measures the libraries' workspace (oneDNN's scratchpad)
        # and reserves it: the budget bounds every byte the step allocates.
        if measured > budget:
            failures.append(f"{name}: budget {budget}, measured {measured}")
        if measured != planned + workspace:
            failures.append(f"{name}: budget {budget}: measured {measured} "
                            f"!= planned {planned} + workspace {workspace}")
        if previous is not None and measured > previous:
            failures.append(f"{name}: budget {budget} measured {measured} > "
                            f"{previous} at a larger budget")
        previous = measured
        if not same_results(none, r):
            failures.append(f"{name} {budget}: results differ from none")
    print(f"{name}: none {none[2]['measured_peak_bytes']}, {fitted} of "
          f"{len(sweep)} budgets fit, smallest fitted {previous}")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("all budget properties hold")
