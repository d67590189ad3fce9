// The loss is the sum of two scalar losses (a 0-d add on the device).
func.func @two(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {echo.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = echo.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = echo.tanh %0 : tensor<4x8xf32>
  %l1 = echo.mse_loss %1, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  %l2 = echo.reduce_sum %1 dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  %l = echo.add %l1, %l2 : tensor<f32>
  return %l : tensor<f32>
}
