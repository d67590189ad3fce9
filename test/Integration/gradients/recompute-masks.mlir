// A hand-written training step that recomputes tanh inside echo.recompute,
// stashes a dropout mask 1-bit packed (pack_mask/unpack_mask, 35 elements,
// so the last byte is partial) and uses relu_grad on the forward input:
// echo-run uses the existing @f_train and checks its gradient against
// finite differences of @f.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK: gradient check: param 0 (argument 2): rel err
// CHECK-NOT: FAILED

func.func @f(%x: tensor<5x7xf32>, %t: tensor<5x7xf32>,
             %a: tensor<5x7xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.mul %x, %a : tensor<5x7xf32>
  %1 = echo.relu %0 : tensor<5x7xf32>
  %2 = echo.tanh %1 : tensor<5x7xf32>
  %3, %m = echo.dropout %2 {ratio = 5.000000e-01 : f64, seed = 3 : i64} : (tensor<5x7xf32>) -> (tensor<5x7xf32>, tensor<5x7xi1>)
  %l = echo.mse_loss %3, %t : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @f_train(%x: tensor<5x7xf32>, %t: tensor<5x7xf32>,
                   %a: tensor<5x7xf32> {echo.param})
    -> (tensor<f32>, tensor<5x7xf32>) attributes {echo.train_step} {
  %0 = echo.mul %x, %a : tensor<5x7xf32>
  %1 = echo.relu %0 : tensor<5x7xf32>
  %2 = echo.tanh %1 : tensor<5x7xf32>
  %3, %m = echo.dropout %2 {ratio = 5.000000e-01 : f64, seed = 3 : i64} : (tensor<5x7xf32>) -> (tensor<5x7xf32>, tensor<5x7xi1>)
  %p = echo.pack_mask %m : (tensor<5x7xi1>) -> tensor<5xi8>
  %l = echo.mse_loss %3, %t : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<f32>
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %d3 = echo.mse_loss_grad %3, %t, %one : (tensor<5x7xf32>, tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
  %um = echo.unpack_mask %p : (tensor<5xi8>) -> tensor<5x7xi1>
  %d2 = echo.dropout_grad %um, %d3 {ratio = 5.000000e-01 : f64} : (tensor<5x7xi1>, tensor<5x7xf32>) -> tensor<5x7xf32>
  %y = echo.recompute (%1) : (tensor<5x7xf32>) -> tensor<5x7xf32> {
  ^bb0(%r: tensor<5x7xf32>):
    %t2 = echo.tanh %r : tensor<5x7xf32>
    echo.yield %t2 : tensor<5x7xf32>
  }
  %d1 = echo.tanh_grad %y, %d2 : tensor<5x7xf32>
  %d0 = echo.relu_grad %0, %d1 : tensor<5x7xf32>, tensor<5x7xf32>
  %da = echo.mul %d0, %x : tensor<5x7xf32>
  return %l, %da : tensor<f32>, tensor<5x7xf32>
}
