#!/usr/bin/env bash
# The main job: sets up, builds, then compiles the bundled NMT-like model
# (verifies it against the model convention and prints it in Echo's custom
# assembly), prints its FLOP table, builds its training step, prints the
# memory table of each recompute strategy and trains it for a few steps on
# the CPU (identical losses with and without recomputation).
set -euo pipefail
cd "$(dirname "$0")/.."
utils/setup.sh
utils/build.sh
BUILD_DIR=${ECHO_BUILD_DIR:-build}
MODEL=${1:-models/nmt.mlir}

echo "== echo-opt --echo-verify-model $MODEL"
"$BUILD_DIR/bin/echo-opt" --echo-verify-model "$MODEL"
echo "== cost summary of $MODEL"
"$BUILD_DIR/bin/echo-opt" --echo-test-cost "$MODEL" -o /dev/null 2>&1 |
  /usr/bin/python3 utils/summarize-cost.py

echo "== echo-opt --echo-autodiff $MODEL  (training step: loss and gradients)"
TRAIN="$BUILD_DIR/$(basename "$MODEL" .mlir)_train.mlir"
"$BUILD_DIR/bin/echo-opt" --echo-autodiff "$MODEL" -o "$TRAIN"
awk '/echo.train_step/ { inside = 1; sub(/\(.*/, ""); print "built", $2 }
     inside && /= echo\./ { n++; if (/_grad /) g++ }
     inside && /^  }/ { inside = 0 }
     END { printf "%d echo ops in the step, %d of them gradient ops (*_grad)\n", n, g }' "$TRAIN"
echo "training step written to $TRAIN"

echo "== memory of the training step of $MODEL under each recompute strategy"
reports=()
for s in none mirror sublinear echo; do
  "$BUILD_DIR/bin/echo-opt" "$MODEL" \
    --echo-pipeline="strategy=$s report=$BUILD_DIR/memory-$s.json" -o /dev/null
  reports+=("$BUILD_DIR/memory-$s.json")
done
/usr/bin/python3 utils/memory-table.py "${reports[@]}"
echo "(the bundled model is tiny, so parameters dominate; docs/results.md has"
echo " the same table at paper sizes, from bench/recompute.py)"

for s in none echo; do
  echo "== echo-run $MODEL --strategy=$s --steps=5 --seed=0  (CPU, JIT; SGD lr=0.1)"
  "$BUILD_DIR/bin/echo-run" "$MODEL" --strategy=$s --steps=5 --seed=0 --lr=0.1
done
