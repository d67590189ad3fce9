// Transposed convolutions as a decoder runs them: 3x3 stride 2 with padding
// and output_padding (a last row and column no window reaches), then a
// grouped 2x2 stride 2; every cuDNN call of the step.
func.func @decoder(%x: tensor<2x8x4x4xf32>, %w1: tensor<8x4x3x3xf32> {echo.param},
                   %w2: tensor<4x1x2x2xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.conv_transpose2d"(%x, %w1) {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1 = echo.tanh %0 : tensor<2x4x8x8xf32>
  %2 = "echo.conv_transpose2d"(%1, %w2) {groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x4x8x8xf32>, tensor<4x1x2x2xf32>) -> tensor<2x2x16x16xf32>
  %l = echo.reduce_sum %2 dims = [0, 1, 2, 3] : (tensor<2x2x16x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
