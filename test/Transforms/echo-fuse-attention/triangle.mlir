// echo-fuse-attention reads an echo.triangle mask (what the importer writes
// for a causal mask however PyTorch built it) as `causal`: the select of
// masked_fill and its negated or compared forms, and the additive −inf
// mask, through broadcasts and views of the leading dims. A key-padding
// bias broadcast along the heads and queries is passed as [B, 1, 1, Sk]
// with q, k and v seen as [B, H, S, D]. Near misses stay materialized.
// RUN: echo-opt %s -split-input-file -echo-fuse-attention | FileCheck %s

// nanoGPT: masked_fill(tril == 0, −inf), the mask true above the diagonal,
// broadcast over [B, H]; the scores [B, H, S, S] between views of the GEMMs.
// CHECK-LABEL: func.func @masked_fill
// CHECK: echo.attention {{.*}} {causal = true, scale = 2.500000e-01 : f64}
// CHECK-NOT: echo.triangle
// CHECK-NOT: echo.select
// CHECK-NOT: echo.softmax
func.func @masked_fill(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %c = arith.constant dense<2.500000e-01> : tensor<2x2x8x8xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
  %drop = echo.triangle lower diagonal 0 inside 0.0 outside 1.0 : tensor<8x8xi1>
  %db = echo.broadcast %drop dims = [0, 1] : (tensor<8x8xi1>) -> tensor<2x2x8x8xi1>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<4x8x16xf32>, tensor<4x8x16xf32>) -> tensor<4x8x8xf32>
  %s4 = echo.reshape %s : (tensor<4x8x8xf32>) -> tensor<2x2x8x8xf32>
  %x = echo.mul %s4, %c : tensor<2x2x8x8xf32>
  %y = echo.select %db, %ninf, %x : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %p = echo.softmax %y {axis = 3 : i64} : tensor<2x2x8x8xf32>
  %p3 = echo.reshape %p : (tensor<2x2x8x8xf32>) -> tensor<4x8x8xf32>
  %o = echo.batch_matmul %p3, %v : (tensor<4x8x8xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}

// -----

