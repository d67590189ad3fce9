"""Runs echo-run --check-gradients on one model at seeds 1..N (see
residual-seeds.test); prints one line per seed that fails and a count."""
import concurrent.futures
import subprocess
import sys

model, seeds = sys.argv[1], int(sys.argv[2])


def check(seed):
    run = subprocess.run(
        ["echo-run", "--opt-level=0", model, "--check-gradients",
         "--check-samples=0", "--seed=%d" % seed],
        capture_output=True, text=True)
    return seed, run.returncode, run.stderr.strip()


with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = list(pool.map(check, range(1, seeds + 1)))
for seed, code, err in results:
    if code:
        print("seed %d: exit %d: %s" % (seed, code, err))
print("%d of %d seeds failed" % (sum(1 for _, c, _ in results if c), seeds))
