#!/usr/bin/python3
"""Which ReLU masks explain an f32 step's distance to f64.

Not a test; writes JSON.

A ReLU network's gradients are discontinuous where a pre-activation is
zero: an f32 forward pass whose rounding puts one on the other side of zero
than f64 does drops (or keeps) that element's gradient, and the whole step
below it moves, by far more than rounding. For one model of
bench/import_zoo.py's zoo (dropout off) and one batch (numerics.draw's
seed), this runs the f32 step (Echo's: ``echo-run --dump``, strategy none;
or PyTorch's, with or without oneDNN) and the f64 step with every
``nn.ReLU`` masked explicitly. Candidates: the ReLU inputs of the f64
forward pass within ``--tau`` of their call's mean |x|, closest first.
Greedily, the flip that brings the f32 step's distance to the f64 step
(``numerics.distances``) down most is kept while it cuts the distance by
30% or more. A batch whose distance falls to the model's usual f32 level
after a flip or two owes its distance to those flips, not to an op that
loses digits.

With ``--forward``, no search: every ``nn.ReLU`` input of the forward
pass in f32, Echo's and PyTorch's, against f64 (its relative error per
ReLU call, and how many of its elements have another sign than in f64);
then each f32 step against the f64 step taken on that f32 step's own ReLU
masks, which takes the flips out of the comparison. Echo's ReLU inputs
come from one step of the model returning them, concatenated and
zero-padded to a power of two n, plus a parameter S of zeros, under an mse
loss against zeros: S's gradient is 2/n times them, exactly. Exits 1 unless
Echo's errors are within 2x of PyTorch f32's, at every ReLU call and on
the same masks.

Usage: bench/mask_flips.py MODEL [--seeds 1,5] [--steps echo,torch]
       [--tau 1e-3] [--forward] [--build build] [--out JSON]
(default --out: bench/results/mask_flips_MODEL.json, with --forward
mask_flips_MODEL_forward.json)
"""
import argparse
import copy
import json
import os
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import import_zoo  # noqa: E402
import numerics  # noqa: E402
from echo.frontend import import_module, parse_input  # noqa: E402
from echo.frontend.check import torch_loss  # noqa: E402

# A flip is kept while it cuts the distance to at most this share.
KEEP = 0.7
# Candidates tried per round (the closest to zero).
CANDIDATES = 40


class MaskedReLU(nn.Module):
    """relu(x) as x * mask, recording each call's input; `flips` holds
    (call, flat index) pairs whose mask is inverted."""

    def __init__(self, name):
        super().__init__()
        self.name = name
        self.inputs = []
        self.flips = set()

    def forward(self, x):
        call = len(self.inputs)
        self.inputs.append(x.detach().clone())
        mask = (x > 0).to(x.dtype)
        mine = [i for c, i in self.flips if c == call]
        if mine:
            mask = mask.clone()
            flat = mask.view(-1)
            flat[mine] = 1 - flat[mine]
        return x * mask


def _mask_relus(module, prefix=""):
    found = []
    for name, child in module.named_children():
        if isinstance(child, nn.ReLU):
            masked = MaskedReLU(prefix + name)
            setattr(module, name, masked)
            found.append(masked)
        else:
            found += _mask_relus(child, prefix + name + ".")
    return found


class MaskedStep:
    """The f64 step of `module` with its ReLUs masked explicitly."""

    def __init__(self, module, data):
        self.module = copy.deepcopy(module).double()
        self.relus = _mask_relus(self.module)
        self.data = data

    def __call__(self, flips=()):
        for r in self.relus:
            r.inputs, r.flips = [], set()
        for relu, call, index in flips:
            relu.flips.add((call, index))
        self.module.zero_grad()
        t = [torch.from_numpy(d) for d in self.data]
        t = [x.double() if x.is_floating_point() else x for x in t]
        value = torch_loss(self.module(*t[:-1]), t[-1], "cross_entropy")
        value.backward()
        return [np.float64(value.item())] + [
            p.grad.detach().numpy().copy() if p.grad is not None
            else np.zeros(tuple(p.shape))
            for _, p in self.module.named_parameters()]

    def candidates(self, tau):
        """(|x| / mean |x|, relu, call, index, x) of the f64 ReLU inputs
        within `tau` of their call's mean |x|, closest first (after a step
        without flips)."""
        found = []
        for r in self.relus:
            for call, x in enumerate(r.inputs):
                flat = x.reshape(-1)
                scale = max(float(flat.abs().mean()), 1e-300)
                near = torch.nonzero(flat.abs() <= tau * scale).view(-1)
                found += [(abs(float(flat[i])) / scale, r, call, int(i),
                           float(flat[i])) for i in near.tolist()]
        return sorted(found, key=lambda c: c[0])


