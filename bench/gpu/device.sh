#!/bin/bash
# Runs on the GPU machine, from the bundles of bench/gpu/make-bundles.sh (no
# MLIR needed): the CUDA-against-CPU check of every bundled model, then the
# paper-size NMT and Transformer benchmark (Echo bundles and PyTorch), the
# generated kernels' share of HBM bandwidth (Nsight Compute, when ncu is
# there), then the runtime's injected faults. Writes check.txt, bench.txt,
# faults.txt, gpu.json, kernels.txt/.json and the CUDA runs' reports
# (cuda-reports.tar: cuDNN's algorithm choices are in them) to $OUT (the
# device tool's output folder), else bench/results.
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
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())" || true
export PYTHONUNBUFFERED=1
python3 "$bundles/check_cuda.py" --bundles "$bundles/check" 2>&1 |
  tee "$out/check.txt"
check=${PIPESTATUS[0]}
tar -C "$bundles/check" -cf "$out/cuda-reports.tar" \
  $(cd "$bundles/check" && ls *.cuda.json 2>/dev/null)
python3 "$root/bench/gpu/run.py" --bundles "$bundles" \
  --output "$out/gpu.json" 2>&1 | tee "$out/bench.txt"
bench=${PIPESTATUS[0]}
# Echo's generated kernels against HBM bandwidth: one step of each echo
# bundle under Nsight Compute (bounded: the first kernels of the step).
if command -v ncu > /dev/null; then
  for m in transformer nmt; do
    [ -x "$bundles/$m-echo/echo-step" ] || continue
    timeout 240 ncu --clock-control none --print-units base --csv \
      -k regex:_train_kernel_ --launch-count 400 --metrics \
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed \
      "$bundles/$m-echo/echo-step" --steps=1 --quiet > "/tmp/ncu-$m.csv" 2>&1
    echo "== $m (echo), generated kernels"
    python3 "$root/bench/gpu/kernels.py" "/tmp/ncu-$m.csv" \
      --output "/tmp/kernels-$m.json" || tail -n 20 "/tmp/ncu-$m.csv"
  done 2>&1 | tee "$out/kernels.txt"
  python3 -c 'import json,sys; json.dump({m: json.load(open(f"/tmp/kernels-{m}.json")) for m in ("transformer","nmt") if __import__("os").path.exists(f"/tmp/kernels-{m}.json")}, open(sys.argv[1],"w"), indent=1)' "$out/kernels.json"
fi
# The runtime's faults on the real device (ECHO_CUDA_FAULTS): each must end
# the step with its message and a non-zero exit.
faults=0
step=$(find "$bundles/check" -name echo-step | head -n 1)
if [ -n "$step" ]; then
  for f in device-bytes=4096 fail-launch=1 no-cublas compute-capability=8.0; do
    if ECHO_CUDA_FAULTS=$f "$step" --quiet > /tmp/fault.txt 2>&1; then
      echo "fault $f: FAILED (exit 0)"; faults=1
    else
      echo "fault $f: $(tail -n 1 /tmp/fault.txt)"
    fi
  done 2>&1 | tee "$out/faults.txt"
  grep -q FAILED "$out/faults.txt" && faults=1
fi
echo "check exit $check, bench exit $bench, faults $faults"
exit $((check || bench || faults))
