#!/usr/bin/env bash
# Sets up, builds and runs every Echo test (lit: FileCheck, verifier,
# plugin, install and Python tests), then builds Echo a second time with the
# system's GCC (Debian 12: GCC 12) so that both compilers keep working, and
# a third time with ASan + UBSan to run the lit suite and each libFuzzer
# target for ECHO_FUZZ_SECONDS (60) seconds (utils/run-sanitizers.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
utils/setup.sh
utils/build.sh
ninja -C "${ECHO_BUILD_DIR:-build}" check-echo
# The GCC build: compile everything, then one smoke run of its echo-opt.
# It checks that GCC compiles Echo (the clang build's tests check the
# optimized code), so it compiles without optimizing; NDEBUG as in the
# Release build, whose libMLIR.so it links.
ECHO_BUILD_DIR="${ECHO_GCC_BUILD_DIR:-build-gcc}" ECHO_CC=gcc ECHO_CXX=g++ \
  ECHO_BUILD_TYPE=None ECHO_CXX_FLAGS="-O0 -DNDEBUG" utils/build.sh
"${ECHO_GCC_BUILD_DIR:-build-gcc}/bin/echo-opt" models/mlp.mlir \
  --echo-pipeline="strategy=echo" -o /dev/null
echo "echo tests: GCC build OK"
# The sanitizer build: the lit suite under ASan + UBSan, then the fuzzers.
utils/run-sanitizers.sh
echo "echo tests: sanitizers and fuzzers OK"
