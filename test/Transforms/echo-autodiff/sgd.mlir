// optimizer=sgd returns p - lr * dp instead of dp.
// RUN: echo-opt %s -echo-autodiff="optimizer=sgd lr=0.5" | FileCheck %s
// RUN: echo-opt %s -echo-autodiff="optimizer=none" | FileCheck %s --check-prefix=NONE
// RUN: not echo-opt %s -echo-autodiff="optimizer=lamb" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not echo-opt %s -echo-autodiff="optimizer=sgd lr=inf" 2>&1 | FileCheck %s --check-prefix=LRINF
// RUN: not echo-opt %s -echo-autodiff="optimizer=sgd lr=nan" 2>&1 | FileCheck %s --check-prefix=LRNAN
// LRINF: error: echo-autodiff: lr must be a finite number, got inf
// LRNAN: error: echo-autodiff: lr must be a finite number, got nan

// CHECK-LABEL: func.func @f_train(
// CHECK-SAME: %[[W:[^:]*]]: tensor<4xf32> {echo.param}) -> (tensor<f32>, tensor<4xf32>)
// CHECK: %[[DW:.*]] = echo.tanh_grad
// CHECK: %[[LR:.*]] = arith.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK: %[[STEP:.*]] = echo.mul %[[LR]], %[[DW]]
// CHECK: %[[NEW:.*]] = echo.sub %[[W]], %[[STEP]]
// CHECK: return %{{.*}}, %[[NEW]]

// NONE-LABEL: func.func @f_train(
// NONE: %[[DW:.*]] = echo.tanh_grad
// NONE-NEXT: return %{{.*}}, %[[DW]]

// BAD: for the --optimizer option: Cannot find option named 'lamb'!
func.func @f(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %t = "echo.tanh"(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %l = "echo.reduce_sum"(%t) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
