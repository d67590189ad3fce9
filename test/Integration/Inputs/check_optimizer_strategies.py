"""A step with an optimizer inside under every recompute strategy (see
optimizer-strategies.test): prints one line per model and a summary."""
import json
import os
import subprocess
import sys

import step_results

models_dir, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
CONFIGS = [["--strategy=none"], ["--strategy=mirror"],
           ["--strategy=sublinear"], ["--strategy=echo"],
           ["--strategy=echo", "--offload=all"]]
OPTIMIZER = ["--optimizer=adamw", "--lr=0.001", "--weight-decay=0.01"]


def run(model, flags):
    tag = os.path.basename(model) + "." + "".join(
        f.strip("-").replace("=", "-") for f in flags)
    dump = os.path.join(tmp, tag)
    report = dump + ".json"
    out = subprocess.run(
        ["echo-run", "--opt-level=0", model, "--steps=2", "--dump=" + dump,
         "--report=" + report] + OPTIMIZER + flags,
        check=True, capture_output=True, text=True)
    with open(report) as f:
        return out.stdout, json.load(f)[0], dump


ok = True
for name in ("mlp", "transformer", "resnet", "lstm"):
    model = os.path.join(models_dir, name + ".mlir")
    runs = [run(model, flags) for flags in CONFIGS]
    stdout0, report0, dump0 = runs[0]
    # The dump: the loss, the parameters, two moments per parameter.
    params = (len(os.listdir(dump0)) - 1) // 3
    same = all(step_results.same_results(stdout0, dump0, out, dump)
               for out, _, dump in runs[1:])
    measured = all(r["measured_peak_bytes"] ==
                   r["step_bytes"] + r["library_workspace_bytes"]
                   for _, r, _ in runs)
    state = len({r["optimizer_state_bytes"] for _, r, _ in runs}) == 1
    ok &= same and measured and state and params > 0
    print("%s: %d parameters; bitwise equal across strategies: %s; measured "
          "== step bytes + workspace: %s; optimizer_state_bytes %d" % (
              name, params, same, measured, report0["optimizer_state_bytes"]))
print("all properties hold" if ok else "a property FAILED")
