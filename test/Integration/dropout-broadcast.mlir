// Dropout with broadcast_dims: the keep decision is drawn once per index of
// the other dims (the counter is that index, row-major, over x's shape
// without the broadcast dims) and shared along them; the mask keeps x's
// shape. The gradient of sum(dropout(w)) is mask / (1 - ratio), which the
// script compares bit for bit with a NumPy re-implementation, checks
// constant along the broadcast dims, and whose kept share over the draws is
// 1 - ratio. Dropout2d on NCHW ([2, 3]), stochastic depth per sample
// ([1, 2]), and a mask shared along rows ([0]).
// RUN: rm -rf %t && echo-run %s --function=bits --dump=%t/bits | FileCheck %s --check-prefix=STEP
// STEP: step 0 loss
// RUN: %python %S/Inputs/check_dropout_bits.py %t/bits/out1.npy 7 0.3 2,3 | FileCheck %s --check-prefix=NCHW
// NCHW: mask matches; 2048 draws; kept 0.{{6[6-9]|7[0-4]}}{{[0-9]}}, constant along dims [2, 3]
// RUN: %python %S/Inputs/check_dropout_bits.py %t/bits/out2.npy 9 0.5 1,2 | FileCheck %s --check-prefix=DEPTH
// DEPTH: mask matches; 1024 draws; kept 0.{{4[6-9]|5[0-4]}}{{[0-9]}}, constant along dims [1, 2]
// RUN: %python %S/Inputs/check_dropout_bits.py %t/bits/out3.npy 3 0.2 0 | FileCheck %s --check-prefix=ROWS
// ROWS: mask matches; 512 draws; kept 0.{{7[6-9]|8[0-4]}}{{[0-9]}}, constant along dims [0]
//
// Recomputation reproduces the shared masks: sublinear re-runs both
// dropouts (with their broadcast_dims) for the masks, mirror re-runs the
// tanh of their outputs, echo stashes the masks 1-bit packed; every
// strategy's two steps give the same losses and bitwise the same results.
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=sublinear" | FileCheck %s --check-prefix=SUBLINEAR
// SUBLINEAR-LABEL: func.func @recomputed_train
// SUBLINEAR: echo.recompute
// SUBLINEAR: echo.dropout %{{.*}} {broadcast_dims = array<i64: 1, 2, 3>, ratio = 5.000000e-01 : f64, seed = 6 : i64}
// SUBLINEAR: echo.recompute
// SUBLINEAR: echo.dropout %{{.*}} {broadcast_dims = array<i64: 2, 3>, ratio = 2.500000e-01 : f64, seed = 5 : i64}
// RUN: for s in none mirror sublinear echo; do \
// RUN:   echo-run %s --function=recomputed --strategy=$s --steps=2 --dump=%t/$s > %t/$s.txt || exit 1; \
// RUN: done
// RUN: for s in mirror sublinear echo; do \
// RUN:   diff %t/none.txt %t/$s.txt && for f in %t/none/*.npy; do cmp $f %t/$s/$(basename $f) || exit 1; done && echo "$s: bitwise none's"; \
// RUN: done | FileCheck %s --check-prefix=SAME
// SAME: mirror: bitwise none's
// SAME: sublinear: bitwise none's
// SAME: echo: bitwise none's

func.func @bits(%w1: tensor<64x32x3x3xf32> {echo.param},
                %w2: tensor<1024x2x2xf32> {echo.param},
                %w3: tensor<16x512xf32> {echo.param}) -> tensor<f32> {
  %y1, %m1 = "echo.dropout"(%w1) {broadcast_dims = array<i64: 2, 3>, ratio = 3.000000e-01 : f64, seed = 7 : i64} : (tensor<64x32x3x3xf32>) -> (tensor<64x32x3x3xf32>, tensor<64x32x3x3xi1>)
  %y2, %m2 = "echo.dropout"(%w2) {broadcast_dims = array<i64: 1, 2>, ratio = 5.000000e-01 : f64, seed = 9 : i64} : (tensor<1024x2x2xf32>) -> (tensor<1024x2x2xf32>, tensor<1024x2x2xi1>)
  %y3, %m3 = "echo.dropout"(%w3) {broadcast_dims = array<i64: 0>, ratio = 2.000000e-01 : f64, seed = 3 : i64} : (tensor<16x512xf32>) -> (tensor<16x512xf32>, tensor<16x512xi1>)
  %s1 = echo.reduce_sum %y1 dims = [0, 1, 2, 3] : (tensor<64x32x3x3xf32>) -> tensor<f32>
  %s2 = echo.reduce_sum %y2 dims = [0, 1, 2] : (tensor<1024x2x2xf32>) -> tensor<f32>
  %s3 = echo.reduce_sum %y3 dims = [0, 1] : (tensor<16x512xf32>) -> tensor<f32>
  %a = echo.add %s1, %s2 : tensor<f32>
  %l = echo.add %a, %s3 : tensor<f32>
  return %l : tensor<f32>
}

func.func @recomputed(%x: tensor<8x4x6x6xf32>, %t: tensor<8x4x6x6xf32>,
                      %w1: tensor<4x4x3x3xf32> {echo.param},
                      %w2: tensor<4x4x3x3xf32> {echo.param}) -> tensor<f32> {
  %c1 = echo.conv2d %x, %w1 {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<8x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<8x4x6x6xf32>
  %d, %m = "echo.dropout"(%c1) {broadcast_dims = array<i64: 2, 3>, ratio = 2.500000e-01 : f64, seed = 5 : i64} : (tensor<8x4x6x6xf32>) -> (tensor<8x4x6x6xf32>, tensor<8x4x6x6xi1>)
  %a = echo.tanh %d : tensor<8x4x6x6xf32>
  %c2 = echo.conv2d %a, %w2 {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<8x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<8x4x6x6xf32>
  %e, %n = "echo.dropout"(%c2) {broadcast_dims = array<i64: 1, 2, 3>, ratio = 5.000000e-01 : f64, seed = 6 : i64} : (tensor<8x4x6x6xf32>) -> (tensor<8x4x6x6xf32>, tensor<8x4x6x6xi1>)
  %b = echo.tanh %e : tensor<8x4x6x6xf32>
  %l = echo.mse_loss %b, %t : (tensor<8x4x6x6xf32>, tensor<8x4x6x6xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
