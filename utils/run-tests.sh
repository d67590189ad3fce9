#!/usr/bin/env bash
# Sets up, builds and runs every Echo test (lit: FileCheck, verifier,
# plugin, install and Python tests).
set -euo pipefail
cd "$(dirname "$0")/.."
utils/setup.sh
utils/build.sh
ninja -C "${ECHO_BUILD_DIR:-build}" check-echo
