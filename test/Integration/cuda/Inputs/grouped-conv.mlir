// A grouped convolution (groups 2), a depthwise one (groups = C = 4, two
// filters per channel) and a dense one: every cuDNN call of the step.
func.func @grouped(%x: tensor<2x4x8x8xf32>, %w1: tensor<4x2x3x3xf32> {echo.param},
                   %w2: tensor<8x1x3x3xf32> {echo.param},
                   %w3: tensor<4x8x1x1xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.conv2d"(%x, %w1) {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1 = echo.tanh %0 : tensor<2x4x8x8xf32>
  %2 = "echo.conv2d"(%1, %w2) {groups = 4 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x4x4xf32>
  %3 = echo.tanh %2 : tensor<2x8x4x4xf32>
  %4 = "echo.conv2d"(%3, %w3) {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x8x4x4xf32>, tensor<4x8x1x1xf32>) -> tensor<2x4x4x4xf32>
  %l = echo.reduce_sum %4 dims = [0, 1, 2, 3] : (tensor<2x4x4x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
