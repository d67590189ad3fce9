// A dense, non-splat tensor constant.
func.func @dense(%x: tensor<2x3xf32>, %w: tensor<3x3xf32> {echo.param}) -> tensor<f32> {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = echo.matmul %x, %w : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %1 = echo.mul %0, %c : tensor<2x3xf32>
  %l = echo.reduce_sum %1 dims = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
