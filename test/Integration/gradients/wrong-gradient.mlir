// The check must be able to fail: this training step returns w instead of
// the true gradient 2w, and echo-run exits 1 naming the parameter.
// RUN: not echo-run %s --check-gradients 2>&1 | FileCheck %s
// CHECK: gradient check: param 0 (argument 0): rel err {{.*}} FAILED
// CHECK: echo-run: gradient of parameter 0 (argument 0) is wrong: relative error {{.*}} > 1.000000e-03

func.func @f(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.mul %w, %w : tensor<4xf32>
  %l = echo.reduce_sum %0 dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @f_train(%w: tensor<4xf32> {echo.param})
    -> (tensor<f32>, tensor<4xf32>) attributes {echo.train_step} {
  %0 = echo.mul %w, %w : tensor<4xf32>
  %l = echo.reduce_sum %0 dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
