"""CUDA against CPU over the bundled models (see cuda/against-cpu.test).

For each model and strategy, runs three steps on both targets from the same
seed and checks: every loss within 1e-4 relative; every result of the first
step (loss and gradients) within 1e-3 norm-wise relative error; the device
peak of `echo` at most that of `none`. Prints one line per run.
"""
import json
import os
import subprocess
import sys

import numpy as np

models_dir, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
failures = []


def run(model, strategy, target):
    tag = f"{os.path.basename(model)}.{strategy}.{target}"
    dump = os.path.join(tmp, tag)
    report = dump + ".json"
    subprocess.run(["echo-run", model, f"--target={target}",
                    f"--strategy={strategy}", "--steps=3", "--quiet",
                    f"--dump={dump}", f"--report={report}"], check=True)
    with open(report) as f:
        return json.load(f)[0], dump


for name in sorted(os.listdir(models_dir)):
    if not name.endswith(".mlir"):
        continue
    model = os.path.join(models_dir, name)
    peaks = {}
    for strategy in ["none", "echo"]:
        cpu, cpu_dump = run(model, strategy, "cpu")
        gpu, gpu_dump = run(model, strategy, "cuda")
        peaks[strategy] = gpu["device_peak_bytes"]
        for step, (a, b) in enumerate(zip(cpu["losses"], gpu["losses"])):
            if abs(a - b) > 1e-4 * max(abs(a), 1e-6):
                failures.append(f"{name} {strategy}: loss of step {step} "
                                f"{b} on cuda vs {a} on cpu")
        worst = 0.0
        for out in sorted(os.listdir(cpu_dump)):
            a = np.load(os.path.join(cpu_dump, out)).astype(np.float64)
            b = np.load(os.path.join(gpu_dump, out)).astype(np.float64)
            err = np.linalg.norm(a - b) / max(np.linalg.norm(a), 1e-12)
            worst = max(worst, err)
            if err > 1e-3:
                failures.append(f"{name} {strategy}: {out} differs by {err:.2e}")
        print(f"{name} {strategy}: worst relative error {worst:.2e}, "
              f"device peak {gpu['device_peak_bytes']} B, "
              f"step {gpu['step_time_ms']:.3f} ms")
    if peaks["echo"] > peaks["none"]:
        failures.append(f"{name}: echo device peak {peaks['echo']} > none "
                        f"{peaks['none']}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
