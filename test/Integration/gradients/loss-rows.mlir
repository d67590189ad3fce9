// Gradient check of the per-row cross-entropy (cross_entropy_rows_grad):
// rows weighted by a parameter-dependent factor, with an ignored label,
// with and without label smoothing, under each strategy.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --strategy=none | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --strategy=mirror | FileCheck %s
// CHECK-COUNT-2: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @rows(%x: tensor<6x5xf32>, %labels: tensor<6xi32>,
                %w: tensor<4x5xf32> {echo.param},
                %v: tensor<6x5xf32> {echo.param}) -> tensor<f32> {
  %logits = echo.matmul %x, %w {transpose_b = true} : (tensor<6x5xf32>, tensor<4x5xf32>) -> tensor<6x4xf32>
  %r = echo.cross_entropy_rows %logits, %labels {ignore_index = -100 : i64} : (tensor<6x4xf32>, tensor<6xi32>) -> tensor<6xf32>
  %s = echo.cross_entropy_rows %logits, %labels {label_smoothing = 0.2 : f64} : (tensor<6x4xf32>, tensor<6xi32>) -> tensor<6xf32>
  %xv = echo.mul %x, %v : tensor<6x5xf32>
  %k = echo.reduce_sum %xv dims = [1] : (tensor<6x5xf32>) -> tensor<6xf32>
  %t = echo.tanh %k : tensor<6xf32>
  %rk = echo.mul %r, %t : tensor<6xf32>
  %sk = echo.mul %s, %s : tensor<6xf32>
  %a = echo.add %rk, %sk : tensor<6xf32>
  %loss = echo.reduce_sum %a dims = [0] : (tensor<6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
