// An output layer without bias whose weight is [C, H] (transpose_b), as the
// PyTorch importer emits nn.Linear(bias=False), with the importer's pair of
// reshapes around the module's output (chunk-loss.test).
func.func @matmul_transposed(%x: tensor<4x16x32xf32>, %labels: tensor<64xi32>,
                             %w: tensor<300x32xf32> {echo.param}) -> tensor<f32> {
  %x2 = "echo.reshape"(%x) : (tensor<4x16x32xf32>) -> tensor<64x32xf32>
  %h = "echo.sigmoid"(%x2) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %z = "echo.matmul"(%h, %w) {transpose_b = true} : (tensor<64x32xf32>, tensor<300x32xf32>) -> tensor<64x300xf32>
  %z3 = "echo.reshape"(%z) : (tensor<64x300xf32>) -> tensor<4x16x300xf32>
  %z2 = "echo.reshape"(%z3) : (tensor<4x16x300xf32>) -> tensor<64x300xf32>
  %l = "echo.cross_entropy"(%z2, %labels) : (tensor<64x300xf32>, tensor<64xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
