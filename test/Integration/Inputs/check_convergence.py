"""Asserts that an echo-run report shows the loss falling below half its start."""
import json
import sys

report = json.load(open(sys.argv[1]))
losses = report[0]["losses"]
steps = int(sys.argv[2])
assert len(losses) == steps, f"expected {steps} losses, got {len(losses)}"
assert losses[-1] < 0.5 * losses[0], (
    f"loss did not halve: {losses[0]} -> {losses[-1]}")
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
