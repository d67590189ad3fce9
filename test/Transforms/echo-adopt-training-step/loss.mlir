// loss= (JAX style): the forward pass is the loss's ancestors. A backward op
// written among them (the transpose of a weight that only the gradient
// reads) moves after every forward op; the first backward op that is not a
// constant opens the backward pass.
// RUN: echo-opt %s --echo-adopt-training-step="function=step loss=0" | FileCheck %s

// CHECK-LABEL: func.func @step
// CHECK-SAME: echo.adopted
// CHECK-SAME: echo.train_step
// CHECK: %[[H:.*]] = tosa.matmul
// CHECK-NEXT: %[[T:.*]] = tosa.tanh %[[H]]
// CHECK-NEXT: %[[L:.*]] = tosa.reduce_sum %[[T]]
// CHECK-NEXT: tosa.transpose %{{.*}} {echo.backward_begin
// CHECK: tosa.mul
// CHECK: return %[[L]]
func.func @step(%x: tensor<1x4x8xf32>, %w: tensor<1x8x8xf32>) -> (tensor<1x1x8xf32>, tensor<1x8x8xf32>) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %h = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %xt = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (tensor<1x4x8xf32>) -> tensor<1x8x4xf32>
  %t = tosa.tanh %h : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %loss = tosa.reduce_sum %t {axis = 1 : i32} : (tensor<1x4x8xf32>) -> tensor<1x1x8xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %t2 = tosa.mul %t, %t, %shift : (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  %dw = tosa.matmul %xt, %t2, %zp, %zp : (tensor<1x8x4xf32>, tensor<1x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  return %loss, %dw : tensor<1x1x8xf32>, tensor<1x8x8xf32>
}