def explain(step, f32, tau):
    """The greedy flips and the distance after each."""
    reference = step()
    cands = step.candidates(tau)
    best = numerics.distances(f32, reference)
    result = {"distance": best, "candidates": len(cands), "flips": []}
    chosen = []
    while True:
        trial = None
        for c in cands[:CANDIDATES]:
            if c in chosen:
                continue
            d = numerics.distances(f32, step(
                [(r, call, i) for _, r, call, i, _ in chosen + [c]]))
            if trial is None or d < trial[0]:
                trial = (d, c)
        if trial is None or trial[0] > KEEP * best:
            break
        best = trial[0]
        chosen.append(trial[1])
        rel, r, call, i, x = trial[1]
        result["flips"].append({"relu": r.name, "call": call, "index": i,
                                "x": x, "of_mean_abs": rel,
                                "distance_after": best})
    return result


def echo_step(build, module, inputs, labels, data, work):
    imported = import_module(module, inputs, "cross_entropy", labels,
                             "model")
    model = os.path.join(work, "model.mlir")
    with open(model, "w") as f:
        f.write(imported.text)
    data_dir = os.path.join(work, "inputs")
    imported.write_weights(data_dir)
    for i, d in enumerate(data):
        np.save(os.path.join(data_dir, "arg%d.npy" % i), d)
    return numerics.echo_run(build, model, data_dir, "--dump",
                             os.path.join(work, "dump"),
                             1 + len(list(module.parameters())))


def torch_step(module, data, mkldnn=True):
    saved = torch.backends.mkldnn.enabled
    torch.backends.mkldnn.enabled = mkldnn
    try:
        return numerics.torch_step(module, data, "cross_entropy",
                                   torch.float32)
    finally:
        torch.backends.mkldnn.enabled = saved


class ReluInputs(nn.Module):
    """`module`'s forward pass returning every nn.ReLU call's input,
    flattened, concatenated and zero-padded to `size`, plus S (zeros)."""

    def __init__(self, module, size=None):
        super().__init__()
        self.module = module
        self.S = nn.Parameter(torch.zeros(size)) if size else None

    def inputs(self, x):
        """[(relu name, its input flattened)] in call order."""
        found = []
        hooks = [r.register_forward_pre_hook(
            lambda _, i, name=name: found.append((name, i[0].reshape(-1)
                                                  .clone())))
            for name, r in self.module.named_modules()
            if isinstance(r, nn.ReLU)]
        try:
            self.module(x)
        finally:
            for h in hooks:
                h.remove()
        return found

    def forward(self, x):
        flat = torch.cat([v for _, v in self.inputs(x)])
        pad = flat.new_zeros(self.S.shape[0] - flat.shape[0])
        return torch.cat([flat, pad]) + self.S


def masks_unlike(calls, values, reference):
    """(relu name, call, flat index) of the elements of `values` (the
    concatenated inputs of the ReLU `calls`) whose sign is not
    `reference`'s: the masks to flip in the f64 step to take the branch of
    the step that computed `values`."""
    flips, start, seen = [], 0, {}
    for name, n in calls:
        call = seen.get(name, 0)
        seen[name] = call + 1
        unlike = np.nonzero((values[start:start + n] > 0) !=
                            (reference[start:start + n] > 0))[0]
        flips += [(name, call, int(i)) for i in unlike]
        start += n
    return flips


