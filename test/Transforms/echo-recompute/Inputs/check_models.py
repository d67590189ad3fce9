"""Recompute properties over the bundled models (see models.test)."""
import filecmp
import json
import os
import subprocess
import sys

models_dir, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
strategies = ["none", "mirror", "sublinear", "echo"]
failures = []
for name in sorted(os.listdir(models_dir)):
    if not name.endswith(".mlir"):
        continue
    model = os.path.join(models_dir, name)
    peaks, outputs = {}, {}
    for s in strategies:
        out = subprocess.run(
            ["echo-opt", model, "--echo-autodiff",
             f"--echo-recompute=strategy={s}", "--echo-memory-report",
             "-o", os.devnull], check=True, capture_output=True, text=True)
        report = json.loads(out.stdout)[0]
        assert report["strategy"] == s, report["strategy"]
        assert report["feature_map_bytes"] <= report["peak_live_bytes"]
        assert len(report["timeline"]) > 0
        peaks[s] = report["peak_live_bytes"]
        dump = os.path.join(tmp, f"{name}.{s}")
        run = subprocess.run(
            ["echo-run", "--opt-level=0", model, f"--strategy={s}", "--steps=2",
             f"--dump={dump}"], check=True, capture_output=True, text=True)
        outputs[s] = (run.stdout, dump)
    if peaks["echo"] > peaks["none"]:
        failures.append(f"{name}: echo peak {peaks['echo']} > none {peaks['none']}")
    base_stdout, base_dump = outputs["none"]
    files = sorted(os.listdir(base_dump))
    for s in strategies[1:]:
        stdout, dump = outputs[s]
        if stdout != base_stdout:
            failures.append(f"{name}: losses differ between none and {s}")
        _, mismatch, errors = filecmp.cmpfiles(base_dump, dump, files,
                                               shallow=False)
        if mismatch or errors:
            failures.append(f"{name}: {s} results differ: {mismatch + errors}")
    print(name, {s: peaks[s] for s in strategies})
if failures:
    print("\n".join(failures))
    sys.exit(1)
