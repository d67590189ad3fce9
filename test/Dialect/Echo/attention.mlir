// echo.attention and echo.attention_grad: round trip in both forms, and the
// FLOP counts of CostOpInterface (causal halves them).
// RUN: echo-opt %s -split-input-file -echo-test-cost -verify-diagnostics | echo-opt -split-input-file | FileCheck %s
// RUN: echo-opt %s -split-input-file -mlir-print-op-generic | echo-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK: %[[O:.*]], %[[L:.*]] = echo.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = true, scale = 2.500000e-01 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
// CHECK: echo.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[L]], %{{.*}} {causal = true, scale = 2.500000e-01 : f64}
func.func @plain(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>,
                 %v: tensor<2x4x8x16xf32>, %do: tensor<2x4x8x16xf32>) {
  // 2·4 heads · 36 causal pairs · (2·16 + 2·16).
  // expected-remark @+1 {{flops = 18432, compute-heavy}}
  %o, %lse = echo.attention %q, %k, %v {scale = 2.500000e-01 : f64, causal = true}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  // 8 · 36 · (8·16 + 6·16).
  // expected-remark @+1 {{flops = 64512, compute-heavy}}
  %dq, %dk, %dv = echo.attention_grad %q, %k, %v, %o, %lse, %do
      {scale = 2.500000e-01 : f64, causal = true}
      : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>,
         tensor<2x4x8x16xf32>, tensor<2x4x8xf32>, tensor<2x4x8x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>)
  return
}

// -----

// Grouped-query heads (4 query heads on 2 key/value heads), a key-padding
// bias, dropout with the step's seed, Sk != S and Dv != D.
// CHECK-LABEL: func.func @everything
// CHECK: echo.attention %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} seed %{{.*}} {dropout_ratio = 1.000000e-01 : f64, scale = 2.500000e-01 : f64, seed = 3 : i64}
// CHECK: echo.attention_grad {{.*}} bias %{{.*}} seed %{{.*}} {dropout_ratio = 1.000000e-01 : f64, scale = 2.500000e-01 : f64, seed = 3 : i64}
func.func @everything(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x6x16xf32>,
                      %v: tensor<2x2x6x4xf32>, %mask: tensor<2x1x1x6xf32>,
                      %s: tensor<i64>, %do: tensor<2x4x8x4xf32>) {
  // 8 · 48 pairs · (32 + 8) forward, (8·16 + 6·4) backward.
  // expected-remark @+1 {{flops = 15360, compute-heavy}}
  %o, %lse = "echo.attention"(%q, %k, %v, %mask, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, scale = 2.500000e-01 : f64, dropout_ratio = 1.000000e-01 : f64, seed = 3 : i64}
      : (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x4xf32>, tensor<2x1x1x6xf32>, tensor<i64>)
      -> (tensor<2x4x8x4xf32>, tensor<2x4x8xf32>)
  // expected-remark @+1 {{flops = 58368, compute-heavy}}
  %dq, %dk, %dv = echo.attention_grad %q, %k, %v, %o, %lse, %do bias %mask seed %s
      {scale = 2.500000e-01 : f64, dropout_ratio = 1.000000e-01 : f64, seed = 3 : i64}
      : (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x4xf32>,
         tensor<2x4x8x4xf32>, tensor<2x4x8xf32>, tensor<2x4x8x4xf32>,
         tensor<2x1x1x6xf32>, tensor<i64>)
      -> (tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x4xf32>)
  return
}

// -----

// Causal with fewer keys than queries (top-left aligned): rows past Sk see
// every key, 1+2+3+4 + 4·4 = 26 pairs.
func.func @causal_short_keys(%q: tensor<1x1x8x2xf32>, %k: tensor<1x1x4x2xf32>,
                             %v: tensor<1x1x4x2xf32>) {
  // expected-remark @+1 {{flops = 208, compute-heavy}}
  %o, %lse = echo.attention %q, %k, %v {scale = 1.0 : f64, causal = true}
      : (tensor<1x1x8x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>)
      -> (tensor<1x1x8x2xf32>, tensor<1x1x8xf32>)
  return
}
