"""echo.torch.compile_step while it runs (see compile-step-runtime.test):
dropout draws fresh masks at every call from PyTorch's generator (and the
same ones under every strategy), calls from several threads, running out
of memory (an exception, not the end of the process), the memory kept
between calls of several batch shapes. Prints one line per property."""
import resource
import threading

import torch
import torch.nn as nn

import echo.torch

torch.manual_seed(0)


class Dropper(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.fc1 = nn.Linear(16, width)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(width, 4)

    def forward(self, x):
        return self.fc2(self.drop(torch.tanh(self.fc1(x))))


model = Dropper()
x = torch.randn(8, 16)
y = torch.randint(0, 4, (8,))
steps = {s: echo.torch.compile_step(model, (x,), y, strategy=s)
         for s in ("none", "echo")}

torch.manual_seed(1)
first = [float(steps["none"](x, labels=y)) for _ in range(4)]
print("dropout: 4 calls give 4 different losses: %s" % (
    len(set(first)) == 4))
torch.manual_seed(1)
again = [float(steps["none"](x, labels=y)) for _ in range(4)]
print("torch.manual_seed reproduces them: %s" % (first == again))
torch.manual_seed(1)
echoed = [float(steps["echo"](x, labels=y)) for _ in range(4)]
print("the echo strategy (masks recomputed) gives bitwise the same: %s" % (
    first == echoed))

# Threads: one Step called from 4 threads at once, 5 times each.
torch.manual_seed(2)
plain = nn.Linear(16, 4)
pstep = echo.torch.compile_step(plain, (x,), y, strategy="none")
expected = float(pstep(x, labels=y))
results, errors = [], []


def work():
    try:
        for _ in range(5):
            results.append(float(pstep(x, labels=y)))
    except Exception as e:  # noqa: BLE001 (reported below)
        errors.append(repr(e))


threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("4 threads x 5 calls: %d losses, all equal to one thread's: %s, "
      "errors: %d" % (len(results), all(r == expected for r in results),
                      len(errors)))

# Out of memory: the step's arena cannot be allocated under an address
# space limit; the call raises and the process goes on.
big = Dropper(width=4096)
bx = torch.randn(2048, 16)
by = torch.randint(0, 4, (2048,))
bstep = echo.torch.compile_step(big, (bx,), by, strategy="none")
need = bstep.memory_report()["step_bytes"]
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
with open("/proc/self/statm") as f:
    mapped = int(f.read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (mapped + need // 4, hard))
try:
    bstep(bx, labels=by)
    print("out of memory: no error")
except MemoryError as e:
    print("out of memory: %s (a MemoryError: %s): %s" % (
        type(e).__name__, isinstance(e, MemoryError),
        str(e).splitlines()[0].split(" bytes")[0].rsplit(" ", 1)[0]))
finally:
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
print("the process goes on: the next call runs: %s" % bool(
    torch.isfinite(bstep(bx, labels=by))))


# Memory kept between calls: six batch shapes, each with an arena of
# 40 MB or more (malloc maps blocks that large afresh and unmaps them when
# freed); only the library that ran last keeps its arena.
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def batch(n):
    return torch.randn(n, 16), torch.randint(0, 4, (n,))


wide = nn.Sequential(nn.Linear(16, 8192), nn.Tanh(), nn.Linear(8192, 4))
shapes = [1024, 1152, 1280, 1408, 1536, 1664]
wstep = echo.torch.compile_step(wide, batch(shapes[0])[:1],
                                batch(shapes[0])[1], strategy="none")
arenas = [wstep.memory_report(*batch(n))["step_bytes"]  # compiled, not run
          for n in shapes]
arena = max(arenas)
before = rss()
for _ in range(2):
    for n in shapes:
        bx, by = batch(n)
        wstep(bx, labels=by)
grown = rss() - before
print("6 batch shapes: %d steps compiled, steps of 40 MB or more: %s, "
      "memory kept between calls within 2 arenas: %s" % (
          len(wstep._variants), min(arenas) >= 40 << 20, grown <= 2 * arena))
