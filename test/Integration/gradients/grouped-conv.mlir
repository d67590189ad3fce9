// Gradient check of grouped convolution (groups 2, with stride and padding)
// and depthwise convolution (groups = C, two filters per channel), through
// both conv2d gradients: on the library path (oneDNN's grouped primitives)
// and on the generated one.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --library-calls=false | FileCheck %s
// CHECK-COUNT-3: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @grouped(%x: tensor<2x4x7x7xf32>, %t: tensor<2x12x3x3xf32>,
                   %w1: tensor<6x2x3x3xf32> {echo.param},
                   %w2: tensor<12x1x3x3xf32> {echo.param},
                   %w3: tensor<12x6x2x2xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.conv2d"(%x, %w1) {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x7x7xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
  %1 = echo.tanh %0 : tensor<2x6x4x4xf32>
  // Depthwise with a channel multiplier of 2.
  %2 = "echo.conv2d"(%1, %w2) {groups = 6 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x4x4xf32>, tensor<12x1x3x3xf32>) -> tensor<2x12x4x4xf32>
  %3 = echo.tanh %2 : tensor<2x12x4x4xf32>
  %4 = "echo.conv2d"(%3, %w3) {groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x12x4x4xf32>, tensor<12x6x2x2xf32>) -> tensor<2x12x3x3xf32>
  %loss = echo.mse_loss %4, %t : (tensor<2x12x3x3xf32>, tensor<2x12x3x3xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