// LLaMA: triu(full(−inf), 1) added, as an upper triangle [1, 1, S, S] seen
// as [S, S] and broadcast.
// CHECK-LABEL: func.func @additive_upper
// CHECK: echo.attention {{.*}} {causal = true, scale = 5.000000e-01 : f64}
// CHECK-NOT: echo.triangle
// CHECK-NOT: echo.add
func.func @additive_upper(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %c = arith.constant dense<2.000000e+00> : tensor<2x3x3xf32>
  %mask = echo.triangle upper diagonal 1 inside 0xFFF0000000000000 outside 0.0 : tensor<1x1x3x3xf32>
  %m2 = echo.reshape %mask : (tensor<1x1x3x3xf32>) -> tensor<3x3xf32>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %x = echo.div %s, %c : tensor<2x3x3xf32>
  %mb = echo.broadcast %m2 dims = [0] : (tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %y = echo.add %x, %mb : tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// select(~keep, −inf, x) with keep = tril(ones): the negation is read.
// CHECK-LABEL: func.func @negated
// CHECK: echo.attention {{.*}} {causal = true, scale = 1.000000e+00 : f64}
// CHECK-NOT: echo.logical_not
func.func @negated(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x3xf32>
  %keep = echo.triangle lower diagonal 0 inside 1.0 outside 0.0 : tensor<3x3xi1>
  %drop = echo.logical_not %keep : tensor<3x3xi1>
  %db = echo.broadcast %drop dims = [0] : (tensor<3x3xi1>) -> tensor<2x3x3xi1>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %y = echo.select %db, %ninf, %s : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// select(tril(ones) == 0, −inf, x): the comparison with a splat is read.
// CHECK-LABEL: func.func @compared
// CHECK: echo.attention {{.*}} {causal = true, scale = 1.000000e+00 : f64}
// CHECK-NOT: echo.compare
func.func @compared(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x3xf32>
  %zero = arith.constant dense<0.0> : tensor<3x3xf32>
  %ones = echo.triangle lower diagonal 0 inside 1.0 outside 0.0 : tensor<3x3xf32>
  %drop = echo.compare eq, %ones, %zero : tensor<3x3xf32>
  %db = echo.broadcast %drop dims = [0] : (tensor<3x3xi1>) -> tensor<2x3x3xi1>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %y = echo.select %db, %ninf, %s : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// The keep form, select(keep, x, −inf).
// CHECK-LABEL: func.func @keep
// CHECK: echo.attention {{.*}} {causal = true
func.func @keep(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x3xf32>
  %keep = echo.triangle upper diagonal 1 inside 0.0 outside 1.0 : tensor<2x3x3xi1>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %y = echo.select %keep, %s, %ninf : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// Near misses: a triangle off the diagonal (diagonal 1 keeps one key
// ahead), and −inf on the wrong side, are not causal: left as written.
// CHECK-LABEL: func.func @off_diagonal
// CHECK-NOT: echo.attention
// CHECK: echo.triangle lower diagonal 1
// CHECK: echo.softmax
func.func @off_diagonal(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x3xf32>
  %keep = echo.triangle lower diagonal 1 inside 1.0 outside 0.0 : tensor<2x3x3xi1>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %y = echo.select %keep, %s, %ninf : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @wrong_side
// CHECK-NOT: echo.attention
// CHECK: echo.softmax
func.func @wrong_side(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x3xf32>
  %keep = echo.triangle lower diagonal 0 inside 1.0 outside 0.0 : tensor<2x3x3xi1>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %y = echo.select %keep, %ninf, %s : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// BERT: a key-padding bias [B, Sk] broadcast along the heads and the
// queries of [B, H, S, Sk] scores is passed as [B, 1, 1, Sk], q, k and v
// seen as [B, H, S, D]: no [B, H, S, Sk] bias.
// CHECK-LABEL: func.func @key_padding
// CHECK-SAME: %[[B:[^:]*]]: tensor<2x8xf32>
// CHECK-DAG: %[[B4:.*]] = echo.reshape %[[B]] : (tensor<2x8xf32>) -> tensor<2x1x1x8xf32>
// CHECK-DAG: %[[Q4:.*]] = echo.reshape %{{.*}} : (tensor<6x8x4xf32>) -> tensor<2x3x8x4xf32>
// CHECK: %[[O:.*]], %{{.*}} = echo.attention %[[Q4]], %{{.*}}, %{{.*}} bias %[[B4]] {scale = 5.000000e-01 : f64} : {{.*}} -> (tensor<2x3x8x4xf32>, tensor<2x3x8xf32>)
// CHECK: echo.reshape %[[O]] : (tensor<2x3x8x4xf32>) -> tensor<6x8x4xf32>
// CHECK-NOT: echo.broadcast
func.func @key_padding(%q: tensor<6x8x4xf32>, %k: tensor<6x8x4xf32>, %v: tensor<6x8x4xf32>, %bias: tensor<2x8xf32>) -> tensor<6x8x4xf32> {
  %c = arith.constant dense<5.000000e-01> : tensor<2x3x8x8xf32>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<6x8x4xf32>, tensor<6x8x4xf32>) -> tensor<6x8x8xf32>
  %s4 = echo.reshape %s : (tensor<6x8x8xf32>) -> tensor<2x3x8x8xf32>
  %x = echo.mul %s4, %c : tensor<2x3x8x8xf32>
  %bb = echo.broadcast %bias dims = [1, 2] : (tensor<2x8xf32>) -> tensor<2x3x8x8xf32>
  %y = echo.add %x, %bb : tensor<2x3x8x8xf32>
  %p = echo.softmax %y {axis = 3 : i64} : tensor<2x3x8x8xf32>
  %p3 = echo.reshape %p : (tensor<2x3x8x8xf32>) -> tensor<6x8x8xf32>
  %o = echo.batch_matmul %p3, %v : (tensor<6x8x8xf32>, tensor<6x8x4xf32>) -> tensor<6x8x4xf32>
  return %o : tensor<6x8x4xf32>
}

// -----

// A bias computed from a trained parameter (a learned relative-position
// bias) needs its gradient, which echo.attention does not give: left
// materialized.
// CHECK-LABEL: func.func @trained_bias
// CHECK-NOT: echo.attention
// CHECK: echo.softmax
func.func @trained_bias(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>, %w: tensor<3x3xf32> {echo.param}) -> tensor<2x3x4xf32> {
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %t = echo.tanh %w : tensor<3x3xf32>
  %bb = echo.broadcast %t dims = [0] : (tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %y = echo.add %s, %bb : tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// Hugging Face's GPT-2: torch.where(causal, x, finfo(f32).min) with the
// keep triangle, and an additive triangle of finfo.min: a causal row keeps
// its diagonal, so finfo.min counts for nothing as −inf does.
// CHECK-LABEL: func.func @finfo_min
// CHECK: echo.attention {{.*}} {causal = true
// CHECK: echo.attention {{.*}} {causal = true
// CHECK-NOT: echo.select
// CHECK-NOT: echo.softmax
func.func @finfo_min(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %min = arith.constant dense<-3.40282347E+38> : tensor<2x3x3xf32>
  %keep = echo.triangle lower diagonal 0 inside 1.0 outside 0.0 : tensor<2x3x3xi1>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %y = echo.select %keep, %s, %min : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %mask = echo.triangle lower diagonal 0 inside 0.0 outside -3.4028234663852886E+38 : tensor<2x3x3xf32>
  %s2 = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %y2 = echo.add %s2, %mask : tensor<2x3x3xf32>
  %p2 = echo.softmax %y2 {axis = 2 : i64} : tensor<2x3x3xf32>
  %o2 = echo.batch_matmul %p2, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o, %o2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// A mask value that does not vanish (−1e4, BERT's) is not causal: kept.
// CHECK-LABEL: func.func @finite_fill
// CHECK-NOT: echo.attention
// CHECK: echo.select
func.func @finite_fill(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %fill = arith.constant dense<-1.000000e+04> : tensor<2x3x3xf32>
  %keep = echo.triangle lower diagonal 0 inside 1.0 outside 0.0 : tensor<2x3x3xi1>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %y = echo.select %keep, %s, %fill : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}

// -----

// nn.MultiheadAttention with a causal attn_mask and a key_padding_mask:
// masked_fill(causal, padding, −inf) added to the scores is causal with
// the padding mask as a [1, N, 1, Sk] bias (select(padding, −inf, 0)): no
// N×S×Sk mask.
// CHECK-LABEL: func.func @causal_and_padding
// CHECK-SAME: %[[PAD:[^:]*]]: tensor<4x12xi1>
// CHECK: %[[B:.*]] = echo.select %[[PAD]], %{{.*}}, %{{.*}} : tensor<4x12xi1>, tensor<4x12xf32>
// CHECK: %[[B4:.*]] = echo.reshape %[[B]] : (tensor<4x12xf32>) -> tensor<1x4x1x12xf32>
// CHECK: echo.attention {{.*}} bias %[[B4]] {causal = true, scale = 1.000000e+00 : f64}
// CHECK-NOT: echo.triangle
// CHECK-NOT: tensor<4x12x12xi1>
func.func @causal_and_padding(%q: tensor<4x12x8xf32>, %k: tensor<4x12x8xf32>, %v: tensor<4x12x8xf32>, %pad: tensor<4x12xi1>) -> tensor<4x12x8xf32> {
  %pb = echo.broadcast %pad dims = [1] : (tensor<4x12xi1>) -> tensor<4x12x12xi1>
  %ninf = arith.constant dense<0xFF800000> : tensor<4x12x12xf32>
  %tri = echo.triangle lower diagonal 0 inside 0.0 outside 0xFFF0000000000000 : tensor<1x12x12xf32>
  %t2 = echo.reshape %tri : (tensor<1x12x12xf32>) -> tensor<12x12xf32>
  %tb = echo.broadcast %t2 dims = [0] : (tensor<12x12xf32>) -> tensor<4x12x12xf32>
  %mask = echo.select %pb, %ninf, %tb : tensor<4x12x12xi1>, tensor<4x12x12xf32>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<4x12x8xf32>, tensor<4x12x8xf32>) -> tensor<4x12x12xf32>
  %y = echo.add %s, %mask : tensor<4x12x12xf32>
  %p = echo.softmax %y {axis = 2 : i64} : tensor<4x12x12xf32>
  %o = echo.batch_matmul %p, %v : (tensor<4x12x12xf32>, tensor<4x12x8xf32>) -> tensor<4x12x8xf32>
  return %o : tensor<4x12x8xf32>
}
