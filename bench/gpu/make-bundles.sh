#!/bin/sh
# Compiles, here (no GPU needed), everything bench/gpu/device.sh runs on a
# GPU machine that has no MLIR: `echo-run --emit-aot --target=cuda` bundles
# of every bundled model (none, echo) with their CPU reference runs, and the
# paper-size NMT for none/mirror/echo.
#
# Usage: bench/gpu/make-bundles.sh [OUT]   (default: gpu-bundles/, which git
# ignores; name it in the device tool's `carry`)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/gpu-bundles}
rm -rf "$out"
mkdir -p "$out/check"
export PATH="$root/build/bin:$PATH"
/usr/bin/python3 "$root/test/Integration/Inputs/check_cuda.py" \
  --make-bundles "$root/models" "$out/check"
/usr/bin/python3 "$root/bench/gpu/run.py" --build "$root/build" \
  --make-bundles "$out"
# The objects are linked into each echo-step already.
find "$out" -name step.o -delete
cp "$root/test/Integration/Inputs/check_cuda.py" "$out/"
du -sh "$out"
