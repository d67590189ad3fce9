// Gradient check of conv2d (conv2d_grad_input, conv2d_grad_filter) with
// stride and padding, max_pool2d and avg_pool2d (with padding excluded from
// the max and the count).
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK-COUNT-2: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @conv(%x: tensor<2x3x7x7xf32>, %t: tensor<2x4x2x2xf32>,
                %w1: tensor<4x3x3x3xf32> {echo.param},
                %w2: tensor<4x4x2x2xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.conv2d %x, %w1 {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  %1 = echo.tanh %0 : tensor<2x4x4x4xf32>
  %2 = echo.max_pool2d %1 {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %3 = echo.conv2d %2, %w2 {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x4x4xf32>, tensor<4x4x2x2xf32>) -> tensor<2x4x3x3xf32>
  %4 = echo.avg_pool2d %3 {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x3x3xf32>) -> tensor<2x4x2x2xf32>
  %loss = echo.mse_loss %4, %t : (tensor<2x4x2x2xf32>, tensor<2x4x2x2xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
