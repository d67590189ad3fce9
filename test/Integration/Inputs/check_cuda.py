"""CUDA against CPU over the bundled models (see cuda/against-cpu.test).

For each model and variant (none, echo, and echo in bf16), runs three steps
on both targets from the same seed and checks: every loss within 1e-4
relative (bf16: 1e-2, since a GEMM's products summed in another order can
round a bf16 result to the next of its 256 values per octave); every result
of the first step (loss and gradients) within 1e-3 norm-wise relative error
(bf16: 3e-2); the device peak of `echo` at most that of `none`. Prints one
line per run.

Three ways to run it:
  check_cuda.py MODELS TMP
      echo-run on both targets (a machine with MLIR and a GPU).
  check_cuda.py --make-bundles MODELS DIR
      here, without a GPU: the CPU reference runs (echo-run) and one
      `echo-run --emit-aot --target=cuda` bundle per model and strategy.
  check_cuda.py --bundles DIR
      on a GPU machine without MLIR: runs the bundles against the references.
"""
import json
import os
import subprocess
import sys

# Variant name -> (echo-run flags, loss tolerance, result tolerance).
VARIANTS = {
    "none": (["--strategy=none"], 1e-4, 1e-3),
    "echo": (["--strategy=echo"], 1e-4, 1e-3),
    "echo-bf16": (["--strategy=echo", "--precision=bf16"], 1e-2, 3e-2),
}
RUN_FLAGS = ["--steps=3", "--quiet"]


def report(path):
    with open(path) as f:
        return json.load(f)[0]


def run_jit(model, variant, target, out):
    subprocess.run(["echo-run", model, f"--target={target}",
                    *VARIANTS[variant][0], *RUN_FLAGS, f"--dump={out}",
                    f"--report={out}.json"], check=True)
    return report(out + ".json"), out


def run_bundle(bundle, out):
    subprocess.run([os.path.join(bundle, "echo-step"), *RUN_FLAGS,
                    f"--dump={out}", f"--report={out}.json"], check=True)
    return report(out + ".json"), out


def compare(tag, variant, cpu, cpu_dump, gpu, gpu_dump, failures):
    import numpy as np
    _, loss_tol, result_tol = VARIANTS[variant]
    for step, (a, b) in enumerate(zip(cpu["losses"], gpu["losses"])):
        if abs(a - b) > loss_tol * max(abs(a), 1e-6):
            failures.append(f"{tag}: loss of step {step} {b} on cuda vs {a} "
                            "on cpu")
    worst = 0.0
    outs = sorted(os.listdir(cpu_dump))
    # A result that is zero in exact arithmetic (a key bias's gradient under
    # softmax: q·b is the same for every key) holds rounding noise on both
    # sides; it is compared against the scale of the step's results.
    scale = max(np.linalg.norm(np.load(os.path.join(cpu_dump, out)))
                for out in outs)
    for out in outs:
        a = np.load(os.path.join(cpu_dump, out)).astype(np.float64)
        b = np.load(os.path.join(gpu_dump, out)).astype(np.float64)
        err = np.linalg.norm(a - b) / max(np.linalg.norm(a), 1e-5 * scale,
                                          1e-12)
        worst = max(worst, err)
        if err > result_tol:
            failures.append(f"{tag}: {out} differs by {err:.2e}")
    print(f"{tag}: worst relative error {worst:.2e}, device peak "
          f"{gpu['device_peak_bytes']} B, step {gpu['step_time_ms']:.3f} ms",
          flush=True)


def models(models_dir):
    return [(name[:-5], os.path.join(models_dir, name))
            for name in sorted(os.listdir(models_dir)) if name.endswith(".mlir")]


def make_bundles(models_dir, out):
    for name, model in models(models_dir):
        for s in VARIANTS:
            tag = os.path.join(out, f"{name}.{s}")
            run_jit(model, s, "cpu", tag + ".cpu")
            subprocess.run(["echo-run", model, "--target=cuda",
                            *VARIANTS[s][0], f"--emit-aot={tag}"],
                           check=True)
            print("bundled", tag, flush=True)


def check(pairs):
    """pairs: (model name, strategy) -> (cpu report, dump, gpu report, dump)"""
    failures, peaks = [], {}
    for (name, s), runs in pairs:
        compare(f"{name} {s}", s, *runs, failures)
        peaks.setdefault(name, {})[s] = runs[2]["device_peak_bytes"]
    for name, p in peaks.items():
        if p.get("echo", 0) > p.get("none", 0):
            failures.append(f"{name}: echo device peak {p['echo']} > none "
                            f"{p['none']}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def main(argv):
    if argv[:1] == ["--make-bundles"]:
        make_bundles(argv[1], argv[2])
        return 0
    if argv[:1] == ["--bundles"]:
        root = argv[1]
        names = sorted({d.split(".")[0] for d in os.listdir(root)
                        if os.path.isfile(os.path.join(root, d, "echo-step"))})
        pairs, crashed = [], []
        for name in names:
            for s in VARIANTS:
                tag = os.path.join(root, f"{name}.{s}")
                # A variant --make-bundles did not bundle is a failure, not
                # a run left out of the check.
                if not os.path.isfile(os.path.join(tag, "echo-step")):
                    crashed.append(f"{name} {s}: no bundle at {tag}")
                    continue
                try:
                    gpu = run_bundle(tag, tag + ".cuda")
                except subprocess.CalledProcessError as e:
                    # Go on with the other models; fail at the end.
                    crashed.append(f"{name} {s}: echo-step exited with "
                                   f"{e.returncode}")
                    continue
                pairs.append(((name, s),
                              (report(tag + ".cpu.json"), tag + ".cpu", *gpu)))
        for c in crashed:
            print("FAIL:", c)
        return check(pairs) or (1 if crashed else 0)
    models_dir, tmp = argv
    os.makedirs(tmp, exist_ok=True)
    pairs = []
    for name, model in models(models_dir):
        for s in VARIANTS:
            tag = os.path.join(tmp, f"{name}.{s}")
            pairs.append(((name, s), (*run_jit(model, s, "cpu", tag + ".cpu"),
                                      *run_jit(model, s, "cuda",
                                               tag + ".cuda"))))
    return check(pairs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
