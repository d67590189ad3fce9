// Gradient check of the activations added for the PyTorch importer: erf
// silu hardswish hardsigmoid mish gelu (exact and tanh) clamp select, with
// their gradient ops. Each activation has its own parameter, so a wrong
// gradient names its op. The inputs are scaled to about (-10, 10), so that
// hardswish, hardsigmoid and clamp are checked on both sides of their
// bounds; elements that land on a kink are left out by the checker.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --strategy=none | FileCheck %s
// CHECK-COUNT-10: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @activations(%x: tensor<4x6xf32>, %t: tensor<4x6xf32>,
                       %erf: tensor<4x6xf32> {echo.param},
                       %silu: tensor<4x6xf32> {echo.param},
                       %hardswish: tensor<4x6xf32> {echo.param},
                       %hardsigmoid: tensor<4x6xf32> {echo.param},
                       %mish: tensor<4x6xf32> {echo.param},
                       %gelu: tensor<4x6xf32> {echo.param},
                       %gelu_tanh: tensor<4x6xf32> {echo.param},
                       %clamp: tensor<4x6xf32> {echo.param},
                       %on: tensor<4x6xf32> {echo.param},
                       %off: tensor<4x6xf32> {echo.param}) -> tensor<f32> {
  %scale = arith.constant dense<25.0> : tensor<4x6xf32>
  %sx = echo.mul %x, %scale : tensor<4x6xf32>
  %u0 = echo.mul %sx, %erf : tensor<4x6xf32>
  %y0 = echo.erf %u0 : tensor<4x6xf32>
  %u1 = echo.mul %sx, %silu : tensor<4x6xf32>
  %y1 = echo.silu %u1 : tensor<4x6xf32>
  %u2 = echo.mul %sx, %hardswish : tensor<4x6xf32>
  %y2 = echo.hardswish %u2 : tensor<4x6xf32>
  %u3 = echo.mul %sx, %hardsigmoid : tensor<4x6xf32>
  %y3 = echo.hardsigmoid %u3 : tensor<4x6xf32>
  %u4 = echo.mul %sx, %mish : tensor<4x6xf32>
  %y4 = echo.mish %u4 : tensor<4x6xf32>
  %u5 = echo.mul %sx, %gelu : tensor<4x6xf32>
  %y5 = echo.gelu %u5 : tensor<4x6xf32>
  %u6 = echo.mul %sx, %gelu_tanh : tensor<4x6xf32>
  %y6 = echo.gelu %u6 {tanh_approximation = true} : tensor<4x6xf32>
  %u7 = echo.mul %sx, %clamp : tensor<4x6xf32>
  %y7 = echo.clamp %u7 {min = -1.5 : f64, max = 2.0 : f64} : tensor<4x6xf32>
  // select routes each element's adjoint to one parameter; the mask is a
  // constant, as an importer emits for masked_fill.
  %m = arith.constant dense<[[true, false, true, true, false, false],
                             [false, false, true, false, true, true],
                             [true, true, false, false, false, true],
                             [false, true, true, false, true, false]]> : tensor<4x6xi1>
  %a = echo.tanh %on : tensor<4x6xf32>
  %b = echo.mul %off, %off : tensor<4x6xf32>
  %y8 = echo.select %m, %a, %b : tensor<4x6xi1>, tensor<4x6xf32>
  %s0 = echo.add %y0, %y1 : tensor<4x6xf32>
  %s1 = echo.add %s0, %y2 : tensor<4x6xf32>
  %s2 = echo.add %s1, %y3 : tensor<4x6xf32>
  %s3 = echo.add %s2, %y4 : tensor<4x6xf32>
  %s4 = echo.add %s3, %y5 : tensor<4x6xf32>
  %s5 = echo.add %s4, %y6 : tensor<4x6xf32>
  %s6 = echo.add %s5, %y7 : tensor<4x6xf32>
  %s7 = echo.add %s6, %y8 : tensor<4x6xf32>
  %loss = echo.mse_loss %s7, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
