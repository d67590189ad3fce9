#!/bin/bash
# Runs on the GPU machine, from the bundles of bench/gpu/make-bundles.sh (no
# MLIR needed), these stages in order ($ECHO_GPU_STAGES, default all):
#   check    the CUDA-against-CPU check of every bundled model (check.txt)
#   bench    the paper-size NMT and Transformer, Echo bundles and PyTorch
#            (bench.txt, gpu.json)
#   faults   the runtime's injected faults on the real device (faults.txt)
#   resnet   the paper-size ResNet (echo): step time, device peak and
#            cuDNN's algorithm for each convolution (resnet.json), and its
#            slowest generated kernels (resnet-kernels.json); the same in
#            bf16 (resnet-bf16.json)
#   profile  where each paper-size step's device time goes: every bundle
#            run with ECHO_CUDA_PROFILE=1 for 3 steps (the last 2 timed),
#            summed per kernel
#            and library call by bench/gpu/step_profile.py (profile.txt,
#            profile.json; at most $ECHO_PROFILE_SECONDS, default 60, each)
#   kernels  the generated kernels' share of HBM bandwidth under Nsight
#            Compute, when ncu is there (kernels.txt, kernels.json; at most
#            $ECHO_NCU_SECONDS, default 100, per model)
# Files go to $OUT (the device tool's output folder), else bench/results;
# every stage is bounded in time and the later ones run when one fails.
# The bounds, in seconds: $ECHO_CHECK_SECONDS (300); $ECHO_BENCH_SECONDS
# (420), and $ECHO_RUN_SECONDS (120) for each bundle's run of
# $ECHO_BENCH_STEPS (5) steps in it; $ECHO_RESNET_SECONDS (60);
# $ECHO_NCU_SECONDS (100, per model).
#
# Usage: bench/gpu/device.sh [BUNDLES]   (default: gpu-bundles/; a .tar.xz
# of make-bundles.sh is unpacked first)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bundles=${1:-$root/gpu-bundles}
if [ -f "$bundles" ]; then
  mkdir -p /tmp/echo-bundles
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
    "$bundles" /tmp/echo-bundles || exit 1
  bundles=/tmp/echo-bundles
fi
out=${OUT:-$root/bench/results}
stages=" ${ECHO_GPU_STAGES:-check bench faults resnet profile kernels} "
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
status=0
stage() { [[ "$stages" == *" $1 "* ]] && echo "== $1 ($(date +%T))"; }

if stage check; then
  timeout "${ECHO_CHECK_SECONDS:-300}" python3 "$bundles/check_cuda.py" \
    --bundles "$bundles/check" 2>&1 | tee "$out/check.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  tar -C "$bundles/check" -cf "$out/cuda-reports.tar" \
    $(cd "$bundles/check" && ls *.cuda.json 2>/dev/null)
fi

if stage bench; then
  timeout "${ECHO_BENCH_SECONDS:-420}" python3 "$root/bench/gpu/run.py" \
    --bundles "$bundles" --models transformer,nmt \
    --steps "${ECHO_BENCH_STEPS:-5}" --timeout "${ECHO_RUN_SECONDS:-120}" \
    --output "$out/gpu.json" 2>&1 | tee "$out/bench.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi

# Each fault must end the step with its message and a non-zero exit.
if stage faults; then
  step=$(find "$bundles/check" -name echo-step | head -n 1)
  for f in device-bytes=4096 fail-launch=1 no-cublas compute-capability=8.0; do
    if ECHO_CUDA_FAULTS=$f timeout 20 "$step" --quiet > /tmp/fault.txt 2>&1
    then
      echo "fault $f: FAILED (exit 0)"
    else
      echo "fault $f: $(tail -n 1 /tmp/fault.txt)"
    fi
  done 2>&1 | tee "$out/faults.txt"
  grep -q ": FAILED (exit 0)" "$out/faults.txt" && status=1
fi

