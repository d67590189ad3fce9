"""compile_step(shard="zero1"|"zero2"|"zero3") under torch.distributed
(Gloo, N processes on the loopback; see zero.test). Modes:

  equal N      N ranks, each stage: 5 Adam steps on 1/N of a batch; the
               parent compares every rank's parameters with 1 process on
               the whole batch (the unsharded step, optimizer inside) and
               prints each rank's model-state bytes against the unsharded
               step's.
  optimizers N N ranks under zero3: momentum, Adam with L2 and AdamW,
               each against 1 process on the whole batch.
  checkpoint   2 ranks (zero2) take 3 steps and save optimizer_state(); 4
               ranks (zero3) load it and take 2 more; 1 process loads it
               too; both equal 1 process's 5 steps.
  death        rank 1 dies after its first step: rank 0 raises.
  shapes       rank 1 builds a wider model: both refuse at compile_step.
  batch        rank 1 takes another batch shape at step 3: both refuse.
  single       no process group: the step runs unsharded, with a note.
"""
import datetime
import os
import socket
import sys
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

import echo.torch
from echo import zero

STAGES = ("zero1", "zero2", "zero3")
OPTIMIZERS = (("momentum", dict(optimizer="momentum", lr=0.1,
                                weight_decay=1e-2)),
              ("adam", dict(optimizer="adam", lr=1e-2, weight_decay=1e-2)),
              ("adamw", dict(optimizer="adamw", lr=1e-2, weight_decay=0.1)))


