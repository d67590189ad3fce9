// RUN: echo-opt %s -echo-autodiff | FileCheck %s

// A stop-gradient's operand gets no adjoint, and nothing computed from its
// result is differentiated: the target branch (a BYOL/SimSiam-style
// detached projection) adds nothing to the gradient of %w, which comes from
// the online branch only, and no adjoint is built for the ops after the
// stop-gradient.
// CHECK-LABEL: func.func @target_train(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[T:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<8x8xf32> {echo.param}
// CHECK: %[[H:.*]] = echo.matmul %[[X]], %[[W]]
// CHECK: %[[S:.*]] = echo.stop_gradient %[[H]]
// CHECK: %[[TT:.*]] = echo.tanh %[[S]]
// CHECK: %[[D:.*]] = echo.sub %[[H]], %[[TT]]
// CHECK: %[[L:.*]] = echo.mse_loss %[[D]], %[[T]]
// CHECK: %[[DD:.*]] = echo.mse_loss_grad %[[D]], %[[T]]
// CHECK-NOT: echo.tanh_grad
// CHECK-NOT: echo.neg
// CHECK: %[[DW:.*]] = echo.matmul %[[X]], %[[DD]] {transpose_a = true}
// CHECK: return %[[L]], %[[DW]]
func.func @target(%x: tensor<4x8xf32>, %t: tensor<4x8xf32>,
                  %w: tensor<8x8xf32> {echo.param}) -> tensor<f32> {
  %h = echo.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = echo.stop_gradient %h : tensor<4x8xf32>
  %tt = echo.tanh %s : tensor<4x8xf32>
  %d = echo.sub %h, %tt : tensor<4x8xf32>
  %l = echo.mse_loss %d, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// A loss that reaches the parameters only through a stop-gradient has a
// zero gradient.
// CHECK-LABEL: func.func @all_stopped_train(
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<8x8xf32>
// CHECK-NOT: _grad
// CHECK: return %{{.*}}, %[[ZERO]]
func.func @all_stopped(%x: tensor<4x8xf32>, %t: tensor<4x8xf32>,
                       %w: tensor<8x8xf32> {echo.param}) -> tensor<f32> {
  %h = echo.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = echo.stop_gradient %h : tensor<4x8xf32>
  %l = echo.mse_loss %s, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
