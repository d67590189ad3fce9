// Gradient check of echo.attention: the step runs the CPU runtime's fused
// kernels (echo_attention_forward/backward), its f64 reference the
// materialized ops of echo-decompose-attention, both checked against finite
// differences of the f64 loss. Causal, a key-padding bias, grouped-query
// heads, dropout with the step's seed, Dv != D, Sk != S; then the same with
// the materialized ops in the f32 step too (library-calls=false).
// RUN: echo-run %s --function=causal --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --function=gqa_bias_dropout --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --function=cross --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --function=gqa_bias_dropout --check-gradients --check-samples=0 --library-calls=false | FileCheck %s
// CHECK-COUNT-3: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @causal(%q: tensor<2x2x8x4xf32> {echo.param},
                  %k: tensor<2x2x8x4xf32> {echo.param},
                  %v: tensor<2x2x8x4xf32> {echo.param},
                  %t: tensor<2x2x8x4xf32>) -> tensor<f32> {
  %o, %lse = echo.attention %q, %k, %v {scale = 5.000000e-01 : f64, causal = true}
      : (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>)
      -> (tensor<2x2x8x4xf32>, tensor<2x2x8xf32>)
  %l = echo.mse_loss %o, %t : (tensor<2x2x8x4xf32>, tensor<2x2x8x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @gqa_bias_dropout(%seed: tensor<i64> {echo.rng_seed},
                            %q: tensor<2x4x8x4xf32> {echo.param},
                            %k: tensor<2x2x8x4xf32> {echo.param},
                            %v: tensor<2x2x8x3xf32> {echo.param},
                            %mask: tensor<2x1x1x8xf32>,
                            %t: tensor<2x4x8x3xf32>) -> tensor<f32> {
  %o, %lse = echo.attention %q, %k, %v bias %mask seed %seed
      {scale = 5.000000e-01 : f64, causal = true, dropout_ratio = 2.000000e-01 : f64, seed = 11 : i64}
      : (tensor<2x4x8x4xf32>, tensor<2x2x8x4xf32>, tensor<2x2x8x3xf32>, tensor<2x1x1x8xf32>, tensor<i64>)
      -> (tensor<2x4x8x3xf32>, tensor<2x4x8xf32>)
  %l = echo.mse_loss %o, %t : (tensor<2x4x8x3xf32>, tensor<2x4x8x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// Cross attention: 6 queries on 10 keys, a full [B,H,S,Sk] bias.
func.func @cross(%q: tensor<1x2x6x4xf32> {echo.param},
                 %k: tensor<1x2x10x4xf32> {echo.param},
                 %v: tensor<1x2x10x4xf32> {echo.param},
                 %bias: tensor<1x2x6x10xf32>,
                 %t: tensor<1x2x6x4xf32>) -> tensor<f32> {
  %o, %lse = echo.attention %q, %k, %v bias %bias {scale = 7.000000e-01 : f64}
      : (tensor<1x2x6x4xf32>, tensor<1x2x10x4xf32>, tensor<1x2x10x4xf32>, tensor<1x2x6x10xf32>)
      -> (tensor<1x2x6x4xf32>, tensor<1x2x6xf32>)
  %l = echo.mse_loss %o, %t : (tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
