// Additive attention (Fig. 8 of the Echo paper): tanh of a broadcast sum.
func.func @attn(%q: tensor<4x64xf32>, %keys: tensor<4x32x64xf32>, %labels: tensor<4xi32>,
                %wq: tensor<64x64xf32> {echo.param}, %v: tensor<64xf32> {echo.param},
                %wo: tensor<10x32xf32> {echo.param}, %bo: tensor<10xf32> {echo.param}) -> tensor<f32> {
  %qp = echo.matmul %q, %wq : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %qb = "echo.broadcast"(%qp) {dimensions = array<i64: 1>} : (tensor<4x64xf32>) -> tensor<4x32x64xf32>
  %s = echo.add %qb, %keys : tensor<4x32x64xf32>
  %t = echo.tanh %s : tensor<4x32x64xf32>
  %vb = "echo.broadcast"(%v) {dimensions = array<i64: 0, 1>} : (tensor<64xf32>) -> tensor<4x32x64xf32>
  %m = echo.mul %t, %vb : tensor<4x32x64xf32>
  %e = echo.reduce_sum %m dims = [2] : (tensor<4x32x64xf32>) -> tensor<4x32xf32>
  %a = "echo.softmax"(%e) {axis = 1 : i64} : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %o = "echo.linear"(%a, %wo, %bo) : (tensor<4x32xf32>, tensor<10x32xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %l = "echo.cross_entropy"(%o, %labels) : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
