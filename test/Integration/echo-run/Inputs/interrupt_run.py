"""Runs echo-run (the command after the report path) with --report=REPORT,
waits until it has printed `after` losses, sends it SIGINT, and prints what
came of it: the exit code, whether every line of stdout is whole, and the
report's steps, losses and interrupted flag against the losses printed.

Usage: interrupt_run.py AFTER REPORT echo-run ARGS...
"""
import json
import re
import signal
import subprocess
import sys

after, report, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
proc = subprocess.Popen(command + ["--report=" + report],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
printed = []
for line in proc.stdout:
    printed.append(line)
    if len(printed) == after:
        proc.send_signal(signal.SIGINT)
        break
# The rest through the same buffered reader (communicate() would read the
# pipe past what it has buffered).
printed += proc.stdout.readlines()
err = proc.stderr.read()
proc.wait(timeout=600)
print("exit code", proc.returncode)
print("stderr:", err.strip())
whole = all(re.fullmatch(r"step \d+ loss -?\d+\.\d{6}\n", line)
            for line in printed)
print("every line whole:", whole)
losses = [float(line.split()[3]) for line in printed]
with open(report) as f:
    entry = json.load(f)[0]
print("report steps", entry["steps"], "of", entry.get("steps_requested"),
      "interrupted", entry.get("interrupted"))
print("report losses == printed:",
      len(entry["losses"]) == len(losses) and
      all(abs(a - b) < 1e-6 for a, b in zip(entry["losses"], losses)),
      "count >= %d:" % after, len(losses) >= after)
