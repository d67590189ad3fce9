// Under autocast the gradients reach the f32 master weights through the
// cast's gradient: the step returns f32 gradients of f32 parameters, while
// the GEMMs of the backward pass run in bf16.
// RUN: echo-opt %s -echo-autocast -echo-autodiff | FileCheck %s

// CHECK-LABEL: func.func @mlp_train
// CHECK-SAME: -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>)
// CHECK: echo.cross_entropy {{.*}} : (tensor<8x16xbf16>, tensor<8xi32>) -> tensor<f32>
// CHECK: echo.matmul {{.*}} -> tensor<16x4xbf16>
// CHECK-DAG: %[[DW:.*]] = echo.cast %{{.*}} : tensor<16x4xbf16> to tensor<16x4xf32>
// CHECK-DAG: %[[DB:.*]] = echo.cast %{{.*}} : tensor<16xbf16> to tensor<16xf32>
// CHECK: return %{{.*}}, %[[DW]], %[[DB]] : tensor<f32>, tensor<16x4xf32>, tensor<16xf32>
func.func @mlp(%x: tensor<8x4xf32>, %labels: tensor<8xi32>,
               %w: tensor<16x4xf32> {echo.param},
               %b: tensor<16xf32> {echo.param}) -> tensor<f32> {
  %h = "echo.linear"(%x, %w, %b) : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r = "echo.relu"(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %l = "echo.cross_entropy"(%r, %labels) : (tensor<8x16xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
