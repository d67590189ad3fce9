// Gradient check of the matmul family: matmul with every transpose
// combination, batch_matmul with transposes, linear.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK-COUNT-5: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @matmuls(%x: tensor<4x6xf32>, %t: tensor<4x5xf32>,
                   %w: tensor<5x6xf32> {echo.param},
                   %b: tensor<5xf32> {echo.param},
                   %m: tensor<6x6xf32> {echo.param},
                   %p: tensor<2x3x6xf32> {echo.param},
                   %q: tensor<2x6x3xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.matmul %x, %m : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %1 = echo.matmul %0, %m {transpose_b = true} : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %2 = echo.transpose %1 {permutation = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %3 = echo.matmul %2, %m {transpose_a = true} : (tensor<6x4xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %4 = echo.matmul %2, %m {transpose_a = true, transpose_b = true} : (tensor<6x4xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %5 = echo.add %3, %4 : tensor<4x6xf32>
  %6 = echo.tanh %5 : tensor<4x6xf32>
  %y = echo.linear %6, %w, %b : (tensor<4x6xf32>, tensor<5x6xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  // Batched: [2,3,6] x [2,6,3]^T-combinations.
  %pq = echo.batch_matmul %p, %q : (tensor<2x3x6xf32>, tensor<2x6x3xf32>) -> tensor<2x3x3xf32>
  %pp = echo.batch_matmul %p, %p {transpose_b = true} : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x3xf32>
  %qq = echo.batch_matmul %q, %q {transpose_a = true} : (tensor<2x6x3xf32>, tensor<2x6x3xf32>) -> tensor<2x3x3xf32>
  %s0 = echo.add %pq, %pp : tensor<2x3x3xf32>
  %s1 = echo.add %s0, %qq : tensor<2x3x3xf32>
  %r = echo.reduce_sum %s1 dims = [0, 1, 2] : (tensor<2x3x3xf32>) -> tensor<f32>
  %mse = echo.mse_loss %y, %t : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<f32>
  %rs = echo.mul %r, %r : tensor<f32>
  %loss = echo.add %mse, %rs : tensor<f32>
  return %loss : tensor<f32>
}