class Net(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(12, hidden)
        self.fc2 = nn.Linear(hidden, 6)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def data():
    g = torch.Generator().manual_seed(1)
    return torch.randn(8, 12, generator=g), torch.randint(0, 6, (8,),
                                                          generator=g)


def compile_(model, x, y, shard=None):
    return echo.torch.compile_step(model, (x,), y, optimizer="adam",
                                   lr=1e-2, shard=shard)


def parameters(step, model):
    """The full trained parameters (gathered under zero3: a collective)."""
    with step.gathered_parameters():
        return [p.detach().clone() for p in model.parameters()]


def rank_main(rank, world, mode, port, out):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=30))
    x, y = data()
    rows = 8 // world
    xs, ys = x[rows * rank:rows * (rank + 1)], y[rows * rank:rows * (rank + 1)]
    try:
        if mode == "equal":
            results = {}
            for stage in STAGES:
                torch.manual_seed(0)
                model = Net()
                step = compile_(model, xs, ys, stage)
                for _ in range(5):
                    step(xs, labels=ys)
                results[stage] = (parameters(step, model),
                                  step.memory_report())
            torch.save(results, "%s.%d" % (out, rank))
        elif mode == "optimizers":
            results = {}
            for name, kw in OPTIMIZERS:
                torch.manual_seed(0)
                model = Net()
                step = echo.torch.compile_step(model, (xs,), ys,
                                               shard="zero3", **kw)
                for _ in range(5):
                    step(xs, labels=ys)
                results[name] = parameters(step, model)
            torch.save(results, "%s.%d" % (out, rank))
        elif mode == "checkpoint" and world == 2:
            torch.manual_seed(0)
            model = Net()
            step = compile_(model, xs, ys, "zero2")
            for _ in range(3):
                step(xs, labels=ys)
            state = step.optimizer_state()
            if rank == 0:
                torch.save({"model": parameters(step, model),
                            "optimizer": state}, out)
        elif mode == "checkpoint":
            saved = torch.load(out)
            torch.manual_seed(5)  # another init: the checkpoint's wins
            model = Net()
            with torch.no_grad():
                for p, q in zip(model.parameters(), saved["model"]):
                    p.copy_(q)
            step = compile_(model, xs, ys, "zero3")
            step.load_optimizer_state(saved["optimizer"])
            for _ in range(2):
                step(xs, labels=ys)
            if rank == 0:
                torch.save(parameters(step, model), out + ".4")
            else:
                parameters(step, model)
        elif mode == "death":
            model = Net()
            step = compile_(model, xs, ys, "zero2")
            step(xs, labels=ys)
            if rank == 1:
                os._exit(0)  # dies without leaving the group
            for _ in range(3):
                step(xs, labels=ys)
            print("rank 0: no error")
        elif mode == "shapes":
            model = Net(hidden=48 if rank == 1 else 32)
            compile_(model, xs, ys, "zero3")
            print("rank %d: no error" % rank)
        elif mode == "batch":
            model = Net()
            step = compile_(model, xs, ys, "zero1")
            for i in range(3):
                if i == 2 and rank == 1:
                    step(xs[:2], labels=ys[:2])
                else:
                    step(xs, labels=ys)
            print("rank %d: no error" % rank)
    except RuntimeError as e:
        print("rank %d: %s: %s" % (rank, type(e).__name__,
                                   str(e).splitlines()[0]))
        sys.stdout.flush()
        os._exit(1)
    sys.stdout.flush()
    dist.barrier()  # no rank leaves while another still reads from it
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(world, mode, out):
    ctx = mp.get_context("spawn")
    port = free_port()
    procs = [ctx.Process(target=rank_main, args=(r, world, mode, port, out))
             for r in range(world)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(240)
        if p.is_alive():
            p.kill()
            print("a rank hung")
    print("exit codes: %s" % sorted(p.exitcode for p in procs))


def reference(steps=5, state=None, start=None):
    """1 process on the whole batch: the unsharded step (Adam inside)."""
    torch.manual_seed(0)
    model = Net()
    if start is not None:
        with torch.no_grad():
            for p, q in zip(model.parameters(), start):
                p.copy_(q)
    x, y = data()
    step = compile_(model, x, y)
    if state is not None:
        step.load_optimizer_state(state)
    for _ in range(steps):
        step(x, labels=y)
    return [p.detach().clone() for p in model.parameters()], step


def worst(a, b):
    return max(float((p - q).norm() / q.norm()) for p, q in zip(a, b))


def main():
    mode = sys.argv[1]
    world = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "params.pt")
        if mode == "single":
            torch.manual_seed(0)
            model = Net()
            x, y = data()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                step = compile_(model, x, y, "zero3")
            print("warned: %s" % [str(w.message) for w in caught
                          if "shard" in str(w.message)])
            step(x, labels=y)
            print("report: shard %r" % step.memory_report()["shard"])
            return
        if mode == "checkpoint":
            spawn(2, mode, out)
            spawn(4, mode, out)
            whole, _ = reference()
            far = worst(torch.load(out + ".4"), whole)
            print("2 ranks (zero2) x 3 steps, checkpoint, 4 ranks (zero3) x "
                  "2 steps vs 1 process x 5 steps: within 1e-6: %s (%.1e)" % (
                      far <= 1e-6, far))
            saved = torch.load(out)
            _, three = reference(3)
            ours = three.optimizer_state()["state"]
            theirs = saved["optimizer"]["state"]
            far = max(float((ours[i][k] - theirs[i][k]).abs().max())
                      for i in ours for k in ("exp_avg", "exp_avg_sq"))
            print("the 2-rank checkpoint's state is 1 process's after 3 steps "
                  "within 1e-7: %s" % (far <= 1e-7))
            _, step = reference(0, saved["optimizer"], saved["model"])
            loaded = step.optimizer_state()
            print("it loads in 1 process unchanged: %s" % all(
                torch.equal(loaded["state"][i][k], theirs[i][k])
                for i in theirs for k in theirs[i]))
            # Adam divides by sqrt(exp_avg_sq): the state's last digits
            # (gradients summed over 2 ranks or over 1 batch) move the
            # next steps' parameters by about 1e-6.
            one, step = reference(2, saved["optimizer"], saved["model"])
            far = worst(one, whole)
            print("the 2-rank checkpoint in 1 process, 2 more steps, vs 1 "
                  "process x 5 steps: within 1e-5: %s (%.1e)" % (
                      far <= 1e-5, far))
            return
        spawn(world, mode, out)
        if mode == "optimizers":
            x, y = data()
            ranks = [torch.load("%s.%d" % (out, r)) for r in range(world)]
            for name, kw in OPTIMIZERS:
                torch.manual_seed(0)
                model = Net()
                step = echo.torch.compile_step(model, (x,), y, **kw)
                for _ in range(5):
                    step(x, labels=y)
                whole = [p.detach() for p in model.parameters()]
                far = max(worst(r[name], whole) for r in ranks)
                print("zero3 %s %s: %d ranks vs 1 process after 5 steps: "
                      "within 1e-6: %s (%.1e)" % (
                          name, kw, world, far <= 1e-6, far))
        if mode != "equal":
            return
        whole, unsharded = reference()
        report = unsharded.memory_report()["model_state"]
        held = report["parameters"] + report["optimizer_state"]
        print("unsharded step (1 process, Adam inside): parameters %d, "
              "optimizer_state %d bytes" % (report["parameters"],
                                            report["optimizer_state"]))
        ranks = [torch.load("%s.%d" % (out, r)) for r in range(world)]
        for stage in STAGES:
            far = max(worst(r[stage][0], whole) for r in ranks)
            print("%s: %d ranks x %d rows vs 1 process x 8 rows after 5 Adam "
                  "steps: every rank's parameters within 1e-6: %s (%.1e)" % (
                      stage, world, 8 // world, far <= 1e-6, far))
            for rank, r in enumerate(ranks):
                m = r[stage][1]
                s = m["model_state"]
                print("%s rank %d: parameters %d, gradients %d, "
                      "optimizer_state %d bytes; held between steps %.3fx "
                      "the unsharded step's; model state %.3fx (2+2+K)psi "
                      "unsharded" % (
                          stage, rank, s["parameters"], s["gradients"],
                          s["optimizer_state"],
                          m["held_between_steps_bytes"] / held,
                          m["model_state_bytes"] /
                          m["unsharded_model_state_bytes"]))
            if stage == "zero3":
                ok = all(
                    r[stage][1]["held_between_steps_bytes"] <= 0.3 * held and
                    r[stage][1]["model_state_bytes"] <=
                    0.3 * r[stage][1]["unsharded_model_state_bytes"]
                    for r in ranks)
                print("zero3 at %d ranks: every rank's model state <= 0.3x "
                      "the unsharded step's: %s" % (world, ok))


if __name__ == "__main__":
    main()
