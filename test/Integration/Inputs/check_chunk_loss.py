"""The chunked loss against the unchunked step (see chunk-loss.test): for
each model and number of chunks, one echo-run step with and without
chunk-loss=, the loss and every gradient equal within 1e-6 (relative, on
the norm; how many are bitwise equal is printed) or, where f32 rounding
alone moves a result further (a gradient of norm 1e-6 the LSTMs reach
through cancellations), as close to the step in f64 as the unchunked
step's is (within 2x: chunking sums in another order, it adds no error of
its own); the report's loss_chunks and logits_bytes_saved, and measured ==
planned bytes."""
import json
import os
import subprocess
import sys

import numpy as np

tmp = sys.argv[1]
models = sys.argv[2:]
os.makedirs(tmp, exist_ok=True)
TOLERANCE = 1e-6


def run(model, strategy, chunks, extra=()):
    tag = f"{os.path.basename(model)}.{strategy}.{chunks}"
    dump = os.path.join(tmp, tag)
    report = dump + ".json"
    subprocess.run(
        ["echo-run", "--opt-level=0", model, f"--strategy={strategy}",
         "--steps=1", f"--chunk-loss={chunks}", f"--dump={dump}",
         f"--report={report}", "--quiet"] + list(extra), check=True)
    with open(report) as f:
        return json.load(f)[0], dump


failures = []
for model in models:
    name = os.path.basename(model)
    reference = os.path.join(tmp, name + ".f64")
    base, base_dump = run(model, "none", "off")

    def f64_result(out):
        """Result `out` of the step in f64 (run once, when first needed)."""
        if not os.path.isdir(reference):
            run(model, "none", "off", [f"--reference-dump={reference}"])
        return np.load(os.path.join(reference, out))
    assert base["loss_chunks"] == 0 and base["logits_bytes_saved"] == 0
    for strategy, chunks in [("none", 2), ("none", 3), ("none", 4),
                             ("echo", 4), ("mirror", 2)]:
        report, dump = run(model, strategy, chunks)
        outputs = sorted(os.listdir(base_dump))
        worst, bitwise, near_f64 = 0.0, 0, 0
        for out in outputs:
            a = np.load(os.path.join(base_dump, out)).astype(np.float64)
            b = np.load(os.path.join(dump, out)).astype(np.float64)
            if np.array_equal(a, b):
                bitwise += 1
                continue
            err = np.linalg.norm(a - b) / max(np.linalg.norm(a), 1e-30)
            if err > TOLERANCE:
                f64 = f64_result(out)
                scale = max(np.linalg.norm(f64), 1e-30)
                if (np.linalg.norm(b - f64) / scale <=
                        2 * np.linalg.norm(a - f64) / scale + 1e-7):
                    near_f64 += 1
                    continue
            worst = max(worst, err)
        print(f"{name} {strategy} chunk-loss={chunks}: "
              f"{report['loss_chunks']} chunks, "
              f"{report['logits_bytes_saved']} logits bytes saved, "
              f"{bitwise} of {len(outputs)} results bitwise, worst relative "
              f"{worst:.1e}, {near_f64} as near f64 as unchunked; step "
              f"{report['step_bytes']} (none "
              f"{base['step_bytes']}), measured "
              f"{report['measured_peak_bytes']}")
        if worst > TOLERANCE:
            failures.append(f"{name} {strategy} {chunks}: relative {worst}")
        # ceil(R / K) rows a chunk: fewer chunks than asked where R is small
        # (ResNet's 2 rows, the LSTM's 4 in 3 chunks of 2).
        if not 2 <= report["loss_chunks"] <= chunks or \
                report["logits_bytes_saved"] <= 0:
            failures.append(f"{name} {strategy} {chunks}: not chunked")
        if report["measured_peak_bytes"] != (report["step_bytes"] +
                                              report["library_workspace_bytes"]):
            failures.append(f"{name} {strategy} {chunks}: measured "
                            f"{report['measured_peak_bytes']} != planned")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("all chunked steps match")
