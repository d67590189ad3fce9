// RUN: echo-opt %s --echo-strip-markers | FileCheck %s

// CHECK-LABEL: func.func @f_train(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<f32> {
// CHECK-NOT: echo.param
// CHECK-NOT: echo.train_step
// CHECK: echo.mul
func.func @f_train(%x: tensor<4xf32>, %w: tensor<4xf32> {echo.param}) -> tensor<f32>
    attributes {echo.train_step} {
  %0 = echo.mul %x, %w : tensor<4xf32>
  %1 = echo.reduce_sum %0 dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
