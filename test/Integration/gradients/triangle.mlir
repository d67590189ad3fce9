// Gradient check of materialized attention masked by echo.triangle (what
// the importer writes for a causal mask when it is not fused): the select
// of masked_fill with an i1 triangle broadcast over the batch, and an
// additive f32 triangle. The triangles run as generated code (a generic on
// linalg.index) with and without the library calls.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --library-calls=false | FileCheck %s
// CHECK-COUNT-3: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @masked(%t: tensor<2x6x4xf32>,
                  %q: tensor<2x6x4xf32> {echo.param},
                  %k: tensor<2x6x4xf32> {echo.param},
                  %v: tensor<2x6x4xf32> {echo.param}) -> tensor<f32> {
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x6x4xf32>, tensor<2x6x4xf32>) -> tensor<2x6x6xf32>
  %drop = echo.triangle lower diagonal 0 inside 0.0 outside 1.0 : tensor<6x6xi1>
  %db = echo.broadcast %drop dims = [0] : (tensor<6x6xi1>) -> tensor<2x6x6xi1>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x6x6xf32>
  %x = echo.select %db, %ninf, %s : tensor<2x6x6xi1>, tensor<2x6x6xf32>
  %bias = echo.triangle upper diagonal -2 inside 5.000000e-01 outside 0.0 : tensor<1x6x6xf32>
  %b2 = echo.reshape %bias : (tensor<1x6x6xf32>) -> tensor<6x6xf32>
  %bb = echo.broadcast %b2 dims = [0] : (tensor<6x6xf32>) -> tensor<2x6x6xf32>
  %y = echo.add %x, %bb : tensor<2x6x6xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x6x6xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x6x6xf32>, tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %loss = echo.mse_loss %o, %t : (tensor<2x6x4xf32>, tensor<2x6x4xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
