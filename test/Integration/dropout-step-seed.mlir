// A dropout that reads the step's seed (`echo.rng_seed`): echo-run passes a
// fresh seed at every step (stepSeed of EchoHostData.h), so the masks of
// steps differ, while the mask stays the documented pure function of (seed,
// step seed, index), which the script re-implements bit for bit. A strategy
// that recomputes the dropout (echo) gives bitwise the same losses; the
// ahead-of-time driver passes the same seeds as echo-run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo-run %s --seed=5 --dump=%t/d | FileCheck %s
// CHECK: step 0 loss
// RUN: %python %S/Inputs/check_dropout_bits.py %t/d/out1.npy 7 0.3 - --run-seed=5 --step=0
// RUN: echo-run %s --seed=5 --steps=4 --lr=0 --strategy=none --quiet --report=%t/none.json
// RUN: echo-run %s --seed=5 --steps=4 --lr=0 --strategy=echo --quiet --report=%t/echo.json
// RUN: echo-run %s --seed=5 --steps=4 --lr=0 --strategy=none --quiet --report=%t/again.json
// RUN: echo-run %s --seed=5 --steps=4 --lr=0 --strategy=none --emit-aot=%t/aot
// RUN: %t/aot/echo-step --steps=4 --quiet --report=%t/aot.json
// RUN: %python -c "import json, sys; l = lambda n: json.load(open('%t/' + n + '.json'))[0]['losses']; n = l('none'); print('4 steps, %%d distinct losses; echo bitwise: %%s; same seed again: %%s; echo-step: %%s' %% (len(set(n)), l('echo') == n, l('again') == n, l('aot') == n))" | FileCheck %s --check-prefix=LOSSES
// LOSSES: 4 steps, 4 distinct losses; echo bitwise: True; same seed again: True; echo-step: True
// The bundle's manifest names the seed's role.
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/aot/manifest.txt
// MANIFEST: arg 0 i64 seed 0 0

func.func @f(%seed: tensor<i64> {echo.rng_seed},
             %w: tensor<64x33xf32> {echo.param}) -> tensor<f32> {
  %y, %m = echo.dropout %w, %seed {ratio = 3.000000e-01 : f64, seed = 7 : i64} : (tensor<64x33xf32>, tensor<i64>) -> (tensor<64x33xf32>, tensor<64x33xi1>)
  %l = echo.reduce_sum %y dims = [0, 1] : (tensor<64x33xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
