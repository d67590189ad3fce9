// echo-autodiff loss-scale: the step takes the loss's adjoint as a trailing
// 0-d f32 argument (dynamic loss scaling), so every gradient comes out
// multiplied by it; without the option the adjoint is the constant 1.
// RUN: echo-opt %s -echo-autodiff="loss-scale=true" | FileCheck %s
// RUN: echo-opt %s -echo-autodiff="loss-scale=false" | FileCheck %s --check-prefix=ONE
// RUN: not echo-opt %s -echo-autodiff="loss-scale=true optimizer=sgd" 2>&1 | FileCheck %s --check-prefix=SGD

// CHECK-LABEL: func.func @f_train
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32> {echo.param}, %[[S:.*]]: tensor<f32> {echo.hyper = "loss_scale"})
// CHECK: %[[B:.*]] = echo.broadcast %[[S]] dims = [0]
// CHECK: %[[G:.*]] = echo.mul %[[B]], %[[X]]
// CHECK: return %{{.*}}, %[[G]]
// ONE-LABEL: func.func @f_train
// ONE-SAME: (%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32> {echo.param}) ->
// ONE: arith.constant dense<1.000000e+00> : tensor<f32>
// SGD: error: echo-autodiff: loss-scale needs optimizer=none
func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.mul"(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = "echo.reduce_sum"(%0) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
