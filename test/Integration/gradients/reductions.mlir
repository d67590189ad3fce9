// Gradient check of broadcast, reduce_sum, reduce_max (reduce_max_grad) and
// softmax (softmax_grad).
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK-COUNT-2: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @reductions(%x: tensor<4x6xf32>, %t: tensor<4x6xf32>,
                      %a: tensor<4x6xf32> {echo.param},
                      %v: tensor<6xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.mul %x, %a : tensor<4x6xf32>
  %bv = echo.broadcast %v dims = [0] : (tensor<6xf32>) -> tensor<4x6xf32>
  %1 = echo.add %0, %bv : tensor<4x6xf32>
  %m = echo.reduce_max %1 dims = [1] : (tensor<4x6xf32>) -> tensor<4xf32>
  %mb = echo.broadcast %m dims = [1] : (tensor<4xf32>) -> tensor<4x6xf32>
  %s = echo.reduce_sum %1 dims = [0] : (tensor<4x6xf32>) -> tensor<6xf32>
  %sb = echo.broadcast %s dims = [0] : (tensor<6xf32>) -> tensor<4x6xf32>
  %2 = echo.add %mb, %sb : tensor<4x6xf32>
  %3 = echo.softmax %1 {axis = 1 : i64} : tensor<4x6xf32>
  %4 = echo.softmax %2 {axis = 0 : i64} : tensor<4x6xf32>
  %5 = echo.add %3, %4 : tensor<4x6xf32>
  %loss = echo.mse_loss %5, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
