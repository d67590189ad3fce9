"""The measured footprint of a CPU step is what its plan says it needs (see
measured-memory.test): for every bundled model and recompute strategy,
echo-run's measured_peak_bytes (every byte the step allocated, counted by
one allocator) equals step_bytes (arena + parameters, data and results +
allocations left out of the arena) plus the library workspace, and echo's
measured peak is never above none's. One bundle's echo-step measures the
same bytes as echo-run."""
import concurrent.futures
import json
import os
import subprocess
import sys

models_dir, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
strategies = ["none", "mirror", "sublinear", "echo"]


def run(model, strategy):
    report = os.path.join(tmp, f"{os.path.basename(model)}.{strategy}.json")
    subprocess.run(["echo-run", "--opt-level=0", model,
                    f"--strategy={strategy}", "--steps=2", "--quiet",
                    f"--report={report}"], check=True)
    with open(report) as f:
        return json.load(f)[0]


def expected(report):
    return report["step_bytes"] + report["library_workspace_bytes"]


def describe(report):
    plan = report["plan"]
    return (f"measured {report['measured_peak_bytes']} = arena "
            f"{plan['arena_bytes']} + arguments {plan['argument_bytes']} + "
            f"unplanned {plan['unplanned_bytes']} + workspace "
            f"{report['library_workspace_bytes']}")


models = sorted(os.path.join(models_dir, n) for n in os.listdir(models_dir)
                if n.endswith(".mlir"))
jobs = [(m, s) for m in models for s in strategies]
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = dict(zip(jobs, pool.map(lambda j: run(*j), jobs)))

failures = []
for model in models:
    name = os.path.basename(model)
    for s in strategies:
        r = results[(model, s)]
        print(f"{name} {s}: {describe(r)}")
        if r["measured_peak_bytes"] != expected(r):
            failures.append(f"{name} {s}: measured {r['measured_peak_bytes']}"
                            f" != planned {expected(r)}")
    none, echo = results[(model, "none")], results[(model, "echo")]
    if echo["measured_peak_bytes"] > none["measured_peak_bytes"]:
        failures.append(f"{name}: echo measured {echo['measured_peak_bytes']}"
                        f" > none's {none['measured_peak_bytes']}")

# The ahead-of-time driver counts the same bytes.
model = os.path.join(models_dir, "resnet.mlir")
bundle = os.path.join(tmp, "bundle")
subprocess.run(["echo-run", "--opt-level=0", model, "--strategy=echo",
                f"--emit-aot={bundle}"], check=True)
aot_report = os.path.join(tmp, "aot.json")
subprocess.run([os.path.join(bundle, "echo-step"), "--steps=2", "--quiet",
                f"--report={aot_report}"], check=True)
with open(aot_report) as f:
    aot = json.load(f)[0]
print(f"echo-step resnet.mlir echo: {describe(aot)}")
if aot["measured_peak_bytes"] != results[(model, "echo")]["measured_peak_bytes"]:
    failures.append(f"echo-step measured {aot['measured_peak_bytes']} != "
                    f"echo-run's {results[(model, 'echo')]['measured_peak_bytes']}")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("measured peaks match the plans")
