// RUN: echo-opt %s -echo-autodiff | FileCheck %s

// An attention-style masked fill (select of a constant where the mask is
// set) followed by the importer's activations. Each gradient op reads the
// forward input and carries the forward op's attributes; select's adjoint
// goes to the branch that depends on a parameter only (the constant's is
// dead and erased), and the i1 mask, a data argument, gets none.
// CHECK-LABEL: func.func @masked_train(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[M:[^:]*]]: tensor<4x8xi1>, %[[W:[^:]*]]: tensor<8x8xf32> {echo.param}
// CHECK: %[[H:.*]] = echo.matmul %[[X]], %[[W]]
// CHECK: %[[S:.*]] = echo.select %[[M]], %[[FILL:.*]], %[[H]]
// CHECK: %[[G:.*]] = echo.gelu %[[S]] {tanh_approximation = true}
// CHECK: %[[C:.*]] = echo.clamp %[[G]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK: %[[HS:.*]] = echo.hardswish %[[C]]
// CHECK: %[[DHS:.*]] = echo.mse_loss_grad
// CHECK: %[[DC:.*]] = echo.hardswish_grad %[[C]], %[[DHS]]
// CHECK: %[[DG:.*]] = echo.clamp_grad %[[G]], %[[DC]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK: %[[DS:.*]] = echo.gelu_grad %[[S]], %[[DG]] {tanh_approximation = true}
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK-NOT: echo.select %[[M]], %[[DS]], %[[Z]]
// CHECK: %[[DH:.*]] = echo.select %[[M]], %[[Z]], %[[DS]]
// CHECK: %[[DW:.*]] = echo.matmul %[[X]], %[[DH]] {transpose_a = true}
// CHECK: return %{{.*}}, %[[DW]]
func.func @masked(%x: tensor<4x8xf32>, %m: tensor<4x8xi1>, %w: tensor<8x8xf32> {echo.param},
                  %t: tensor<4x8xf32>) -> tensor<f32> {
  %h = "echo.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %fill = arith.constant dense<-1.0e+09> : tensor<4x8xf32>
  %s = "echo.select"(%m, %fill, %h) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = "echo.gelu"(%s) {tanh_approximation = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = "echo.clamp"(%g) {min = 0.0 : f64, max = 6.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %hs = "echo.hardswish"(%c) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = "echo.mse_loss"(%hs, %t) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
