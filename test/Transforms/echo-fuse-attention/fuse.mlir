// echo-fuse-attention: exact matches of materialized attention become
// echo.attention; near misses are left alone.
// RUN: echo-opt %s -split-input-file -echo-fuse-attention | FileCheck %s

// The transformer builder's pattern: q·kᵀ times a splat scale, softmax,
// dropout (with the step's seed), times v.
// CHECK-LABEL: func.func @scaled_dropout
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8x16xf32>, %[[K:.*]]: tensor<4x8x16xf32>, %[[V:.*]]: tensor<4x8x16xf32>, %[[S:.*]]: tensor<i64>)
// CHECK-DAG: %[[Q4:.*]] = echo.reshape %[[Q]] : (tensor<4x8x16xf32>) -> tensor<1x4x8x16xf32>
// CHECK-DAG: %[[K4:.*]] = echo.reshape %[[K]]
// CHECK-DAG: %[[V4:.*]] = echo.reshape %[[V]]
// CHECK: %[[O:.*]], %{{.*}} = echo.attention %[[Q4]], %[[K4]], %[[V4]] seed %[[S]] {dropout_ratio = 1.000000e-01 : f64, scale = 2.500000e-01 : f64, seed = 7 : i64} : {{.*}} -> (tensor<1x4x8x16xf32>, tensor<1x4x8xf32>)
// CHECK: %[[R:.*]] = echo.reshape %[[O]] : (tensor<1x4x8x16xf32>) -> tensor<4x8x16xf32>
// CHECK-NOT: echo.softmax
// CHECK-NOT: echo.batch_matmul
// CHECK: return %[[R]]
func.func @scaled_dropout(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>, %seed: tensor<i64>) -> tensor<4x8x16xf32> {
  %c = arith.constant dense<2.500000e-01> : tensor<4x8x8xf32>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x8xf32>
  %x = echo.mul %s, %c : tensor<4x8x8xf32>
  %p = echo.softmax %x {axis = 2 : i64} : tensor<4x8x8xf32>
  %d, %m = echo.dropout %p, %seed {ratio = 1.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8x8xf32>, tensor<i64>) -> (tensor<4x8x8xf32>, tensor<4x8x8xi1>)
  %o = echo.batch_matmul %d, %v : (tensor<4x8x8xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}

// -----

// A causal mask constant (0 on and below the diagonal, −inf above),
// broadcast over the heads, is the causal flag: no S×S constant remains.
// Division by a splat is a scale of its inverse; kᵀ through echo.transpose.
// CHECK-LABEL: func.func @causal_additive
// CHECK-NOT: arith.constant
// CHECK: echo.attention {{.*}} {causal = true, scale = 5.000000e-01 : f64}
// CHECK-NOT: arith.constant
func.func @causal_additive(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %c = arith.constant dense<2.000000e+00> : tensor<2x3x3xf32>
  %mask = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %kt = echo.transpose %k {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %s = echo.batch_matmul %q, %kt : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %x = echo.div %s, %c : tensor<2x3x3xf32>
  %mb = echo.broadcast %mask dims = [0] : (tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %y = echo.add %x, %mb : tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// masked_fill(tril == 0, −inf) written as a select: causal too. q scaled
// before the product: scale 1.
// CHECK-LABEL: func.func @causal_select
// CHECK: echo.attention {{.*}} {causal = true, scale = 1.000000e+00 : f64}
// CHECK-NOT: echo.select
func.func @causal_select(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %keep = arith.constant dense<[[[true, false], [true, true]]]> : tensor<1x2x2xi1>
  %ninf = arith.constant dense<0xFF800000> : tensor<1x2x2xf32>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x2xf32>
  %x = echo.select %keep, %s, %ninf : tensor<1x2x2xi1>, tensor<1x2x2xf32>
  %p = echo.softmax %x {axis = 2 : i64} : tensor<1x2x2xf32>
  %o = echo.batch_matmul %p, %v : (tensor<1x2x2xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %o : tensor<1x2x4xf32>
}

// -----

// Any other additive mask is a bias (a broadcast along the batch passed
// unbroadcast, as [1, 1, S, Sk]).
// CHECK-LABEL: func.func @bias
// CHECK-SAME: %[[B:[^:]*]]: tensor<3x3xf32>
// CHECK: %[[B4:.*]] = echo.reshape %[[B]] : (tensor<3x3xf32>) -> tensor<1x1x3x3xf32>
// CHECK: echo.attention {{.*}} bias %[[B4]] {scale = 2.000000e+00 : f64}
func.func @bias(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>, %bias: tensor<3x3xf32>) -> tensor<2x3x4xf32> {
  %c = arith.constant dense<2.000000e+00> : tensor<2x3x3xf32>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %x = echo.mul %c, %s : tensor<2x3x3xf32>
  %bb = echo.broadcast %bias dims = [0] : (tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %y = echo.add %bb, %x : tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// Near misses, left as they are: the probabilities read twice; the softmax
// over the queries; a scale that is not a splat; a dropout whose mask is
// read; a mask that is causal but for one element.
// CHECK-LABEL: func.func @two_uses
// CHECK-NOT: echo.attention
func.func @two_uses(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x3xf32>) {
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %p = echo.softmax %s {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o, %p : tensor<2x3x4xf32>, tensor<2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT: echo.attention
func.func @softmax_over_queries(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %p = echo.softmax %s {axis = 1 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @tensor_scale
// CHECK-NOT: echo.attention
func.func @tensor_scale(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>, %c: tensor<2x3x3xf32>) -> tensor<2x3x4xf32> {
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %x = echo.mul %s, %c : tensor<2x3x3xf32>
  %p = echo.softmax %x {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @mask_read
// CHECK-NOT: echo.attention
func.func @mask_read(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x3xi1>) {
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %p = echo.softmax %s {axis = 2 : i64} : tensor<2x3x3xf32>
  %d, %m = echo.dropout %p {ratio = 1.000000e-01 : f64, seed = 7 : i64} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xi1>)
  %o = echo.batch_matmul %d, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o, %m : tensor<2x3x4xf32>, tensor<2x3x3xi1>
}

// -----

// Not exactly causal (element [0, 2] is 0): a bias, and the constant stays.
// CHECK-LABEL: func.func @almost_causal
// CHECK: %[[M:.*]] = arith.constant dense<{{.*}}> : tensor<3x3xf32>
// CHECK: %[[M4:.*]] = echo.reshape %[[M]]
// CHECK: echo.attention {{.*}} bias %[[M4]] {scale = 1.000000e+00 : f64}
func.func @almost_causal(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %mask = arith.constant dense<[[0.0, 0xFF800000, 0.0], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %mb = echo.broadcast %mask dims = [0] : (tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %y = echo.add %s, %mb : tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// The importer's form of nanoGPT's attention: the scores as [B, H, S, Sk]
// between views of the GEMMs, kᵀ a transpose of [B, H, Sk, D], the causal
// buffer as masked_fill (select(drop, −inf, x), drop true above the
// diagonal), softmax over the last dim. No constant is left.
// CHECK-LABEL: func.func @imported
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x3x4xf32>, %[[K:[^:]*]]: tensor<1x2x3x4xf32>, %[[V:[^:]*]]: tensor<1x2x3x4xf32>)
// CHECK: %[[K3:.*]] = echo.reshape %[[K]] : (tensor<1x2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[K4:.*]] = echo.reshape %[[K3]] : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK: echo.attention %{{.*}}, %[[K4]], %{{.*}} {causal = true, scale = 5.000000e-01 : f64}
// CHECK-NOT: arith.constant
// CHECK-NOT: echo.select
// CHECK-NOT: echo.transpose
func.func @imported(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %kt = echo.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x4x3xf32>
  %q3 = echo.reshape %q : (tensor<1x2x3x4xf32>) -> tensor<2x3x4xf32>
  %kt3 = echo.reshape %kt : (tensor<1x2x4x3xf32>) -> tensor<2x4x3xf32>
  %s3 = echo.batch_matmul %q3, %kt3 : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %s = echo.reshape %s3 : (tensor<2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %c = arith.constant dense<5.000000e-01> : tensor<1x2x3x3xf32>
  %x = echo.mul %s, %c : tensor<1x2x3x3xf32>
  %drop = arith.constant dense<[[[[false, true, true], [false, false, true], [false, false, false]], [[false, true, true], [false, false, true], [false, false, false]]]]> : tensor<1x2x3x3xi1>
  %ninf = arith.constant dense<0xFF800000> : tensor<1x2x3x3xf32>
  %y = echo.select %drop, %ninf, %x : tensor<1x2x3x3xi1>, tensor<1x2x3x3xf32>
  %p = echo.softmax %y {axis = 3 : i64} : tensor<1x2x3x3xf32>
  %p3 = echo.reshape %p : (tensor<1x2x3x3xf32>) -> tensor<2x3x3xf32>
  %v3 = echo.reshape %v : (tensor<1x2x3x4xf32>) -> tensor<2x3x4xf32>
  %o3 = echo.batch_matmul %p3, %v3 : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %o = echo.reshape %o3 : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}
