// An output layer as a matmul plus a broadcast bias, over logits large
// enough that chunking them lowers the planned step (chunk-loss.test).
func.func @matmul_bias(%x: tensor<256x32xf32>, %labels: tensor<256xi32>,
                       %w0: tensor<32x64xf32> {echo.param},
                       %w: tensor<64x1000xf32> {echo.param},
                       %b: tensor<1000xf32> {echo.param}) -> tensor<f32> {
  %h0 = "echo.matmul"(%x, %w0) : (tensor<256x32xf32>, tensor<32x64xf32>) -> tensor<256x64xf32>
  %h = "echo.tanh"(%h0) : (tensor<256x64xf32>) -> tensor<256x64xf32>
  %m = "echo.matmul"(%h, %w) : (tensor<256x64xf32>, tensor<64x1000xf32>) -> tensor<256x1000xf32>
  %bb = "echo.broadcast"(%b) {dimensions = array<i64: 0>} : (tensor<1000xf32>) -> tensor<256x1000xf32>
  %z = "echo.add"(%m, %bb) : (tensor<256x1000xf32>, tensor<256x1000xf32>) -> tensor<256x1000xf32>
  %l = "echo.cross_entropy"(%z, %labels) : (tensor<256x1000xf32>, tensor<256xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
