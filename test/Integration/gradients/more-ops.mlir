// Gradient check of the ops of EchoMoreOps.td that have gradients, in a
// small decoder: transposed convolutions (stride 2 with padding and
// output_padding, plain, grouped), nearest and bilinear upsampling (with
// and without align_corners, up and down, with PyTorch's scale factors),
// sin and cos. The transposed convolutions run as oneDNN's backward data
// and as generated code. (A stop-gradient changes the gradient away from
// the loss's finite differences on purpose: see
// Transforms/echo-autodiff/stop-gradient.mlir and torch-more-ops.test.)
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --library-calls=false | FileCheck %s
// CHECK-COUNT-3: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @decoder(%x: tensor<2x4x3x3xf32>, %t: tensor<2x2x5x5xf32>,
                   %w1: tensor<4x3x3x3xf32> {echo.param},
                   %w2: tensor<3x2x2x2xf32> {echo.param},
                   %w3: tensor<2x1x1x1xf32> {echo.param}) -> tensor<f32> {
  // (3 − 1)·2 − 2 + 3 + 1 = 6.
  %0 = echo.conv_transpose2d %x, %w1 {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x3x3xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x6x6xf32>
  %1 = echo.sin %0 : tensor<2x3x6x6xf32>
  // Nearest down by PyTorch's scale 0.6 (6 → 3 rows), bilinear back up.
  %2 = echo.upsample_nearest2d %1 {scales_h = 0.6 : f64, scales_w = 0.6 : f64} : (tensor<2x3x6x6xf32>) -> tensor<2x3x3x3xf32>
  %3 = echo.upsample_bilinear2d %2 : (tensor<2x3x3x3xf32>) -> tensor<2x3x7x5xf32>
  %4 = echo.cos %3 : tensor<2x3x7x5xf32>
  // 2x2, stride 1: 7x5 → 8x6.
  %5 = echo.conv_transpose2d %4, %w2 {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x7x5xf32>, tensor<3x2x2x2xf32>) -> tensor<2x2x8x6xf32>
  %6 = echo.upsample_bilinear2d %5 {align_corners = true} : (tensor<2x2x8x6xf32>) -> tensor<2x2x5x5xf32>
  // Two groups of one channel, 1x1.
  %7 = echo.conv_transpose2d %6, %w3 {groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x2x5x5xf32>, tensor<2x1x1x1xf32>) -> tensor<2x2x5x5xf32>
  %8 = echo.upsample_nearest2d %7 : (tensor<2x2x5x5xf32>) -> tensor<2x2x10x10xf32>
  %9 = echo.upsample_bilinear2d %8 {scales_h = 0.5 : f64, scales_w = 0.5 : f64} : (tensor<2x2x10x10xf32>) -> tensor<2x2x5x5xf32>
  %loss = echo.mse_loss %9, %t : (tensor<2x2x5x5xf32>, tensor<2x2x5x5xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
