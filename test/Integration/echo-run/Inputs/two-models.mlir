func.func @a(%w: tensor<3xf32> {echo.param}) -> tensor<f32> {
  %l = echo.reduce_sum %w dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @b(%w: tensor<3xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.mul %w, %w : tensor<3xf32>
  %l = echo.reduce_sum %0 dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
