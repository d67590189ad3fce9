// Kernels large enough to be split across threads (at least 65,536 loop
// iterations): a convolution's batch norm, ReLU and pooling on
// [16, 16, 32, 32], a tanh on [16, 4096] and the classifier's loss, with
// their gradients: threads.test.
func.func @threads(%x: tensor<16x3x32x32xf32>, %labels: tensor<16xi32>,
    %w: tensor<16x3x3x3xf32> {echo.param}, %g: tensor<16xf32> {echo.param},
    %b: tensor<16xf32> {echo.param},
    %wl: tensor<10x4096xf32> {echo.param}, %bl: tensor<10xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.conv2d"(%x, %w) {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<16x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<16x16x32x32xf32>
  %1 = "echo.batch_norm"(%0, %g, %b) {epsilon = 1.000000e-05 : f64} : (tensor<16x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16x16x32x32xf32>
  %2 = "echo.relu"(%1) : (tensor<16x16x32x32xf32>) -> tensor<16x16x32x32xf32>
  %3 = "echo.max_pool2d"(%2) {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<16x16x32x32xf32>) -> tensor<16x16x16x16xf32>
  %4 = "echo.reshape"(%3) : (tensor<16x16x16x16xf32>) -> tensor<16x4096xf32>
  %5 = "echo.tanh"(%4) : (tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %6 = "echo.linear"(%5, %wl, %bl) : (tensor<16x4096xf32>, tensor<10x4096xf32>, tensor<10xf32>) -> tensor<16x10xf32>
  %loss = "echo.cross_entropy"(%6, %labels) : (tensor<16x10xf32>, tensor<16xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
