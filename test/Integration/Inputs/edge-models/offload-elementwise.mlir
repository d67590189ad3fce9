// Six elementwise layers (no library call): host offload on the CUDA
// runtime with the fake driver (cuda/offload.test).
func.func @ew(%x: tensor<64x64xf32>, %w: tensor<64x64xf32> {echo.param}) -> tensor<f32> {
  %h1 = echo.mul %x, %w : tensor<64x64xf32>
  %a1 = echo.tanh %h1 : tensor<64x64xf32>
  %h2 = echo.mul %a1, %w : tensor<64x64xf32>
  %a2 = echo.tanh %h2 : tensor<64x64xf32>
  %h3 = echo.mul %a2, %w : tensor<64x64xf32>
  %a3 = echo.tanh %h3 : tensor<64x64xf32>
  %h4 = echo.mul %a3, %w : tensor<64x64xf32>
  %a4 = echo.tanh %h4 : tensor<64x64xf32>
  %h5 = echo.mul %a4, %w : tensor<64x64xf32>
  %a5 = echo.tanh %h5 : tensor<64x64xf32>
  %h6 = echo.mul %a5, %w : tensor<64x64xf32>
  %a6 = echo.tanh %h6 : tensor<64x64xf32>
  %l = echo.reduce_sum %a6 dims = [0, 1] : (tensor<64x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
