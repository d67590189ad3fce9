#!/bin/sh
# Compiles, here (no GPU needed), everything bench/gpu/device.sh runs on a
# GPU machine that has no MLIR: `echo-run --emit-aot --target=cuda` bundles
# of every bundled model (none, echo, echo in bf16) with their CPU
# reference runs, the paper-size NMT and Transformer for none, mirror,
# echo, echo-offload and echo-bf16, and the paper-size ResNet for echo in
# f32 and bf16 (cuDNN's algorithms at real sizes). Packs them into
# OUT.tar.xz (about 10× smaller: what travels to the GPU machine).
#
# Usage: bench/gpu/make-bundles.sh [OUT]   (default: gpu-bundles/, which git
# ignores; name gpu-bundles.tar.xz in the device tool's `carry` and run
# `bench/gpu/device.sh gpu-bundles.tar.xz` there)
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
/usr/bin/python3 - "$root" /tmp/echo-resnet-paper.mlir <<'PY'
import sys
sys.path[:0] = [sys.argv[1] + "/python", sys.argv[1] + "/bench"]
from echo import models
from recompute import CONFIGS
builder, cfg, _ = CONFIGS["resnet"]
open(sys.argv[2], "w").write(getattr(models, builder)(**cfg))
PY
"$root/build/bin/echo-run" /tmp/echo-resnet-paper.mlir --target=cuda \
  --strategy=echo --emit-aot="$out/resnet-paper-echo"
"$root/build/bin/echo-run" /tmp/echo-resnet-paper.mlir --target=cuda \
  --strategy=echo --precision=bf16 --emit-aot="$out/resnet-paper-echo-bf16"
# The objects are linked into each echo-step already.
find "$out" -name step.o -delete
cp "$root/test/Integration/Inputs/check_cuda.py" "$out/"
tar -C "$out" -cJf "$out.tar.xz" .
du -sh "$out" "$out.tar.xz"
