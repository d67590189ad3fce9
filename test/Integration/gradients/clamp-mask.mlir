// clamp's gradient from its 1-bit stash: a hand-written training step keeps
// the predicate min < x < max packed (pack_mask/unpack_mask, 35 elements,
// so the last byte is partial) and passes the mask to clamp_grad; echo-run
// uses the existing @f_train and checks its gradient against finite
// differences of @f. The inputs are scaled so that both bounds are crossed.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK: gradient check: param 0 (argument 2): rel err
// CHECK-NOT: FAILED

func.func @f(%x: tensor<5x7xf32>, %t: tensor<5x7xf32>,
             %a: tensor<5x7xf32> {echo.param}) -> tensor<f32> {
  %s = arith.constant dense<8.0> : tensor<5x7xf32>
  %0 = echo.mul %x, %a : tensor<5x7xf32>
  %1 = echo.mul %0, %s : tensor<5x7xf32>
  %2 = echo.clamp %1 {min = -1.0 : f64, max = 1.5 : f64} : tensor<5x7xf32>
  %l = echo.mse_loss %2, %t : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @f_train(%x: tensor<5x7xf32>, %t: tensor<5x7xf32>,
                   %a: tensor<5x7xf32> {echo.param})
    -> (tensor<f32>, tensor<5x7xf32>) attributes {echo.train_step} {
  %s = arith.constant dense<8.0> : tensor<5x7xf32>
  %0 = echo.mul %x, %a : tensor<5x7xf32>
  %1 = echo.mul %0, %s : tensor<5x7xf32>
  %lo = arith.constant dense<-1.0> : tensor<5x7xf32>
  %above = arith.cmpf ogt, %1, %lo : tensor<5x7xf32>
  %hi = arith.constant dense<1.5> : tensor<5x7xf32>
  %below = arith.cmpf olt, %1, %hi : tensor<5x7xf32>
  %m = arith.andi %above, %below : tensor<5x7xi1>
  %2 = echo.clamp %1 {min = -1.0 : f64, max = 1.5 : f64} : tensor<5x7xf32>
  %p = echo.pack_mask %m : (tensor<5x7xi1>) -> tensor<5xi8>
  %l = echo.mse_loss %2, %t : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<f32>
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %d2 = echo.mse_loss_grad %2, %t, %one : (tensor<5x7xf32>, tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  %um = echo.unpack_mask %p : (tensor<5xi8>) -> tensor<5x7xi1>
  %d1 = echo.clamp_grad %um, %d2 {min = -1.0 : f64, max = 1.5 : f64} : tensor<5x7xi1>, tensor<5x7xf32>
  %d0 = echo.mul %d1, %s : tensor<5x7xf32>
  %da = echo.mul %d0, %x : tensor<5x7xf32>
  return %l, %da : tensor<f32>, tensor<5x7xf32>
}
