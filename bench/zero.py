#!/usr/bin/python3
"""Sharded data parallelism (compile_step(shard=...)) against PyTorch's
DistributedDataParallel (not a test; writes JSON).

For 1, 2 and 4 ranks (Gloo on the loopback, one process a rank) and an MLP
(``--width``, ``--depth``) on a batch of ``--batch`` rows split across the
ranks, each rank runs ``--steps`` timed steps (after one untimed) of:

* ``echo``: compile_step(optimizer="adam") unsharded (1 rank only: the
  optimizer inside the step refuses a process group of more ranks);
* ``zero1``, ``zero2``, ``zero3``: compile_step(optimizer="adam",
  shard=...); at 1 rank these run unsharded (with a warning), so they are
  skipped there;
* ``ddp``: torch.nn.parallel.DistributedDataParallel (gradient buckets as
  the gradients' views) with torch.optim.Adam, eager forward and backward.

Per rank: the model-state bytes it holds (parameters, gradients, Adam's
state; measured on the tensors' storages: Echo's memory_report()
``model_state``, for DDP the parameters, their ``.grad`` and the
optimizer's state after a step), the transient bytes Echo's sharded steps
hold while the step runs, the step's measured peak, the process's peak
RSS (ru_maxrss: the PyTorch runtime included), and the median step time.
Step times on a shared 2-core machine are indicative only.

Usage: bench/zero.py [--width 512] [--depth 4] [--batch 64] [--steps 5]
       [--worlds 1,2,4] [--out bench/results/zero.json]
"""
import argparse
import datetime
import json
import os
import resource
import socket
import statistics
import sys
import tempfile
import time
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import echo.torch  # noqa: E402


def make_model(width, depth):
    layers, size = [], 256
    for _ in range(depth):
        layers += [nn.Linear(size, width), nn.Tanh()]
        size = width
    layers.append(nn.Linear(size, 10))
    return nn.Sequential(*layers)


def data(batch):
    g = torch.Generator().manual_seed(1)
    return torch.randn(batch, 256, generator=g), torch.randint(
        0, 10, (batch,), generator=g)


def storage_bytes(tensors):
    seen, total = set(), 0
    for t in tensors:
        if t is None or t.storage().nbytes() == 0:
            continue
        if t.storage().data_ptr() not in seen:
            seen.add(t.storage().data_ptr())
            total += t.storage().nbytes()
    return total


def timed(fn, steps):
    fn()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_echo(kind, model, xs, ys, steps):
    shard = None if kind == "echo" else kind
    step = echo.torch.compile_step(model, (xs,), ys, optimizer="adam",
                                   lr=1e-3, shard=shard)
    seconds = timed(lambda: step(xs, labels=ys), steps)
    r = step.memory_report()
    entry = {"step_seconds": seconds, "model_state": r["model_state"],
             "model_state_bytes": sum(r["model_state"].values()),
             "measured_step_peak_bytes": r.get("measured_step_peak_bytes")}
    for key in ("held_between_steps_bytes", "transient_bytes",
                "rank_peak_bytes", "zero_accounting_bytes",
                "unsharded_model_state_bytes"):
        if key in r:
            entry[key] = r[key]
    if shard is None:
        entry["held_between_steps_bytes"] = entry["model_state_bytes"]
    return entry


def run_ddp(model, xs, ys, steps, world):
    if world > 1:
        ddp = nn.parallel.DistributedDataParallel(
            model, gradient_as_bucket_view=True)
    else:
        ddp = model
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=False)
        loss_fn(ddp(xs), ys).backward()
        opt.step()
    seconds = timed(step, steps)
    params = list(model.parameters())
    state = [t for s in opt.state.values() for t in s.values()
             if isinstance(t, torch.Tensor) and t.dim() > 0]
    ms = {"parameters": storage_bytes(params),
          "gradients": storage_bytes([p.grad for p in params]),
          "optimizer_state": storage_bytes(state)}
    return {"step_seconds": seconds, "model_state": ms,
            "model_state_bytes": sum(ms.values()),
            "held_between_steps_bytes": sum(ms.values())}


def rank_main(rank, world, port, args, out):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    if world > 1:
        dist.init_process_group("gloo", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=300))
    x, y = data(args.batch)
    rows = args.batch // world
    xs, ys = x[rank * rows:(rank + 1) * rows], y[rank * rows:(rank + 1) * rows]
    kinds = ["echo"] if world == 1 else ["zero1", "zero2", "zero3"]
    results = {}
    for kind in kinds + ["ddp"]:
        torch.manual_seed(0)
        model = make_model(args.width, args.depth)
        if kind == "ddp":
            results[kind] = run_ddp(model, xs, ys, args.steps, world)
        else:
            results[kind] = run_echo(kind, model, xs, ys, args.steps)
    results["ru_maxrss_bytes"] = resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss * 1024
    with open("%s.%d" % (out, rank), "w") as f:
        json.dump(results, f)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--worlds", default="1,2,4")
    parser.add_argument("--out", default=os.path.join(
        ROOT, "bench", "results", "zero.json"))
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import machine
    params = sum(p.numel() for p in make_model(args.width,
                                               args.depth).parameters())
    record = {"date": datetime.date.today().isoformat(),
              "machine": machine.describe(),
              "model": "MLP 256-%s-10 (tanh), %d parameters" % (
                  "-".join([str(args.width)] * args.depth), params),
              "batch": args.batch, "steps": args.steps,
              "torch": torch.__version__, "worlds": {}}
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        for world in [int(w) for w in args.worlds.split(",")]:
            out = os.path.join(tmp, "w%d" % world)
            port = free_port()
            procs = [ctx.Process(target=rank_main,
                                 args=(r, world, port, args, out))
                     for r in range(world)]
            for p in procs:
                p.start()
            for p in procs:
                p.join(1800)
            codes = [p.exitcode for p in procs]
            if any(codes):
                sys.exit("bench/zero.py: %d ranks exited with %s" % (
                    world, codes))
            ranks = []
            for r in range(world):
                with open("%s.%d" % (out, r)) as f:
                    ranks.append(json.load(f))
            record["worlds"][str(world)] = ranks
            for kind in ranks[0]:
                if kind == "ru_maxrss_bytes":
                    continue
                e = ranks[0][kind]
                print("%d rank(s) %-5s rank 0: model state %s = %d bytes; "
                      "step %.1f ms" % (world, kind, e["model_state"],
                                        e["model_state_bytes"],
                                        1e3 * e["step_seconds"]))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
