#!/usr/bin/python3
"""Measured memory of one training step, Echo and PyTorch side by side (not
a test; writes JSON).

For the paper-size NMT and Transformer (bench/peers/cpu_side_by_side.py's
configurations, same weights and data through .npy files; the Echo model is
the PyTorch peer imported by echo.import_torch):

* Echo: `echo-run --report` for each recompute strategy: measured_peak_bytes
  (every byte of the step, counted by Echo's allocator: parameters, data,
  gradients, the arena, library workspace), with the plan's step_bytes and
  the tensor-level estimate peak_live_bytes beside it;
* PyTorch 1.13 (CPU): eager, torch.utils.checkpoint per time step (NMT) or
  layer (Transformer), and functorch's min-cut rematerialization
  partitioner (aot_function + min_cut_rematerialization_partition). Each
  runs in its own process under an LD_PRELOAD allocation counter
  (bench/peers/alloc_counter.c: every malloc/posix_memalign, counted by
  malloc_usable_size). The step's peak is the counter's high-water mark over
  one forward and backward pass (the second step; the first warms up and,
  for min-cut, compiles), minus what was live before it, plus the bytes of
  the parameters and data: the same things Echo counts (the Python
  interpreter's own memory is left out; the allocations PyTorch's
  operators make for their scratch space are in).

Both sides produce gradients (no optimizer update is measured).

Usage: bench/peers/torch_memory.py [--build build] [--models nmt,transformer]
       [--small]
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, HERE)
import machine  # noqa: E402

STRATEGIES = ["none", "mirror", "sublinear", "echo"]


def _resnet18():
    import torch
    import torchvision
    torch.manual_seed(0)
    return torchvision.models.resnet18()


# Models imported as they are (no builder twin): name -> factory.
VISION = {"resnet18": _resnet18}
VISION_CONFIG = {"resnet18": dict(batch=32, image=224, classes=1000)}
VISION_SMALL = {"resnet18": dict(batch=4, image=64, classes=1000)}


def import_vision(name, config, path, inputs):
    """Imports VISION[name] at `config` into `path`, writes its weights and
    one batch of data into `inputs`; returns the import's seconds."""
    import numpy as np
    from echo.frontend import import_module
    module = VISION[name]()
    b, hw = config["batch"], config["image"]
    start = time.perf_counter()
    imported = import_module(module, [((b, 3, hw, hw), "f32")],
                             "cross_entropy", ((b,), "i32"), name)
    seconds = time.perf_counter() - start
    open(path, "w").write(imported.text)
    imported.write_weights(inputs)
    rng = np.random.default_rng(1)
    np.save(os.path.join(inputs, "arg0.npy"),
            rng.standard_normal((b, 3, hw, hw)).astype(np.float32))
    np.save(os.path.join(inputs, "arg1.npy"),
            rng.integers(0, config["classes"], b).astype(np.int32))
    return seconds
VARIANTS = ["eager", "checkpoint", "mincut"]


