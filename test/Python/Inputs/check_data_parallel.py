"""echo.torch.compile_step under torch.distributed (Gloo, 2 processes on the
loopback; see data-parallel.test). Modes:

  equal   2 ranks, 5 Adam steps on halves of a batch; the parent compares
          their parameters with 1 process on the whole batch.
  death   rank 1 dies after its first step; rank 0 must raise, not hang.
  plan    rank 1 compiles another model; both must refuse at step 1.
  shapes  rank 1 builds a wider model; both must refuse at step 1, before
          any parameter is broadcast.
  early   rank 1 dies before its first step; rank 0's broadcast must
          raise, not hang.
  seeds   the ranks initialize their models with different seeds; after
          the first step and after 5 every rank's parameters are rank 0's
          (its initial ones, updated), as 1 process's from rank 0's seed
          on the whole batch; GradientBuckets given buffers makes the
          floating ones rank 0's.
"""
import datetime
import os
import socket
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

import echo.torch
from echo import data_parallel


class Net(nn.Module):
    def __init__(self, act=torch.tanh, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(12, hidden)
        self.fc2 = nn.Linear(hidden, 6)
        self.act = act

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def data():
    g = torch.Generator().manual_seed(1)
    return torch.randn(8, 12, generator=g), torch.randint(0, 6, (8,),
                                                          generator=g)


def train(step, model, x, y, steps=5):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        step(x, labels=y)
        opt.step()
        opt.zero_grad()


def rank_main(rank, mode, port, out):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=30))
    torch.manual_seed(rank if mode == "seeds" else 0)
    model = Net(F.relu if (mode == "plan" and rank == 1) else torch.tanh,
                hidden=48 if (mode == "shapes" and rank == 1) else 32)
    x, y = data()
    xs, ys = x[4 * rank:4 * rank + 4], y[4 * rank:4 * rank + 4]
    step = echo.torch.compile_step(model, (xs,), ys)
    try:
        if mode == "equal":
            train(step, model, xs, ys)
            if rank == 0:
                torch.save([p.detach() for p in model.parameters()], out)
                print("buckets: %d bytes (the gradients' own)" %
                      step.memory_report()["gradient_bucket_bytes"])
        elif mode == "death":
            train(step, model, xs, ys, steps=1)
            if rank == 1:
                os._exit(0)  # dies without leaving the group
            train(step, model, xs, ys, steps=3)
            print("rank 0: no error")
        elif mode == "seeds":
            torch.save([p.detach().clone() for p in model.parameters()],
                       "%s.%d.init" % (out, rank))
            opt = torch.optim.Adam(model.parameters(), lr=1e-2)
            for i in range(5):
                step(xs, labels=ys)
                opt.step()
                opt.zero_grad()
                if i in (0, 4):
                    torch.save([p.detach().clone()
                                for p in model.parameters()],
                               "%s.%d.%d" % (out, rank, i + 1))
            # Buffers: the floating ones take rank 0's values, the others
            # keep their own.
            floating = torch.full((3,), float(rank))
            counts = torch.full((2,), rank, dtype=torch.int64)
            data_parallel.GradientBuckets(
                [nn.Parameter(torch.full((4,), float(rank)))],
                buffers=[floating, counts])
            print("rank %d buffers: floating %s, integer %s" % (
                rank, floating.tolist(), counts.tolist()))
        elif mode == "early":
            if rank == 1:
                os._exit(0)  # dies before its first step
            train(step, model, xs, ys, steps=1)
            print("rank 0: no error")
        elif mode in ("plan", "shapes"):
            train(step, model, xs, ys, steps=1)
            print("rank %d: no error" % rank)
    except RuntimeError as e:
        print("rank %d: %s" % (rank, str(e).split(": ")[0] + ": " +
                               str(e).split(": ")[1]))
        sys.stdout.flush()
        os._exit(1)
    sys.stdout.flush()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    mode = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "params.pt")
        ctx = mp.get_context("spawn")
        port = free_port()
        procs = [ctx.Process(target=rank_main, args=(r, mode, port, out))
                 for r in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
            if p.is_alive():
                p.kill()
                print("a rank hung")
        print("exit codes: %s" % sorted(p.exitcode for p in procs))
        if mode == "equal":
            torch.manual_seed(0)
            model = Net()
            x, y = data()
            step = echo.torch.compile_step(model, (x,), y)
            train(step, model, x, y)
            ranks = torch.load(out)
            worst = max(float((a - b.detach()).norm() / b.detach().norm())
                        for a, b in zip(ranks, model.parameters()))
            print("2 ranks x 4 rows vs 1 process x 8 rows after 5 Adam "
                  "steps: parameters within 1e-6: %s" % (worst <= 1e-6))
        if mode == "seeds":
            init = [torch.load("%s.%d.init" % (out, r)) for r in range(2)]
            print("initial parameters differ between the ranks: %s" % any(
                not torch.equal(a, b) for a, b in zip(*init)))
            torch.manual_seed(0)
            model = Net()
            print("rank 0's initial parameters are seed 0's: %s" % all(
                torch.equal(a, b) for a, b in zip(init[0],
                                                  model.parameters())))
            x, y = data()
            step = echo.torch.compile_step(model, (x,), y)
            opt = torch.optim.Adam(model.parameters(), lr=1e-2)
            for i in range(5):
                step(x, labels=y)
                opt.step()
                opt.zero_grad()
                if i not in (0, 4):
                    continue
                ranks = [torch.load("%s.%d.%d" % (out, r, i + 1))
                         for r in range(2)]
                worst = max(float((a - b.detach()).norm() /
                                  b.detach().norm())
                            for a, b in zip(ranks[1], model.parameters()))
                print("after %d step(s): ranks' parameters equal: %s; as 1 "
                      "process from rank 0's seed within 1e-6: %s" % (
                          i + 1, all(torch.equal(a, b)
                                     for a, b in zip(*ranks)),
                          worst <= 1e-6))


if __name__ == "__main__":
    main()
