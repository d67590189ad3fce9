// Gradient check of the pooling options: ceil_mode max and average pooling
// (a last window clipped at the input's end, or dropped where it would
// start in the padding), count_include_pad with and without ceil_mode, and
// adaptive average pooling that shrinks (7x7 -> 3x3, 5x5 -> 2x2, windows
// overlapping) and grows (2x2 -> 7x7, as vgg's head at a 64x64 input).
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK-COUNT-4: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @pools(%t1: tensor<2x3x4x4xf32>, %t2: tensor<2x3x4x4xf32>,
                 %t3: tensor<2x3x3x3xf32>, %t4: tensor<2x3x2x2xf32>,
                 %t5: tensor<2x3x7x7xf32>,
                 %x: tensor<2x3x7x7xf32> {echo.param},
                 %y: tensor<2x3x6x6xf32> {echo.param},
                 %z: tensor<2x3x5x5xf32> {echo.param},
                 %v: tensor<2x3x2x2xf32> {echo.param}) -> tensor<f32> {
  // 7 rows, k 2, s 2, ceil: 4 windows, the last [6, 8) clipped to row 6.
  %0 = "echo.max_pool2d"(%x) {ceil_mode = true, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x4x4xf32>
  %l0 = echo.mse_loss %0, %t1 : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  // 7 rows, k 2, s 2, pad 1, ceil: a fifth window would start at row 7, in
  // the padding: dropped.
  %1 = "echo.avg_pool2d"(%x) {ceil_mode = true, count_include_pad = true, kernel = array<i64: 2, 2>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x4x4xf32>
  %l1 = echo.mse_loss %1, %t2 : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  // 6 rows, k 3, s 2, pad 1, ceil: the last window [5, 8) counts 2 rows
  // with the padding and 1 without.
  %2 = "echo.avg_pool2d"(%y) {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x6x6xf32>) -> tensor<2x3x4x4xf32>
  %l2 = echo.mse_loss %2, %t1 : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  %3 = "echo.avg_pool2d"(%y) {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x6x6xf32>) -> tensor<2x3x4x4xf32>
  %l3 = echo.mse_loss %3, %t2 : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  %4 = "echo.max_pool2d"(%y) {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x6x6xf32>) -> tensor<2x3x4x4xf32>
  %l4 = echo.mse_loss %4, %t1 : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  // Without ceil_mode, count_include_pad alone.
  %5 = "echo.avg_pool2d"(%z) {count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x5x5xf32>) -> tensor<2x3x3x3xf32>
  %l5 = echo.mse_loss %5, %t3 : (tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<f32>
  // Adaptive: 7x7 -> 3x3, 5x5 -> 2x2, 2x2 -> 7x7.
  %6 = "echo.adaptive_avg_pool2d"(%x) {output_size = array<i64: 3, 3>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x3x3xf32>
  %l6 = echo.mse_loss %6, %t3 : (tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<f32>
  %7 = "echo.adaptive_avg_pool2d"(%z) {output_size = array<i64: 2, 2>} : (tensor<2x3x5x5xf32>) -> tensor<2x3x2x2xf32>
  %l7 = echo.mse_loss %7, %t4 : (tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>) -> tensor<f32>
  %8 = "echo.adaptive_avg_pool2d"(%v) {output_size = array<i64: 7, 7>} : (tensor<2x3x2x2xf32>) -> tensor<2x3x7x7xf32>
  %l8 = echo.mse_loss %8, %t5 : (tensor<2x3x7x7xf32>, tensor<2x3x7x7xf32>) -> tensor<f32>
  %s0 = echo.add %l0, %l1 : tensor<f32>
  %s1 = echo.add %s0, %l2 : tensor<f32>
  %s2 = echo.add %s1, %l3 : tensor<f32>
  %s3 = echo.add %s2, %l4 : tensor<f32>
  %s4 = echo.add %s3, %l5 : tensor<f32>
  %s5 = echo.add %s4, %l6 : tensor<f32>
  %s6 = echo.add %s5, %l7 : tensor<f32>
  %loss = echo.add %s6, %l8 : tensor<f32>
  return %loss : tensor<f32>
}