def forward_errors(build, module, inputs, data, work):
    """Per ReLU call: its name, and Echo's and PyTorch's f32 relative error
    and count of signs unlike f64's; and the masks each took unlike f64's
    (masks_unlike)."""
    x = torch.from_numpy(data[0])
    with torch.no_grad():
        calls = ReluInputs(module).inputs(x)
    sizes = [v.numel() for _, v in calls]
    total = sum(sizes)
    size = 1 << (total - 1).bit_length()
    probe = ReluInputs(copy.deepcopy(module), size)
    imported = import_module(probe, inputs, "mse",
                             parse_input(str(size), "f32"), "model")
    model = os.path.join(work, "forward.mlir")
    with open(model, "w") as f:
        f.write(imported.text)
    data_dir = os.path.join(work, "forward-inputs")
    imported.write_weights(data_dir)
    np.save(os.path.join(data_dir, "arg0.npy"), data[0])
    np.save(os.path.join(data_dir, "arg1.npy"), np.zeros(size, np.float32))
    outs = numerics.echo_run(build, model, data_dir, "--dump",
                             os.path.join(work, "forward-dump"))
    grad = [o for o in outs if o.shape == (size,)][-1]
    echo = grad.astype(np.float64)[:total] * (size / 2)
    with torch.no_grad():
        f64 = torch.cat([v for _, v in ReluInputs(
            copy.deepcopy(module).double()).inputs(x.double())]).numpy()
        f32 = torch.cat([v for _, v in ReluInputs(
            copy.deepcopy(module)).inputs(x)]).double().numpy()
    named = [(name, n) for (name, _), n in zip(calls, sizes)]
    unlike = {"echo": masks_unlike(named, echo, f64),
              "torch": masks_unlike(named, f32, f64)}
    rows, start = [], 0
    for (name, _), n in zip(calls, sizes):
        ref = f64[start:start + n]
        row = {"relu": name, "values": n}
        for which, v in (("echo", echo), ("torch", f32)):
            v = v[start:start + n]
            row[which] = float(np.linalg.norm(v - ref) /
                               max(np.linalg.norm(ref), 1e-300))
            row[which + "_signs"] = int(np.sum((v > 0) != (ref > 0)))
        rows.append(row)
        start += n
    return rows, unlike


