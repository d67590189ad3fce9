#!/bin/bash
# Runs on the GPU machine, from the bundles of bench/gpu/make-bundles.sh (no
# MLIR needed): the CUDA-against-CPU check of every bundled model, then the
# NMT benchmark (Echo bundles and PyTorch). Writes check.txt, bench.txt and
# gpu.json to $OUT (the device tool's output folder), else bench/results.
#
# Usage: bench/gpu/device.sh [BUNDLES]   (default: gpu-bundles/)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bundles=${1:-$root/gpu-bundles}
out=${OUT:-$root/bench/results}
mkdir -p "$out"
# cuBLAS and cuDNN: the toolkit's, else those of PyTorch's nvidia-* wheels.
dirs=$(find /usr/local/cuda/lib64 /usr/local/cuda/targets /opt/torch \
         \( -name 'libcublas.so.13' -o -name 'libcudnn.so.9' \) \
         -printf '%h\n' 2>/dev/null | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH="${dirs}${LD_LIBRARY_PATH:-}"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
nvidia-smi -L
export PYTHONUNBUFFERED=1
python3 "$bundles/check_cuda.py" --bundles "$bundles/check" 2>&1 |
  tee "$out/check.txt"
check=${PIPESTATUS[0]}
python3 "$root/bench/gpu/run.py" --bundles "$bundles" \
  --output "$out/gpu.json" 2>&1 | tee "$out/bench.txt"
bench=${PIPESTATUS[0]}
echo "check exit $check, bench exit $bench"
exit $((check || bench))
