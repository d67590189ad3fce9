#!/usr/bin/env bash
# Pushes DIR/model0.mlir .. model<N-1>.mlir (python3 -m echo.random_models)
# through --echo-pipeline="target=nvvm" under strategies none and echo and
# assembles each PTX with ptxas -arch=sm_90; prints one FAILED line per
# failure and "failures: F of T". Needs echo-opt on PATH (or ECHO_OPT),
# PTXAS and EXTRACT (utils/extract-gpu-binary.py) or their defaults.
set -uo pipefail
dir=$1
count=$2
here=$(cd "$(dirname "$0")" && pwd)
opt=${ECHO_OPT:-echo-opt}
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
extract=${EXTRACT:-/usr/bin/python3 $here/extract-gpu-binary.py}
failures=0
total=0
for i in $(seq 0 $((count - 1))); do
  for s in none echo; do
    total=$((total + 1))
    m=$dir/model$i.mlir
    out=$dir/model$i.$s
    if ! "$opt" "$m" --echo-pipeline="target=nvvm strategy=$s gpu-format=isa" \
         -o "$out.mlir" 2> "$out.err"; then
      echo "model$i $s FAILED in the pipeline: $(grep -m1 error "$out.err")"
      failures=$((failures + 1))
      continue
    fi
    if ! $extract "$out.mlir" -o "$out" > /dev/null 2> "$out.err" ||
       ! "$ptxas" -arch=sm_90 "$out/echo_kernels.ptx" -o "$out/k.cubin" \
         2> "$out.err"; then
      echo "model$i $s FAILED in ptxas: $(head -n1 "$out.err")"
      failures=$((failures + 1))
    fi
  done
done
echo "failures: $failures of $total"