def forward_main(args, name, module, ins, lab, results):
    met = True
    with tempfile.TemporaryDirectory() as tmp:
        for seed in [int(s) for s in args.seeds.split(",")]:
            data = numerics.draw(module, ins, "cross_entropy", lab, 0.0,
                                 None, seed)
            rows, unlike = forward_errors(args.build, module, ins, data,
                                          tmp)
            step = MaskedStep(module, data)
            by_name = {r.name: r for r in step.relus}
            f32 = {"echo": echo_step(args.build, module, ins, lab, data,
                                     tmp),
                   "torch": torch_step(module, data)}
            plain = step()
            branch = {}
            for which in ("echo", "torch"):
                flips = [(by_name[n], c, i) for n, c, i in unlike[which]]
                branch[which] = {
                    "distance": numerics.distances(f32[which], plain),
                    "same_masks": numerics.distances(f32[which],
                                                     step(flips))}
            worst = max(rows, key=lambda r: r["echo"] / max(r["torch"],
                                                            1e-300))
            ratio = worst["echo"] / max(worst["torch"], 1e-300)
            grads = branch["echo"]["same_masks"] <= max(
                2 * branch["torch"]["same_masks"], 1e-6)
            met = met and ratio <= 2.0 and grads
            results["runs"].append({"seed": seed, "relus": rows,
                                    "steps": branch})
            print("%s seed %d forward: %d ReLU calls; f32 error, median "
                  "over them: echo %.1e torch %.1e; last: echo %.1e torch "
                  "%.1e; worst echo/torch %.2f (%s); signs unlike f64: "
                  "echo %d torch %d" % (
                      name, seed, len(rows),
                      np.median([r["echo"] for r in rows]),
                      np.median([r["torch"] for r in rows]),
                      rows[-1]["echo"], rows[-1]["torch"], ratio,
                      worst["relu"], sum(r["echo_signs"] for r in rows),
                      sum(r["torch_signs"] for r in rows)), flush=True)
            print("%s seed %d step: distance to f64 echo %.2e torch %.2e; "
                  "to f64 on the same ReLU masks echo %.2e torch %.2e" % (
                      name, seed, branch["echo"]["distance"],
                      branch["torch"]["distance"],
                      branch["echo"]["same_masks"],
                      branch["torch"]["same_masks"]), flush=True)
    print("%s: Echo's f32 error %s 2x PyTorch f32's (every ReLU input; "
          "the step on the same masks)" % (
              name, "within" if met else "NOT within"))
    return met


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", help="a model of bench/import_zoo.py's zoo")
    ap.add_argument("--seeds", default="1",
                    help="the batches (numerics.draw's seeds), "
                         "comma-separated")
    ap.add_argument("--steps", default="echo,torch",
                    help="the f32 steps: echo, torch, torch-no-mkldnn")
    ap.add_argument("--tau", type=float, default=1e-3,
                    help="candidates: f64 ReLU inputs within this share of "
                         "their call's mean |x|")
    ap.add_argument("--forward", action="store_true",
                    help="no search: Echo's and PyTorch's f32 errors at "
                         "every ReLU input, and each f32 step against the "
                         "f64 step on its own masks (exit 1 unless Echo's "
                         "are within 2x of PyTorch's)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", help="the JSON's path (default: "
                    "bench/results/mask_flips_MODEL[_forward].json)")
    args = ap.parse_args()
    cases = {c[0]: c for c in import_zoo.ZOO}
    if args.model not in cases:
        ap.error("unknown model %s (known: %s)" % (
            args.model, ", ".join(cases)))
    if args.out is None:
        args.out = os.path.join(ROOT, "bench", "results", "mask_flips_%s%s"
                                ".json" % (args.model, "_forward"
                                           if args.forward else ""))
    steps = args.steps.split(",")
    unknown = set(steps) - {"echo", "torch", "torch-no-mkldnn"}
    if unknown:
        ap.error("unknown --steps %s" % ", ".join(sorted(unknown)))
    name, factory, inputs, labels, _ = cases[args.model]
    ins = [parse_input(i) for i in inputs]
    lab = parse_input(labels, "i32")
    torch.manual_seed(0)
    module = factory()
    import_zoo._dropout_off(module)
    torch.set_num_threads(os.cpu_count() or 1)
    results = {"machine": import_zoo._machine(),
               "date": time.strftime("%Y-%m-%d"), "model": name,
               "tau": args.tau, "runs": []}
    status = 0
    if args.forward:
        results["forward"] = True
        status = 0 if forward_main(args, name, module, ins, lab,
                                   results) else 1
    else:
        explain_main(args, name, module, ins, lab, steps, results)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    return status


def explain_main(args, name, module, ins, lab, steps, results):
    with tempfile.TemporaryDirectory() as tmp:
        for seed in [int(s) for s in args.seeds.split(",")]:
            data = numerics.draw(module, ins, "cross_entropy", lab, 0.0,
                                 None, seed)
            step = MaskedStep(module, data)
            for which in steps:
                if which == "echo":
                    f32 = echo_step(args.build, module, ins, lab, data, tmp)
                else:
                    f32 = torch_step(module, data, which == "torch")
                run = dict(explain(step, f32, args.tau), seed=seed,
                           step=which)
                results["runs"].append(run)
                print("%s seed %d %-15s distance %.2e%s" % (
                    name, seed, which, run["distance"], "".join(
                        "; flip %s[%d] (x=%.2e, %.0e of mean |x|): %.2e" % (
                            f["relu"], f["index"], f["x"],
                            f["of_mean_abs"], f["distance_after"])
                        for f in run["flips"])), flush=True)


if __name__ == "__main__":
    sys.exit(main())
