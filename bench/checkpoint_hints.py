#!/usr/bin/python3
"""What the checkpoint hints of an imported model give the budget strategy
(not a test; writes JSON).

A Hugging Face-style transformer (test/Python/Inputs/idiom_models.py's
HFModel, at --dims) is imported twice: after
``gradient_checkpointing_enable()`` (its ops carry
``echo.checkpoint_region``, one per layer) and without. For each, one
compile with ``strategy=budget budget=1.0 budget-table=...`` and the
pipeline's bufferization as plan-pipeline lists every candidate with its
planned step bytes and recompute FLOPs. The hinted model's table holds the
two ``checkpoint regions`` candidates besides the others; the result sets
them beside none, echo and the unhinted candidate of least recompute that
is no larger (the plan the budget strategy would pick without the hints at
a budget of the hinted candidate's bytes).

Usage: bench/checkpoint_hints.py [--build build] [--dims 2x64x64x4x256x4]
       [--out bench/results/checkpoint_hints.json]
(--dims: batch x seq x dim x heads x ff x layers)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "Python", "Inputs"))
import machine  # noqa: E402


def import_model(checkpointed, dims, path):
    import torch
    import idiom_models
    from echo.frontend import import_module
    batch, seq, dim, heads, ff, layers = dims
    torch.manual_seed(0)
    model = idiom_models.HFModel(vocab=256, dim=dim, heads=heads, ff=ff,
                                 layers=layers)
    if checkpointed:
        model.gradient_checkpointing_enable()
    imported = import_module(model, [((batch, seq), "i32")],
                             loss="cross_entropy",
                             labels=((batch, seq), "i32"),
                             name="hf")
    with open(path, "w") as f:
        f.write(imported.text)


def candidates(opt, model):
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "table.json")
        out = subprocess.run(
            [opt, model, "--echo-autodiff",
             "--echo-recompute=strategy=budget budget=1.0 "
             "plan-pipeline=echo-bufferization-pipeline budget-table=" +
             table, "-o", os.devnull], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        rows = json.load(open(table))[0]["candidates"]
    return [{"name": r["name"], "step_bytes": r["step_bytes"],
             "recompute_flops": r["recompute_flops"]} for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--dims", default="2x64x64x4x256x4")
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "checkpoint_hints.json"))
    args = ap.parse_args()
    dims = [int(d) for d in args.dims.split("x")]
    opt = os.path.join(args.build, "bin", "echo-opt")
    results = {"dims": dict(zip(["batch", "seq", "dim", "heads", "ff",
                                 "layers"], dims)),
               "machine": machine.for_bench(measure=False)}
    with tempfile.TemporaryDirectory() as tmp:
        for key, checkpointed in (("hinted", True), ("unhinted", False)):
            path = os.path.join(tmp, key + ".mlir")
            import_model(checkpointed, dims, path)
            results[key] = candidates(opt, path)
    by_name = {c["name"]: c for c in results["hinted"]}
    none = by_name["none"]["step_bytes"]
    summary = []
    for name in ("checkpoint regions", "checkpoint regions, light ops"):
        hint = by_name.get(name)
        if hint is None or hint["step_bytes"] is None:
            continue
        # The unhinted plan the budget strategy would choose at the hinted
        # candidate's bytes: the least recompute among those that fit.
        fitting = [c for c in results["unhinted"]
                   if c["step_bytes"] is not None and
                   c["step_bytes"] <= hint["step_bytes"]]
        best = min(fitting, key=lambda c: (c["recompute_flops"],
                                           c["step_bytes"])) \
            if fitting else None
        summary.append({
            "candidate": name, "step_bytes": hint["step_bytes"],
            "recompute_flops": hint["recompute_flops"],
            "share_of_none": hint["step_bytes"] / none,
            "unhinted_at_these_bytes": best})
    results["summary"] = summary
    results["none_bytes"] = none
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    for row in summary:
        best = row["unhinted_at_these_bytes"]
        print("%-30s %9d bytes (%.2f of none's %d), %d recompute FLOPs; "
              "unhinted at these bytes: %s" % (
                  row["candidate"], row["step_bytes"], row["share_of_none"],
                  none, row["recompute_flops"],
                  "%s, %d bytes, %d FLOPs" % (best["name"],
                                              best["step_bytes"],
                                              best["recompute_flops"])
                  if best else "none fits"))


if __name__ == "__main__":
    main()
