#!/usr/bin/env bash
# Configures (once) and builds Echo into ${ECHO_BUILD_DIR:-build} with Ninja,
# lld and ccache, against the shared libMLIR.so of LLVM 22. The compilers are
# clang-22 unless ECHO_CC/ECHO_CXX name others (CI also builds with the
# system's GCC: ECHO_CC=gcc ECHO_CXX=g++). ECHO_BUILD_TYPE (default Release)
# and ECHO_CXX_FLAGS go to CMake when the build directory is configured.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${ECHO_BUILD_DIR:-build}
LLVM_PREFIX=${LLVM_PREFIX:-/usr/lib/llvm-22}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}

if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE="${ECHO_BUILD_TYPE:-Release}" \
    -DCMAKE_C_FLAGS="${ECHO_CXX_FLAGS:-}" \
    -DCMAKE_CXX_FLAGS="${ECHO_CXX_FLAGS:-}" \
    -DCMAKE_C_COMPILER="${ECHO_CC:-clang-22}" \
    -DCMAKE_CXX_COMPILER="${ECHO_CXX:-clang++-22}" \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_DIR="$LLVM_PREFIX/lib/cmake/llvm" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit"
fi
ninja -C "$BUILD_DIR" -j "${ECHO_JOBS:-$(nproc)}"
