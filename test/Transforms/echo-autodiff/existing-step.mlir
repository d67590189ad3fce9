// RUN: echo-opt %s --echo-autodiff | FileCheck %s
// RUN: echo-opt %s --echo-autodiff --echo-autodiff | FileCheck %s

// A model whose training step exists (marked echo.train_step) keeps it: the
// pass is idempotent and does not touch hand-written steps.
// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func @f_train(
// CHECK-NEXT: %[[L:.*]] = echo.reduce_sum
// CHECK-NEXT: return %[[L]], %{{.*}} : tensor<f32>, tensor<4xf32>
// CHECK-NOT: func.func
func.func @f(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %l = echo.reduce_sum %w dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @f_train(%w: tensor<4xf32> {echo.param}) -> (tensor<f32>, tensor<4xf32>)
    attributes {echo.train_step} {
  %l = echo.reduce_sum %w dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
