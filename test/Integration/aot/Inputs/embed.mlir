// A small model with both kinds of bounded integer argument: embedding ids
// (< 12, the table's rows) and labels (< 5, the classes).
func.func @embed(%ids: tensor<4x6xi32>, %labels: tensor<4xi32>,
                 %table: tensor<12x8xf32> {echo.param},
                 %w: tensor<5x8xf32> {echo.param},
                 %b: tensor<5xf32> {echo.param}) -> tensor<f32> {
  %e = echo.embedding %ids, %table : (tensor<4x6xi32>, tensor<12x8xf32>) -> tensor<4x6x8xf32>
  %s = echo.reduce_sum %e dims = [1] : (tensor<4x6x8xf32>) -> tensor<4x8xf32>
  %h = echo.tanh %s : tensor<4x8xf32>
  %logits = "echo.linear"(%h, %w, %b) : (tensor<4x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %l = echo.cross_entropy %logits, %labels : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
