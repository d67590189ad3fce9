// Gradient check of the elementwise family: add sub mul div neg exp log
// tanh sigmoid relu sqrt (and their gradient ops tanh_grad, sigmoid_grad,
// relu_grad).
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK-COUNT-2: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @elementwise(%x: tensor<4x6xf32>, %t: tensor<4x6xf32>,
                       %a: tensor<4x6xf32> {echo.param},
                       %b: tensor<4x6xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.mul %x, %a : tensor<4x6xf32>
  %1 = echo.add %0, %b : tensor<4x6xf32>
  %2 = echo.tanh %1 : tensor<4x6xf32>
  %3 = echo.sigmoid %1 : tensor<4x6xf32>
  %4 = echo.sub %2, %3 : tensor<4x6xf32>
  %5 = echo.exp %4 : tensor<4x6xf32>
  // log and sqrt of positive values; div by a value > 1.
  %6 = echo.log %5 : tensor<4x6xf32>
  %7 = echo.sqrt %5 : tensor<4x6xf32>
  %8 = echo.add %5, %7 : tensor<4x6xf32>
  %9 = echo.div %6, %8 : tensor<4x6xf32>
  %10 = echo.relu %1 : tensor<4x6xf32>
  %11 = echo.neg %10 : tensor<4x6xf32>
  %12 = echo.add %9, %11 : tensor<4x6xf32>
  %loss = echo.mse_loss %12, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
