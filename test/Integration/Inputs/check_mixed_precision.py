"""Mixed-precision properties over the bundled models (see
mixed-precision.test)."""
import concurrent.futures
import json
import os
import re
import subprocess
import sys

import step_results

models_dir, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
strategies = ["none", "mirror", "echo"]


def run(model, precision, strategy, *flags):
    """Runs two steps; returns (stdout, report, dump dir)."""
    tag = ".".join([os.path.basename(model), precision, strategy] +
                   [f.strip("-").replace("=", "_") for f in flags])
    dump = os.path.join(tmp, tag)
    report = dump + ".json"
    out = subprocess.run(
        ["echo-run", "--opt-level=0", model, f"--precision={precision}",
         f"--strategy={strategy}", "--steps=2", f"--dump={dump}",
         f"--report={report}"] + list(flags),
        check=True, capture_output=True, text=True)
    with open(report) as f:
        return out.stdout, json.load(f)[0], dump


def losses(stdout):
    return [float(x) for x in re.findall(r"loss (\S+)", stdout)]


models = step_results.bundled_models(models_dir)
jobs = [(m, p, s) for m in models for p in ("bf16", "f16")
        for s in strategies] + [(m, "f32", "echo") for m in models]
jobs += [(m, "bf16", "echo", "--library-calls=false") for m in models]
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = dict(zip(jobs, pool.map(lambda j: run(*j), jobs)))

failures = []
for model in models:
    name = os.path.basename(model)
    f32 = results[(model, "f32", "echo")]
    for p in ("bf16", "f16"):
        base = results[(model, p, "none")]
        for s in strategies:
            if not step_results.same_results(*base[0::2], *results[
                    (model, p, s)][0::2]):
                failures.append(f"{name} {p}: results differ between none "
                                f"and {s}")
        # The same first step in low precision: its loss near f32's.
        for a, b in zip(losses(base[0])[:1], losses(f32[0])[:1]):
            if abs(a - b) > 2e-2 * abs(b):
                failures.append(f"{name} {p}: loss {a} vs f32's {b}")
        report = results[(model, p, "echo")][1]
        assert report["precision"] == p, report["precision"]
        print(f"{name} {p}: losses {losses(base[0])} (f32 "
              f"{losses(f32[0])}), echo stashes "
              f"{report['feature_map_bytes']} bytes (f32 "
              f"{f32[1]['feature_map_bytes']})")
    # f16 scales the loss as GradScaler: 2^16 at first, halved for each
    # step skipped on a non-finite gradient (a step's loss is then the
    # same as the one before).
    f16 = results[(model, "f16", "echo")]
    scale, skipped = f16[1].get("loss_scale"), f16[1].get("skipped_steps")
    print(f"{name} f16: loss scale {scale}, {skipped} steps skipped")
    if scale is None or skipped is None or scale != 65536 / 2 ** skipped:
        failures.append(f"{name} f16: loss_scale {scale}, skipped {skipped}")
    # bf16 GEMMs in the runtime (oneDNN) and generated: the same step up to
    # the order of the sums.
    gen = results[(model, "bf16", "echo", "--library-calls=false")]
    lib = results[(model, "bf16", "echo")]
    for a, b in zip(losses(gen[0]), losses(lib[0])):
        if abs(a - b) > 1e-2 * abs(b):
            failures.append(f"{name} bf16: generated GEMMs' loss {a} vs "
                            f"the runtime's {b}")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("all properties hold")
