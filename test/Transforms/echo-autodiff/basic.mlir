// RUN: echo-opt %s -echo-autodiff | FileCheck %s

// The model is left unchanged; @f_train follows it.
// CHECK-LABEL: func.func @f(
// CHECK-NOT: _grad
// CHECK: return %{{.*}} : tensor<f32>

// Same arguments; returns the loss and one gradient per echo.param argument,
// in argument order.
// CHECK-LABEL: func.func @f_train(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x4xf32>, %[[W1:[^:]*]]: tensor<16x4xf32> {echo.param}, %[[B1:[^:]*]]: tensor<16xf32> {echo.param},
// CHECK-SAME: %[[Y:[^:]*]]: tensor<8xi32>, %[[W2:[^:]*]]: tensor<3x16xf32> {echo.param}, %[[B2:[^:]*]]: tensor<3xf32> {echo.param})
// CHECK-SAME: -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>)
// CHECK-SAME: attributes {echo.train_step}
// CHECK: %[[H:.*]] = echo.linear %[[X]], %[[W1]], %[[B1]]
// CHECK: %[[T:.*]] = echo.tanh %[[H]]
// CHECK: %[[O:.*]] = echo.linear %[[T]], %[[W2]], %[[B2]]
// CHECK: %[[L:.*]] = echo.cross_entropy %[[O]], %[[Y]]
// The backward pass starts from an adjoint of 1 for the loss.
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DO:.*]] = echo.cross_entropy_grad %[[O]], %[[Y]], %[[ONE]]
// linear's adjoints read its inputs (T, W2), never its output O.
// CHECK: %[[DT:.*]] = echo.matmul %[[DO]], %[[W2]] :
// CHECK: %[[DW2:.*]] = echo.matmul %[[DO]], %[[T]] {transpose_a = true}
// CHECK: %[[DB2:.*]] = echo.reduce_sum %[[DO]] dims = [0]
// tanh's adjoint reads its output T, not its input H.
// CHECK: %[[DH:.*]] = echo.tanh_grad %[[T]], %[[DT]]
// The data input X gets no adjoint: no matmul of DH with W1.
// CHECK-NOT: echo.matmul %[[DH]], %[[W1]]
// CHECK: %[[DW1:.*]] = echo.matmul %[[DH]], %[[X]] {transpose_a = true}
// CHECK: %[[DB1:.*]] = echo.reduce_sum %[[DH]] dims = [0]
// CHECK: return %[[L]], %[[DW1]], %[[DB1]], %[[DW2]], %[[DB2]]
func.func @f(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32> {echo.param}, %b1: tensor<16xf32> {echo.param},
             %y: tensor<8xi32>, %w2: tensor<3x16xf32> {echo.param}, %b2: tensor<3xf32> {echo.param}) -> tensor<f32> {
  %h = "echo.linear"(%x, %w1, %b1) : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %t = "echo.tanh"(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = "echo.linear"(%t, %w2, %b2) : (tensor<8x16xf32>, tensor<3x16xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %l = "echo.cross_entropy"(%o, %y) : (tensor<8x3xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
