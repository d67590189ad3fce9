#!/usr/bin/env bash
# Installs what Echo needs on Debian 12 (as root): LLVM/MLIR 22 from Debian's
# packages (with its sanitizer and libFuzzer runtimes), Ninja, lld, ccache,
# OpenBLAS, oneDNN, jemalloc (the tools' allocator), COIN-OR CBC (echo-ilp)
# and Python's numpy, matplotlib, torch and torchvision.
# Safe to run again.
set -euo pipefail

packages=(
  cmake ninja-build ccache git g++ python3 python3-numpy python3-matplotlib
  python3-torch python3-torchvision  # echo.import_torch and its tests, bench/peers
  python3-sklearn python3-tqdm  # examples/: the digits data set, progress bars
  clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libopenblas-dev libdnnl-dev
  libopenblas0-openmp  # OpenBLAS on OpenMP's threads (the CPU runtime prefers it)
  libjemalloc-dev  # the tools' allocator: faster compiles (ECHO_MALLOC)
  coinor-libcbc-dev  # echo-ilp, the optimal recompute reference
  libclang-rt-22-dev  # ASan, UBSan and libFuzzer of clang-22 (utils/run-sanitizers.sh)
  zlib1g-dev libzstd-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done

if ((${#missing[@]})); then
  echo "echo setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
else
  echo "echo setup: all packages present"
fi
