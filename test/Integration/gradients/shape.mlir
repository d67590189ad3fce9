// Gradient check of slice (slice_grad), concat, reshape and transpose, and
// of dropout (dropout_grad), whose mask is a pure function of (seed, index)
// so the finite differences see the same mask as the step.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK-COUNT-2: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @shapes(%x: tensor<4x6xf32>, %t: tensor<3x8xf32>,
                  %a: tensor<4x6xf32> {echo.param},
                  %c: tensor<4x2xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.mul %x, %a : tensor<4x6xf32>
  %1 = echo.slice %0 {offsets = array<i64: 0, 1>, sizes = array<i64: 4, 4>} : (tensor<4x6xf32>) -> tensor<4x4xf32>
  %2 = echo.concat %1, %c, %c {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x8xf32>
  %3 = echo.transpose %2 {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %4 = echo.reshape %3 : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %5 = echo.slice %4 {offsets = array<i64: 1, 0>, sizes = array<i64: 3, 8>} : (tensor<4x8xf32>) -> tensor<3x8xf32>
  %6 = echo.tanh %5 : tensor<3x8xf32>
  %7, %mask = echo.dropout %6 {ratio = 3.000000e-01 : f64, seed = 11 : i64} : (tensor<3x8xf32>) -> (tensor<3x8xf32>, tensor<3x8xi1>)
  %loss = echo.mse_loss %7, %t : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
