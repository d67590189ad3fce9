// A cross-entropy that ignores rows (ignore_index = 3: one class of the
// drawn labels, whose rows count for nothing) with label smoothing, over an
// output layer that the chunked loss cuts (chunk-loss.test, check-gradients
// in cross-entropy-options.test).
func.func @ignore_smoothing(%x: tensor<64x16xf32>, %labels: tensor<64xi32>,
                            %w0: tensor<32x16xf32> {echo.param},
                            %w: tensor<10x32xf32> {echo.param},
                            %b: tensor<10xf32> {echo.param}) -> tensor<f32> {
  %h0 = "echo.matmul"(%x, %w0) {transpose_b = true} : (tensor<64x16xf32>, tensor<32x16xf32>) -> tensor<64x32xf32>
  %h = "echo.tanh"(%h0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %z = "echo.linear"(%h, %w, %b) : (tensor<64x32xf32>, tensor<10x32xf32>, tensor<10xf32>) -> tensor<64x10xf32>
  %l = "echo.cross_entropy"(%z, %labels) {ignore_index = 3 : i64, label_smoothing = 1.000000e-01 : f64} : (tensor<64x10xf32>, tensor<64xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
