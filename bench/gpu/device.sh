#!/bin/bash
# Runs on the GPU machine, from the bundles of bench/gpu/make-bundles.sh (no
# MLIR needed): the CUDA-against-CPU check of every bundled model, then the
# NMT benchmark (Echo bundles and PyTorch), then the runtime's injected
# faults. Writes check.txt, bench.txt, faults.txt and gpu.json to $OUT (the device tool's output folder), else bench/results.
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
# The runtime's faults on the real device (ECHO_CUDA_FAULTS): each must end
# the step with its message and a non-zero exit.
faults=0
step=$(find "$bundles/check" -name echo-step | head -n 1)
if [ -n "$step" ]; then
  for f in device-bytes=4096 fail-launch=1 no-cublas compute-capability=8.0; do
    if ECHO_CUDA_FAULTS=$f "$step" --quiet > "$out/fault.txt" 2>&1; then
      echo "fault $f: FAILED (exit 0)"; faults=1
    else
      echo "fault $f: $(tail -n 1 "$out/fault.txt")"
    fi
  done 2>&1 | tee "$out/faults.txt"
  grep -q FAILED "$out/faults.txt" && faults=1
fi
echo "check exit $check, bench exit $bench, faults $faults"
exit $((check || bench || faults))
