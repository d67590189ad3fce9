// The check compares the f32 gradients with the same step run in f64, so
// that f32 arithmetic gone wrong is caught even where the mathematics is
// right: this hand-written training step computes the gradient 2w as
// ((w + 1e8) - 1e8) * 2, exact in f64, all rounding in f32 (w is below the
// f32 ulp of 1e8). The f64 step passes finite differences; the f32 step is
// named, with the f64 value beside it.
// RUN: not echo-run %s --check-gradients 2>&1 | FileCheck %s
// CHECK: gradient check: param 0 (argument 0): rel err {{.*}} over 4 elements; f32 against the f64 step 1.000000e+00 FAILED
// CHECK: echo-run: the f32 gradient of parameter 0 (argument 0) differs from the same step's in f64: relative error 1.000000e+00 > 1.000000e-03 (worst element {{[0-3]}}: f32 0.000000e+00, f64 {{.*}})
// CHECK-NOT: is wrong

func.func @f(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.mul %w, %w : tensor<4xf32>
  %l = echo.reduce_sum %0 dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @f_train(%w: tensor<4xf32> {echo.param})
    -> (tensor<f32>, tensor<4xf32>) attributes {echo.train_step} {
  %0 = echo.mul %w, %w : tensor<4xf32>
  %l = echo.reduce_sum %0 dims = [0] : (tensor<4xf32>) -> tensor<f32>
  %big = arith.constant dense<1.0e8> : tensor<4xf32>
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %1 = echo.add %w, %big : tensor<4xf32>
  %2 = echo.sub %1, %big : tensor<4xf32>
  %g = echo.mul %2, %two : tensor<4xf32>
  return %l, %g : tensor<f32>, tensor<4xf32>
}
