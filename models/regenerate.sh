#!/bin/sh
# Regenerates the bundled Echo models (small instances of every builder in
# python/echo/models.py).
#
# usage: models/regenerate.sh [OUT_DIR]
#   OUT_DIR defaults to this directory; PYTHON selects the interpreter
#   (default python3).  test/Python/models.test runs this script into a
#   temporary directory and diffs the result against the bundled files.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
mkdir -p "$out"
PYTHON=${PYTHON:-python3}
PYTHONPATH="$here/../python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

gen() {
  name=$1
  shift
  "$PYTHON" -m echo.models "$name" "$@" -o "$out/$name.mlir"
}

gen mlp --batch=8 --sizes=32,64,64,10
gen lstm --batch=4 --seq_len=6 --input=8 --hidden=16 --classes=5 --layers=1
gen nmt --batch=4 --src_len=5 --tgt_len=5 --vocab=20 --embed=16 --hidden=16 \
  --dropout=0.1 --seed=1
gen transformer --batch=2 --seq=8 --d_model=16 --heads=2 --ff=32 --layers=2 \
  --vocab=20 --dropout=0.1 --attention_dropout=0.1 --act_dropout=0.1 --seed=1
gen resnet --batch=2 --channels=8 --image=16 --blocks=2 --classes=10 --stages=2
gen deepspeech2 --batch=2 --freq=32 --time=16 --channels=4 --hidden=16 \
  --classes=10 --rnn_layers=2 --cell=gru
