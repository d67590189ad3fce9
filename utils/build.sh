#!/usr/bin/env bash
# Configures (once) and builds Echo into ${ECHO_BUILD_DIR:-build} with Ninja,
# clang-22, lld and ccache, against the shared libMLIR.so of LLVM 22.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${ECHO_BUILD_DIR:-build}
LLVM_PREFIX=${LLVM_PREFIX:-/usr/lib/llvm-22}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}

if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_DIR="$LLVM_PREFIX/lib/cmake/llvm" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit"
fi
ninja -C "$BUILD_DIR" -j "${ECHO_JOBS:-$(nproc)}"
