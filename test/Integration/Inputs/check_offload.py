"""Host offload over the bundled models (see offload.test): each model runs
two steps with echo-run under none, echo, echo --offload=heavy, echo
--offload=all and none --offload=all, with a link fast enough for the
bandwidth model to hide every copy at these sizes. Every offloading run
gives losses and step results bitwise identical to none's; its host pool's
measured peak equals the report's estimate; its measured (device) peak is
exactly the planned step bytes plus the libraries' workspace, apart from
the host bytes; and `all` offloads something on every model."""
import concurrent.futures
import json
import os
import subprocess
import sys

import step_results

models_dir, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
FAST = "--link-bandwidth=1000000"
CONFIGS = {
    "none": ["--strategy=none"],
    "echo": ["--strategy=echo"],
    "echo+heavy": ["--strategy=echo", "--offload=heavy", FAST],
    "echo+all": ["--strategy=echo", "--offload=all", FAST],
    "none+all": ["--strategy=none", "--offload=all", FAST],
}


def run(model, tag):
    dump = os.path.join(tmp, f"{os.path.basename(model)}.{tag}")
    report = dump + ".json"
    out = subprocess.run(
        ["echo-run", "--opt-level=0", model, "--steps=2", f"--dump={dump}",
         f"--report={report}"] + CONFIGS[tag], capture_output=True, text=True)
    if out.returncode != 0:
        return False, out.stdout, out.stderr, dump
    with open(report) as f:
        return True, out.stdout, json.load(f)[0], dump


models = step_results.bundled_models(models_dir)
jobs = [(m, tag) for m in models for tag in CONFIGS]
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    runs = dict(zip(jobs, pool.map(lambda j: run(*j), jobs)))

failures = []
for m in models:
    name = os.path.basename(m)
    none = runs[(m, "none")]
    line = []
    for tag in CONFIGS:
        ok, stdout, report, dump = runs[(m, tag)]
        if not ok:
            failures.append(f"{name} {tag}: failed: {report.strip()}")
            continue
        if not step_results.same_results(stdout, dump, none[1], none[3]):
            failures.append(f"{name} {tag}: results differ from none's")
        measured = report["measured_peak_bytes"]
        expected = report["step_bytes"] + report["library_workspace_bytes"]
        if measured != expected:
            failures.append(f"{name} {tag}: measured {measured} != planned "
                            f"+ workspace {expected}")
        host = report["measured_host_peak_bytes"]
        if "+" not in tag:
            if host or "offloaded_values" in report:
                failures.append(f"{name} {tag}: offloads without --offload")
            continue
        if host != report.get("host_peak_bytes", 0):
            failures.append(f"{name} {tag}: host pool measured {host}, "
                            f"estimated {report.get('host_peak_bytes')}")
        values = report.get("offloaded_values", 0)
        if tag.endswith("all") and not values:
            failures.append(f"{name} {tag}: nothing offloaded")
        if report.get("unhidden_transfer_seconds", 0) != 0:
            failures.append(f"{name} {tag}: transfers not hidden")
        line.append(f"{tag} {values} values, host {host}")
    print(f"{name}: " + "; ".join(line))

for f in failures:
    print("FAIL:", f)
print("all offload properties hold" if not failures
      else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
