// Gradient check of batch_norm (rank 4 and rank 2) and layer_norm, with
// their gradient ops.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK-COUNT-7: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @norms(%x: tensor<2x3x4x4xf32>, %y: tensor<5x6xf32>,
                 %t: tensor<5x6xf32>,
                 %a: tensor<2x3x4x4xf32> {echo.param},
                 %g: tensor<3xf32> {echo.param}, %b: tensor<3xf32> {echo.param},
                 %g2: tensor<6xf32> {echo.param}, %b2: tensor<6xf32> {echo.param},
                 %g3: tensor<6xf32> {echo.param}, %b3: tensor<6xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.mul %x, %a : tensor<2x3x4x4xf32>
  %1 = echo.batch_norm %0, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %2 = echo.tanh %1 : tensor<2x3x4x4xf32>
  %s = echo.reduce_sum %2 dims = [0, 1, 2, 3] : (tensor<2x3x4x4xf32>) -> tensor<f32>
  %3 = echo.batch_norm %y, %g2, %b2 {epsilon = 1.000000e-03 : f64} : (tensor<5x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<5x6xf32>
  %4 = echo.tanh %3 : tensor<5x6xf32>
  %5 = echo.layer_norm %4, %g3, %b3 {epsilon = 1.000000e-05 : f64} : (tensor<5x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<5x6xf32>
  %6 = echo.tanh %5 : tensor<5x6xf32>
  %mse = echo.mse_loss %6, %t : (tensor<5x6xf32>, tensor<5x6xf32>) -> tensor<f32>
  %ss = echo.mul %s, %s : tensor<f32>
  %loss = echo.add %mse, %ss : tensor<f32>
  return %loss : tensor<f32>
}
