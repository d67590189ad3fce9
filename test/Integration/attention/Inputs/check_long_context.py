"""Stashed, planned and measured bytes of a GPT step with echo.attention
against the same step with materialized attention (long-context.test).

usage: check_long_context.py TMP_DIR SEQ [SEQ...]

For each sequence length: builds the GPT of echo.models_gpt (causal
echo.attention with dropout), its materialized twin (echo-opt
--echo-decompose-attention), runs one step of each under strategies none
and echo with echo-run --report, and prints the bytes. Checks that the two
give the same loss, that the fused step's stash and measured peak are below
the materialized step's, and that the fused stash grows linearly in S (at
most 2.1x per doubling) where the materialized one grows faster.
"""
import json
import os
import subprocess
import sys

SIZES = ["--batch=1", "--d_model=64", "--heads=4", "--layers=2",
         "--vocab=512", "--dropout=0.1"]


def run(model, strategy, report):
    subprocess.run(["echo-run", model, "--strategy=" + strategy,
                    "--steps=1", "--quiet", "--report=" + report],
                   check=True)
    with open(report) as f:
        return json.load(f)[0]


def main(argv):
    tmp, seqs = argv[1], [int(s) for s in argv[2:]]
    failures = []
    stash = {}
    for seq in seqs:
        fused = os.path.join(tmp, "gpt%d.mlir" % seq)
        materialized = os.path.join(tmp, "gpt%d-materialized.mlir" % seq)
        subprocess.run([sys.executable, "-m", "echo.models_gpt",
                        "--seq=%d" % seq, "-o", fused] + SIZES, check=True)
        subprocess.run(["echo-opt", fused, "--echo-decompose-attention",
                        "-o", materialized], check=True)
        for strategy in ["none", "echo"]:
            f = run(fused, strategy, fused + "." + strategy + ".json")
            m = run(materialized, strategy,
                    materialized + "." + strategy + ".json")
            for name, r in [("fused", f), ("materialized", m)]:
                print("S=%d %s %s: stash %d planned %d measured %d" % (
                    seq, strategy, name, r["feature_map_bytes"],
                    r["planned_bytes"], r["measured_peak_bytes"]))
                stash[(seq, strategy, name)] = r["feature_map_bytes"]
            lf, lm = f["losses"][0], m["losses"][0]
            if abs(lf - lm) > 1e-5 * max(1.0, abs(lm)):
                failures.append("S=%d %s: loss %r != materialized %r" % (
                    seq, strategy, lf, lm))
            for key in ["feature_map_bytes", "planned_bytes",
                        "measured_peak_bytes"]:
                if not f[key] < m[key]:
                    failures.append("S=%d %s: fused %s %d >= materialized %d"
                                    % (seq, strategy, key, f[key], m[key]))
    for a, b in zip(seqs, seqs[1:]):
        growth = stash[(b, "none", "fused")] / stash[(a, "none", "fused")]
        print("stash growth S=%d -> %d: fused %.2fx, materialized %.2fx" % (
            a, b, growth,
            stash[(b, "none", "materialized")] /
            stash[(a, "none", "materialized")]))
        if growth > 2.1 * b / a / 2:
            failures.append("fused stash grows %.2fx from S=%d to %d" % (
                growth, a, b))
    for f in failures:
        print("FAILED: " + f)
    if not failures:
        print("fused attention: same losses, less stash, linear in S")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
