"""echo.torch.compile_step's cache and its errors (see
compile-step-cache.test): damaged cache entries (a truncated, emptied or
missing library, another entry's library copied in) are rebuilt, never
loaded; a build killed midway leaves nothing behind; every misuse is a
typed error; a byte budget means what echo-run's means and is met in
measured bytes. Each case that could take the process down runs in a child
process. Prints one line per property."""
import os
import shutil
import signal
import subprocess
import sys
import time

import torch
import torch.nn as nn

import echo.torch

CACHE = os.environ["ECHO_CACHE_DIR"]
HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import sys, torch, torch.nn as nn
sys.path.insert(0, %r)
import echo.torch
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 5))
x = torch.randn(%d, 8)
y = torch.randint(0, 5, (%d,))
step = echo.torch.compile_step(model, (x,), y, strategy="none")
expected = torch.nn.functional.cross_entropy(model(x), y)
print("loss %%.6f matches PyTorch: %%s" %% (
    float(step(x, labels=y)),
    abs(float(step(x, labels=y)) - float(expected)) <= 1e-6))
"""


def child(batch=4):
    """Compiles and runs the small step in a fresh process."""
    run = subprocess.run(
        [sys.executable, "-c", CHILD % (os.path.join(HERE, "..", "..", "..",
                                                     "python"), batch, batch)],
        capture_output=True, text=True)
    if run.returncode != 0:
        return "exit %d: %s" % (run.returncode, (run.stderr.strip().splitlines()
                                                 or ["?"])[-1])
    return run.stdout.strip().split(" matches ")[1]


def entries():
    return sorted(d for d in os.listdir(CACHE) if not d.startswith("."))


print("fresh: %s" % child())
[key] = entries()
library = os.path.join(CACHE, key, "libechostep.so")
size = os.path.getsize(library)

# Damaged entries: each is rebuilt by the next process.
with open(library, "r+b") as f:
    f.truncate(size // 3)
print("truncated library: %s" % child())
open(library, "w").close()
print("empty library: %s" % child())
os.remove(library)
print("library removed from its entry: %s" % child())
# Another batch size's library (and digest) copied under this key.
print("batch 6: %s" % child(6))
other = [d for d in entries() if d != key][0]
for name in ("libechostep.so", "libechostep.so.sha256"):
    shutil.copy(os.path.join(CACHE, other, name), os.path.join(CACHE, key, name))
print("another batch size's library under the key: %s" % child())
shutil.rmtree(os.path.join(CACHE, key))
with open(os.path.join(CACHE, key), "w") as f:
    f.write("not a directory")
print("a file where the entry was: %s" % child())

# A build killed midway leaves its directory; the next build removes it.
# (The child's echo-run waits, so that the build is under way when the
# child is killed.)
slow = os.path.join(os.path.dirname(CACHE), "slow-echo-run")
with open(slow, "w") as f:
    f.write("#!/bin/sh\nsleep 600\nexec %s \"$@\"\n" % os.environ["ECHO_RUN"])
os.chmod(slow, 0o755)
proc = subprocess.Popen(
    [sys.executable, "-c", CHILD.replace("Linear(16, 5)", "Linear(16, 7)")
     .replace("randint(0, 5", "randint(0, 7") % (
        os.path.join(HERE, "..", "..", "..", "python"), 4, 4)],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    env=dict(os.environ, ECHO_RUN=slow), start_new_session=True)
deadline = time.time() + 120
while time.time() < deadline and not any(
        os.path.exists(os.path.join(CACHE, d, "pid"))
        for d in os.listdir(CACHE) if d.startswith(".build-")):
    time.sleep(0.05)
os.killpg(proc.pid, signal.SIGKILL)  # the child and its echo-run
proc.wait()
left = [d for d in os.listdir(CACHE) if d.startswith(".build-")]
print("killed build left its directory: %s" % bool(left))
child()
print("the next build removed it: %s" % (not any(
    d in os.listdir(CACHE) for d in left)))

# Misuse: typed errors, never a raw OSError or AttributeError.
model = nn.Linear(8, 5)
x = torch.randn(4, 8)
y = torch.randint(0, 5, (4,))
step = echo.torch.compile_step(model, (x,), y, strategy="none")
errors = (TypeError, ValueError, IndexError, echo.torch.CompileError)


def typed(what, call, env=None):
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        call()
        print("%s: no error" % what)
    except errors as e:
        print("%s: %s: %s" % (what, type(e).__name__,
                              str(e).splitlines()[0]))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


fresh = nn.Linear(8, 6)
y6 = torch.randint(0, 6, (4,))
typed("a missing echo-run", lambda: echo.torch.compile_step(fresh, (x,), y6),
      {"ECHO_RUN": "/nonexistent/echo-run"})
typed("an echo-run that is not executable", lambda: echo.torch.compile_step(
    fresh, (x,), y6), {"ECHO_RUN": os.path.join(HERE, "small_cnn.py")})
typed("cache under a file", lambda: echo.torch.compile_step(
    fresh, (x,), y6), {"ECHO_CACHE_DIR": os.path.join(HERE, "small_cnn.py",
                                                      "cache")})
typed("offload=True", lambda: echo.torch.compile_step(model, (x,), y,
                                                      offload=True))
typed("sparse input", lambda: step(x.to_sparse(), labels=y))
typed("complex input", lambda: step(x.to(torch.complex64), labels=y))
typed("bool labels", lambda: step(x, labels=y > 2))
typed("input of another shape than compiled per call", lambda: step(
    torch.randn(4, 9), labels=y))
typed("load_optimizer_state(None)", lambda: echo.torch.compile_step(
    model, (x,), y, optimizer="adam").load_optimizer_state(None))

# Budgets: the bytes echo-run's --budget means (the libraries' workspace
# counted: oneDNN's for the convolutions), met in measured bytes.
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.Tanh(),
                    *[m for _ in range(5) for m in (
                        nn.Conv2d(16, 16, 3, padding=1), nn.Tanh())],
                    nn.Flatten(), nn.Linear(16 * 16 * 16, 5))
bx = torch.randn(16, 3, 16, 16)
by = torch.randint(0, 5, (16,))
measured = {}
for strategy in ("none", "echo"):
    whole = echo.torch.compile_step(net, (bx,), by, strategy=strategy)
    whole(bx, labels=by)
    measured[strategy] = whole.memory_report()["measured_peak_bytes"]
print("echo measures below none: %s" % (measured["echo"] < measured["none"]))
# Budgets between echo's bytes and none's: the budget strategy plans close
# to each, with the convolutions' workspace on top.
for share in (0.5, 0.25, 0.1):
    budget = int(measured["echo"] +
                 share * (measured["none"] - measured["echo"]))
    bstep = echo.torch.compile_step(net, (bx,), by, budget=budget)
    bstep(bx, labels=by)
    report = bstep.memory_report()
    print("budget %.2f of the way from echo's bytes to none's: met in "
          "measured bytes: %s" % (share,
                                  report["measured_peak_bytes"] <= budget))
typed("a budget nothing meets", lambda: echo.torch.compile_step(
    net, (bx,), by, budget=1000))
