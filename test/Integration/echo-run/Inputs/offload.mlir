// Three 256x256 matmul+tanh layers (offload tests; see
// Transforms/echo-recompute/offload.mlir).
func.func @chain(%x: tensor<256x256xf32>, %w1: tensor<256x256xf32> {echo.param}, %w2: tensor<256x256xf32> {echo.param}, %w3: tensor<256x256xf32> {echo.param}) -> tensor<f32> {
  %h1 = echo.matmul %x, %w1 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %a1 = echo.tanh %h1 : tensor<256x256xf32>
  %h2 = echo.matmul %a1, %w2 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %a2 = echo.tanh %h2 : tensor<256x256xf32>
  %h3 = echo.matmul %a2, %w3 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %a3 = echo.tanh %h3 : tensor<256x256xf32>
  %l = echo.reduce_sum %a3 dims = [0, 1] : (tensor<256x256xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
