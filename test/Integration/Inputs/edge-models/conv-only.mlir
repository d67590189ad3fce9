// One convolution and a sum: its step calls cuDNN only (forward, backward
// data is not needed for the data, backward filter for the weight).
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32> {echo.param}, %w2: tensor<4x4x3x3xf32> {echo.param}) -> tensor<f32> {
  %y = echo.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %t = echo.tanh %y : tensor<2x4x8x8xf32>
  %z = echo.conv2d %t, %w2 {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  %l = echo.reduce_sum %z dims = [0, 1, 2, 3] : (tensor<2x4x8x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
