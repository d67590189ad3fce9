#!/usr/bin/env bash
# The main job: sets up, builds, then compiles the bundled NMT-like model
# (verifies it against the model convention and prints it in Echo's custom
# assembly), prints its FLOP table and builds its training step; then, for
# an NMT model at a size where memory matters, trains it for a few steps on
# the CPU under each recompute strategy and under a byte budget (the losses
# compared with none's) and prints the memory table:
# estimated, planned and measured bytes.
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

# A size where memory matters: an NMT step like the paper's, smaller so
# that the demo runs in a few minutes on two cores (B=64, T=30, H=256,
# V=2000). Its GEMMs run in OpenBLAS, its step compiles in seconds.
MID="$BUILD_DIR/nmt-mid.mlir"
PYTHONPATH=python /usr/bin/python3 -m echo.models nmt --batch=64 --src_len=30 \
  --tgt_len=30 --vocab=2000 --embed=256 --hidden=256 --dropout=0.3 -o "$MID"
echo "== train the NMT model (B=64, T=30, H=256, V=2000) on the CPU under each recompute strategy (JIT, OpenBLAS; SGD lr=0.1)"
reports=()
for s in none mirror sublinear echo; do
  echo "-- echo-run --strategy=$s --steps=3 --seed=0"
  "$BUILD_DIR/bin/echo-run" "$MID" --strategy=$s --steps=3 --seed=0 --lr=0.1 \
    --report="$BUILD_DIR/run-$s.json"
  /usr/bin/python3 -c "import json, sys; r = json.load(open(sys.argv[1]))[0]; print('compiled in %.1f s (MLIR %.1f s, LLVM %.1f s); median step %.0f ms' % (r['compile_ms'] / 1e3, r['compile_mlir_ms'] / 1e3, r['compile_llvm_ms'] / 1e3, r['step_time_ms']))" "$BUILD_DIR/run-$s.json"
  reports+=("$BUILD_DIR/run-$s.json")
done
# A byte budget: the least recompute whose step fits 60% of none's bytes;
# 30% of them is more than any plan can save here, and says so.
echo "-- echo-run --budget=0.6 --steps=3 --seed=0  (fit 60% of none's bytes with the least recompute)"
"$BUILD_DIR/bin/echo-run" "$MID" --budget=0.6 --steps=3 --seed=0 --lr=0.1 \
  --report="$BUILD_DIR/run-budget.json"
reports+=("$BUILD_DIR/run-budget.json")
echo "-- echo-run --budget=0.3  (too small for any plan: refused)"
"$BUILD_DIR/bin/echo-run" "$MID" --budget=0.3 --steps=1 --quiet 2>&1 |
  head -1 || true
# What holds of the losses: recomputation reruns the same arithmetic, so a
# plan that keeps the loss whole gives none's losses bit for bit; a plan
# that chunks the loss (chunk-loss) sums its rows in another order, within
# a few f32 roundings. Measured here, not asserted.
/usr/bin/python3 - "${reports[@]}" <<'PY'
import json, sys
runs = [(p.rsplit("run-", 1)[1][:-5], json.load(open(p))[0]) for p in sys.argv[1:]]
base = runs[0][1]["losses"]
for name, r in runs[1:]:
    chunked = bool(r.get("loss_chunks"))
    worst = max(abs(a - b) / max(abs(b), 1e-30) for a, b in zip(r["losses"], base))
    how = "bitwise equal" if r["losses"] == base else "within %.1e (relative)" % worst
    print("losses of %s against none's: %s%s" % (
        name, how, " (the loss chunked: its rows summed in another order)"
        if chunked else ""))
PY
echo "== memory of the training step under each strategy (bytes)"
/usr/bin/python3 utils/memory-table.py "${reports[@]}"
echo "(docs/results.md has the same table at the paper's sizes, from"
echo " bench/cpu_paper.py and bench/recompute.py)"
