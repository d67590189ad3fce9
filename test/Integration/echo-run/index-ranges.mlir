// echo-run draws integer data inside the range its uses accept
// (IndexOperandOpInterface): embedding ids in [0, V), labels in [0, C). The
// gradients reveal the draws: row v of d(table) counts the ids equal to v,
// and the one negative entry of each row of d(logits) sits at its label.
// RUN: rm -rf %t && echo-run %s --dump=%t | FileCheck %s
// CHECK: step 0 loss
// RUN: %python %S/Inputs/check_index_ranges.py %t

func.func @ranges(%ids: tensor<64xi32>, %labels: tensor<64xi32>,
                  %table: tensor<3x1xf32> {echo.param},
                  %logits: tensor<64x5xf32> {echo.param}) -> tensor<f32> {
  %e = echo.embedding %ids, %table : (tensor<64xi32>, tensor<3x1xf32>) -> tensor<64x1xf32>
  %s = echo.reduce_sum %e dims = [0, 1] : (tensor<64x1xf32>) -> tensor<f32>
  %ce = echo.cross_entropy %logits, %labels : (tensor<64x5xf32>, tensor<64xi32>) -> tensor<f32>
  %l = echo.add %s, %ce : tensor<f32>
  return %l : tensor<f32>
}
