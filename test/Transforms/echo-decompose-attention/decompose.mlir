// echo-decompose-attention: the fused ops become the materialized ones.
// RUN: echo-opt %s -split-input-file -echo-decompose-attention | FileCheck %s

// Grouped heads are repeated (broadcast) for the query heads; the key
// padding bias is broadcast to [B·H, S, Sk]; causal is a constant added to
// the scores; dropout keeps its seed and step seed; lse is built only
// where it is read.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x4x8x16xf32>, %[[K:[^:]*]]: tensor<2x2x8x16xf32>, %[[V:[^:]*]]: tensor<2x2x8x16xf32>, %[[B:[^:]*]]: tensor<2x1x1x8xf32>, %[[S:[^:]*]]: tensor<i64>
// CHECK: echo.broadcast %[[K]] dims = [2] : (tensor<2x2x8x16xf32>) -> tensor<2x2x2x8x16xf32>
// CHECK: %[[SC:.*]] = echo.batch_matmul %{{.*}}, %{{.*}} {transpose_b = true} : (tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> tensor<8x8x8xf32>
// CHECK: echo.mul %[[SC]]
// CHECK: echo.broadcast %{{.*}} dims = [1, 2] : (tensor<2x8xf32>) -> tensor<2x4x8x8xf32>
// CHECK: arith.constant dense<{{.*}}0xFF800000{{.*}}> : tensor<8x8xf32>
// CHECK: %[[P:.*]] = echo.softmax %{{.*}} {axis = 2 : i64} : tensor<8x8x8xf32>
// CHECK: echo.dropout %[[P]], %[[S]] {ratio = 1.000000e-01 : f64, seed = 4 : i64}
// CHECK: echo.batch_matmul
// CHECK-NOT: echo.reduce_max
// CHECK-NOT: echo.attention
func.func @forward(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>, %b: tensor<2x1x1x8xf32>, %s: tensor<i64>) -> tensor<2x4x8x16xf32> {
  %o, %lse = echo.attention %q, %k, %v bias %b seed %s {scale = 2.500000e-01 : f64, causal = true, dropout_ratio = 1.000000e-01 : f64, seed = 4 : i64}
      : (tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x1x1x8xf32>, tensor<i64>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

// lse read: max + log Σ exp(x − max).
// CHECK-LABEL: func.func @lse
// CHECK: echo.reduce_max
// CHECK: echo.exp
// CHECK: echo.reduce_sum
// CHECK: echo.log
func.func @lse(%q: tensor<1x2x4x8xf32>) -> tensor<1x2x4xf32> {
  %o, %lse = echo.attention %q, %q, %q {scale = 1.0 : f64}
      : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
      -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return %lse : tensor<1x2x4xf32>
}

// -----

// The gradient: the forward again, then the GEMMs of the backward; dk and
// dv summed over each group of query heads.
// CHECK-LABEL: func.func @grad
// CHECK: echo.softmax
// CHECK: echo.softmax_grad
// CHECK: echo.reduce_sum %{{.*}} dims = [2] : (tensor<1x1x2x4x8xf32>) -> tensor<1x1x4x8xf32>
// CHECK-NOT: echo.attention_grad
func.func @grad(%q: tensor<1x2x4x8xf32>, %k: tensor<1x1x4x8xf32>, %o: tensor<1x2x4x8xf32>, %l: tensor<1x2x4xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) {
  %dq, %dk, %dv = echo.attention_grad %q, %k, %k, %o, %l, %o {scale = 1.0 : f64}
      : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4xf32>, tensor<1x2x4x8xf32>)
      -> (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>)
  return %dq, %dk, %dv : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
}