def child(name, variant, text_path, inputs):
    """Runs in the counted process: prints one JSON line."""
    import numpy as np
    import torch
    import torch_models
    lib = ctypes.CDLL(None)
    for fn in ("alloc_counter_live", "alloc_counter_peak"):
        getattr(lib, fn).restype = ctypes.c_size_t
    torch.set_num_threads(os.cpu_count())
    torch.manual_seed(0)
    kwargs = json.loads(os.environ["ECHO_PEER_CONFIG"])
    if name in VISION:
        # A torchvision model: its imported Echo model takes the image, the
        # labels, then named_parameters(); the .npy files are its weights.
        peer = VISION[name]()
        names = [n for n, _ in peer.named_parameters()]
        values = [np.load(os.path.join(inputs, f"arg{i}.npy"))
                  for i in range(2 + len(names))]
        with torch.no_grad():
            for (_, p), v in zip(peer.named_parameters(), values[2:]):
                p.copy_(torch.from_numpy(v))
        if variant == "checkpoint":
            print(json.dumps({"error": "no checkpointed variant of " + name}))
            return
        data = [torch.from_numpy(v) for v in values[:2]]
        params = [p for _, p in peer.named_parameters()]
        keys = names
    else:
        peer, arguments = torch_models.make_peer(name, kwargs)
        values = [np.load(os.path.join(inputs, f"arg{i}.npy"))
                  for i in range(len(arguments))]
        peer.load_arguments(values)
        peer.checkpointed = variant == "checkpoint"
        data = [torch.from_numpy(v) for v, a in zip(values, arguments)
                if not a[3]]
        params = [peer.params[a[0]] for a in arguments if a[3]]
        keys = ["params." + a[0] for a in arguments if a[3]]
    peer.train()
    run = lambda: torch_models.loss(peer(*data[:-1]), data[-1])  # noqa: E731
    if variant == "mincut":
        from functorch.compile import (aot_function, nop,
                                       min_cut_rematerialization_partition)
        from torch.nn.utils.stateless import functional_call

        def loss_fn(*tensors):
            state = dict(zip(keys, tensors[:len(keys)]))
            inputs = tuple(tensors[len(keys):])
            return torch_models.loss(
                functional_call(peer, state, inputs[:-1]), inputs[-1])
        compiled = aot_function(loss_fn, fw_compiler=nop, bw_compiler=nop,
                                partition_fn=min_cut_rematerialization_partition)
        run = lambda: compiled(*params, *data)  # noqa: E731
    counted = sum(t.numel() * t.element_size() for t in params + data)
    peaks, times, losses = [], [], []
    for _ in range(2):
        for p in params:
            p.grad = None
        before = lib.alloc_counter_live()
        lib.alloc_counter_reset_peak()
        start = time.perf_counter()
        loss = run()
        loss.backward()
        times.append((time.perf_counter() - start) * 1e3)
        peaks.append(lib.alloc_counter_peak() - before + counted)
        losses.append(float(loss))
        del loss
    print(json.dumps({"peak_bytes": peaks[-1], "first_step_peak_bytes":
                      peaks[0], "step_time_ms": times[-1],
                      "loss": losses[-1]}))


def build_counter(tmp):
    so = os.path.join(tmp, "alloc_counter.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC",
                    os.path.join(HERE, "alloc_counter.c"), "-o", so],
                   check=True)
    return so


def run_torch(counter, name, variant, config, text_path, inputs):
    env = dict(os.environ, LD_PRELOAD=counter,
               ECHO_PEER_CONFIG=json.dumps(config))
    out = subprocess.run([sys.executable, os.path.abspath(__file__),
                          "--child", name, variant, text_path, inputs],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


ECHO_KEYS = ("measured_peak_bytes", "step_bytes", "planned_bytes",
             "peak_live_bytes", "library_workspace_bytes", "step_time_ms",
             "recompute_flops", "forward_flops", "losses")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(*sys.argv[2:6])
    import numpy as np
    import cpu_side_by_side as sbs
    import torch
    import torch_models
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="nmt,transformer,resnet18")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "memory_side_by_side.json"))
    args = ap.parse_args()
    echo_run = os.path.join(args.build, "bin", "echo-run")
    configs = sbs.SMALL if args.small else sbs.PAPER
    results = {"machine": machine.for_bench(), "torch": torch.__version__,
               "threads": os.cpu_count(), "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        counter = build_counter(tmp)
        for name in args.models.split(","):
            path = os.path.join(tmp, name + ".mlir")
            inputs = os.path.join(tmp, "inputs-" + name)
            os.makedirs(inputs, exist_ok=True)
            if name in VISION:
                config = (VISION_SMALL if args.small else VISION_CONFIG)[name]
                import_s = import_vision(name, config, path, inputs)
            else:
                config = configs[name]
                text, arguments, _, import_s = torch_models.import_peer(
                    name, config)
                open(path, "w").write(text)
                values = sbs.draw_arguments(arguments, text, seed=1)
                for i, v in enumerate(values):
                    np.save(os.path.join(inputs, f"arg{i}.npy"), v)
            entry = {"config": config, "import_s": import_s, "echo": {},
                     "torch": {}}
            for s in STRATEGIES:
                r = sbs.run_echo(echo_run, path, inputs, s, steps=2)
                entry["echo"][s] = {k: r.get(k) for k in ECHO_KEYS}
                print(name, "echo", s, entry["echo"][s]["measured_peak_bytes"],
                      file=sys.stderr, flush=True)
            for v in VARIANTS:
                if name in VISION and v == "checkpoint":
                    continue
                entry["torch"][v] = run_torch(counter, name, v, config, path,
                                              inputs)
                print(name, "torch", v, entry["torch"][v], file=sys.stderr,
                      flush=True)
            results["models"][name] = entry
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
