#!/usr/bin/python3
"""What recomputation saves on an adopted step against Echo's own import of
the same PyTorch module (not a test; writes JSON).

For each model (an MLP of LayerNorm and GELU layers; a tanh RNN unrolled
over time), echo.adopt_steps writes the differentiated step in TOSA and
builds the same computation as a PyTorch module. The module goes through
`python3 -m echo.import_torch --loss none` and `echo-run --strategy=S
--report`; the TOSA step through `echo-run --function=@train_step --loss=0
--strategy=S --report`. For S = none and echo the measured bytes
(`measured_peak_bytes`) give each path's saving ratio none/echo, and the
ratio of the two ratios (adopted / imported).

Writes bench/results/adopt_vs_import.json with the machine record of
bench/machine.py.

Usage: bench/adopt_vs_import.py [--build build] [--models mlp-norm,rnn]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from echo import adopt_steps  # noqa: E402
import machine  # noqa: E402

# name: (kind, size, generator keywords, the module's inputs)
MODELS = {
    "mlp-norm": ("mlp", 6, dict(batch=256, width=128, norm=True),
                 ["256x128"]),
    "mlp-relu": ("mlp", 6, dict(batch=256, width=128), ["256x128"]),
    "rnn": ("rnn", 16, dict(batch=128, inputs=32, hidden=128),
            ["128x32"] * 16),
}

FACTORY = """import sys
sys.path.insert(0, %r)
from echo import adopt_steps


def model():
    return adopt_steps.torch_module(%r, %d, **%r)
"""


def report(path):
    with open(path) as f:
        r = json.load(f)
    if isinstance(r, list):
        r = r[0]
    return {k: r.get(k) for k in ("measured_peak_bytes", "step_bytes",
                                  "feature_map_bytes", "peak_live_bytes")}


def echo_run(build, args):
    subprocess.run([os.path.join(build, "bin", "echo-run")] + args +
                   ["--quiet"], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="mlp-norm,rnn")
    ap.add_argument("-o", dest="output", default=os.path.join(
        ROOT, "bench", "results", "adopt_vs_import.json"))
    args = ap.parse_args()
    rows = []
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            kind, size, kw, inputs = MODELS[name]
            row = dict(model=name, kind=kind, size=size, **kw)
            # The PyTorch module through Echo's importer.
            with open(os.path.join(tmp, "mods_%s.py" % kind), "w") as f:
                f.write(FACTORY % (os.path.join(ROOT, "python"), kind, size,
                                   kw))
            imported = os.path.join(tmp, "%s-imported.mlir" % name)
            cmd = ["/usr/bin/python3", "-m", "echo.import_torch",
                   "mods_%s:model" % kind, "--loss", "none",
                   "--labels", "%dx4" % kw["batch"], "-o", imported,
                   "--weights", os.path.join(tmp, name + "-w")]
            for i in inputs:
                cmd += ["--input", i + ":f32"]
            subprocess.run(cmd, check=True, cwd=tmp, env=dict(
                env, PYTHONPATH=env["PYTHONPATH"] + os.pathsep + tmp))
            adopted = os.path.join(tmp, "%s-adopted.mlir" % name)
            text, ops = adopt_steps.build(kind, size, **kw)
            with open(adopted, "w") as f:
                f.write(text)
            row["adopted_ops"] = ops
            for strategy in ("none", "echo"):
                rep = os.path.join(tmp, "%s-imported-%s.json" % (name,
                                                                 strategy))
                echo_run(args.build, [imported, "--strategy=" + strategy,
                                      "--report=" + rep])
                row["imported_" + strategy] = report(rep)
                rep = os.path.join(tmp, "%s-adopted-%s.json" % (name,
                                                                strategy))
                echo_run(args.build, [adopted, "--function=@train_step",
                                      "--loss=0", "--strategy=" + strategy,
                                      "--report=" + rep])
                row["adopted_" + strategy] = report(rep)
            for path in ("imported", "adopted"):
                row[path + "_ratio"] = round(
                    row[path + "_none"]["measured_peak_bytes"] /
                    row[path + "_echo"]["measured_peak_bytes"], 4)
            row["ratio_of_ratios"] = round(row["adopted_ratio"] /
                                           row["imported_ratio"], 4)
            rows.append(row)
            print("%-9s imported none/echo %d/%d = %.3f, adopted %d/%d = "
                  "%.3f, adopted/imported %.3f" % (
                      name, row["imported_none"]["measured_peak_bytes"],
                      row["imported_echo"]["measured_peak_bytes"],
                      row["imported_ratio"],
                      row["adopted_none"]["measured_peak_bytes"],
                      row["adopted_echo"]["measured_peak_bytes"],
                      row["adopted_ratio"], row["ratio_of_ratios"]),
                  flush=True)
    record = dict(
        description="none/echo measured bytes of adopted TOSA steps against "
                    "Echo's import of the same PyTorch module",
        commands=["python3 -m echo.import_torch mods:model --input ... "
                  "--loss none --labels ... -o imported.mlir --weights W",
                  "echo-run imported.mlir --strategy=S --report=R.json",
                  "echo-run adopted.mlir --function=@train_step --loss=0 "
                  "--strategy=S --report=R.json"],
        date=time.strftime("%Y-%m-%d", time.gmtime()),
        machine=machine.describe(), rows=rows)
    with open(args.output, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print("wrote", args.output)


if __name__ == "__main__":
    main()