if stage profile; then
  reports=()
  for step in "$bundles"/*/echo-step; do
    name=$(basename "$(dirname "$step")")
    [ "$name" = check ] && continue
    ECHO_CUDA_PROFILE=1 timeout "${ECHO_PROFILE_SECONDS:-60}" "$step" \
      --steps=3 --quiet --report="/tmp/profile-$name.json" ||
      { echo "$name: profiled run failed"; status=1; continue; }
    reports+=("/tmp/profile-$name.json")
  done
  [ ${#reports[@]} -gt 0 ] &&
    python3 "$root/bench/gpu/step_profile.py" "${reports[@]}" \
      --output "$out/profile.json" 2>&1 | tee "$out/profile.txt"
fi

# Echo's generated kernels against HBM bandwidth: one step of each echo
# bundle under Nsight Compute (bounded: the first kernels of the step).
if stage kernels && command -v ncu > /dev/null; then
  for m in transformer nmt; do
    [ -x "$bundles/$m-echo/echo-step" ] || continue
    timeout "${ECHO_NCU_SECONDS:-100}" ncu --clock-control none --print-units base --csv \
      -k regex:_train_kernel_ --launch-count 200 --metrics \
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed \
      "$bundles/$m-echo/echo-step" --steps=1 --quiet > "/tmp/ncu-$m.csv" 2>&1
    echo "== $m (echo), generated kernels"
    python3 "$root/bench/gpu/kernels.py" "/tmp/ncu-$m.csv" \
      --output "/tmp/kernels-$m.json" || tail -n 20 "/tmp/ncu-$m.csv"
  done 2>&1 | tee "$out/kernels.txt"
  python3 - "$out/kernels.json" <<'PY'
import json, os, sys
json.dump({m: json.load(open(f"/tmp/kernels-{m}.json"))
           for m in ("transformer", "nmt")
           if os.path.exists(f"/tmp/kernels-{m}.json")},
          open(sys.argv[1], "w"), indent=1)
PY
fi

if stage resnet && [ -x "$bundles/resnet-paper-echo/echo-step" ]; then
  SECONDS=0
  timeout "${ECHO_RESNET_SECONDS:-60}" \
    "$bundles/resnet-paper-echo/echo-step" --steps=1 --quiet \
    --report="$out/resnet.json" > /tmp/resnet.txt 2>&1
  rc=$?
  echo "resnet paper echo: exit $rc after $SECONDS s"
  tail -n 5 /tmp/resnet.txt
  [ $rc = 0 ] || status=1
  # Where its time goes: the slowest of its first generated kernels.
  if command -v ncu > /dev/null; then
    timeout "${ECHO_NCU_SECONDS:-100}" ncu --clock-control none \
      --print-units base --csv -k regex:_train_kernel_ --launch-count 150 \
      --metrics \
gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed \
      "$bundles/resnet-paper-echo/echo-step" --steps=1 --quiet \
      > /tmp/ncu-resnet.csv 2>&1
    python3 "$root/bench/gpu/kernels.py" /tmp/ncu-resnet.csv \
      --output "$out/resnet-kernels.json" || tail -n 20 /tmp/ncu-resnet.csv
  fi
fi
# The same in bf16: cuDNN's bf16 convolutions (tensor cores) and their
# algorithms, device peak and step time beside the f32 step's.
if stage resnet && [ -x "$bundles/resnet-paper-echo-bf16/echo-step" ]; then
  SECONDS=0
  timeout "${ECHO_RESNET_SECONDS:-60}" \
    "$bundles/resnet-paper-echo-bf16/echo-step" --steps=2 --quiet \
    --report="$out/resnet-bf16.json" > /tmp/resnet-bf16.txt 2>&1
  rc=$?
  echo "resnet paper echo bf16: exit $rc after $SECONDS s"
  tail -n 5 /tmp/resnet-bf16.txt
  [ $rc = 0 ] || status=1
fi
echo "== done ($(date +%T)), status $status"
exit $status
