// Hugging Face's combined masks: a causal triangle plus a key-padding mask
// from an attention_mask input. GPT-2 adds the padding mask [B, 1, 1, Sk]
// to torch.where(causal, scores, finfo.min); LLaMA adds one [B, 1, S, Sk]
// mask (the expanded padding mask plus a finfo.min triangle) and floors the
// sum at finfo.min (torch.max, imported as a clamp). Both become a causal
// echo.attention with the padding part as a [B, 1, 1, Sk] bias, rebuilt
// without its query dim: no [B, 1, S, Sk] value is left. A mask that
// depends on the query otherwise (padding queries masked too) stays whole.
// RUN: echo-opt %s -split-input-file -echo-fuse-attention | FileCheck %s

// GPT-2: where(causal, x, finfo.min) + broadcast(padding [B, Sk]).
// CHECK-LABEL: func.func @gpt2
// CHECK-SAME: %[[PAD:[^:]*]]: tensor<2x6xf32>
// CHECK: %[[B4:.*]] = echo.reshape %[[PAD]] : (tensor<2x6xf32>) -> tensor<2x1x1x6xf32>
// CHECK: echo.attention %{{.*}}, %{{.*}}, %{{.*}} bias %[[B4]] {causal = true, scale = 5.000000e-01 : f64} : {{.*}} -> (tensor<2x2x6x4xf32>, tensor<2x2x6xf32>)
// CHECK-NOT: echo.triangle
// CHECK-NOT: echo.select
// CHECK-NOT: x6x6x
func.func @gpt2(%q: tensor<4x6x4xf32>, %k: tensor<4x6x4xf32>, %v: tensor<4x6x4xf32>, %pad: tensor<2x6xf32>) -> tensor<4x6x4xf32> {
  %c = arith.constant dense<2.000000e+00> : tensor<2x2x6x6xf32>
  %min = arith.constant dense<-3.40282347E+38> : tensor<2x2x6x6xf32>
  %keep = echo.triangle lower diagonal 0 inside 1.0 outside 0.0 : tensor<6x6xi1>
  %kb = echo.broadcast %keep dims = [0, 1] : (tensor<6x6xi1>) -> tensor<2x2x6x6xi1>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<4x6x4xf32>, tensor<4x6x4xf32>) -> tensor<4x6x6xf32>
  %s4 = echo.reshape %s : (tensor<4x6x6xf32>) -> tensor<2x2x6x6xf32>
  %x = echo.div %s4, %c : tensor<2x2x6x6xf32>
  %w = echo.select %kb, %x, %min : tensor<2x2x6x6xi1>, tensor<2x2x6x6xf32>
  %pb = echo.broadcast %pad dims = [1, 2] : (tensor<2x6xf32>) -> tensor<2x2x6x6xf32>
  %y = echo.add %w, %pb : tensor<2x2x6x6xf32>
  %p = echo.softmax %y {axis = 3 : i64} : tensor<2x2x6x6xf32>
  %p3 = echo.reshape %p : (tensor<2x2x6x6xf32>) -> tensor<4x6x6xf32>
  %o = echo.batch_matmul %p3, %v : (tensor<4x6x6xf32>, tensor<4x6x4xf32>) -> tensor<4x6x4xf32>
  return %o : tensor<4x6x4xf32>
}

// -----

// LLaMA: the attention_mask [B, Sk] expanded to [B, 1, S, Sk], inverted and
// masked_fill'ed with finfo.min, plus the finfo.min triangle, added to the
// scores (through a view and a broadcast along the heads), then the floor.
// The padding part is rebuilt on [B, 1, 1, Sk].
// CHECK-LABEL: func.func @llama
// CHECK-SAME: %[[MASK:[^:]*]]: tensor<2x6xi32>
// CHECK: %[[M3:.*]] = echo.reshape %[[MASK]] : (tensor<2x6xi32>) -> tensor<2x1x6xi32>
// CHECK: %[[M4:.*]] = echo.reshape %[[M3]] : (tensor<2x1x6xi32>) -> tensor<2x1x1x6xi32>
// CHECK: %[[MF:.*]] = echo.convert %[[M4]] : tensor<2x1x1x6xi32> to tensor<2x1x1x6xf32>
// CHECK: %[[INV:.*]] = echo.sub %{{.*}}, %[[MF]] : tensor<2x1x1x6xf32>
// CHECK: %[[IB:.*]] = echo.convert %[[INV]] : tensor<2x1x1x6xf32> to tensor<2x1x1x6xi1>
// CHECK: %[[PAD:.*]] = echo.select %[[IB]], %{{.*}}, %[[INV]] : tensor<2x1x1x6xi1>, tensor<2x1x1x6xf32>
// CHECK: %[[BIAS:.*]] = echo.reshape %[[PAD]] : (tensor<2x1x1x6xf32>) -> tensor<2x1x1x6xf32>
// CHECK: echo.attention %{{.*}}, %{{.*}}, %{{.*}} bias %[[BIAS]] {causal = true, scale = 5.000000e-01 : f64}
// CHECK-NOT: echo.triangle
// CHECK-NOT: echo.clamp
// CHECK-NOT: x6x6x
func.func @llama(%q: tensor<4x6x4xf32>, %k: tensor<4x6x4xf32>, %v: tensor<4x6x4xf32>, %mask: tensor<2x6xi32>) -> tensor<4x6x4xf32> {
  %m3 = echo.reshape %mask : (tensor<2x6xi32>) -> tensor<2x1x6xi32>
  %me = echo.broadcast %m3 dims = [2] : (tensor<2x1x6xi32>) -> tensor<2x1x6x6xi32>
  %mf = "echo.convert"(%me) : (tensor<2x1x6x6xi32>) -> tensor<2x1x6x6xf32>
  %one = arith.constant dense<1.000000e+00> : tensor<2x1x6x6xf32>
  %inv = echo.sub %one, %mf : tensor<2x1x6x6xf32>
  %ib = "echo.convert"(%inv) : (tensor<2x1x6x6xf32>) -> tensor<2x1x6x6xi1>
  %fmin = arith.constant dense<-3.40282347E+38> : tensor<2x1x6x6xf32>
  %padding = echo.select %ib, %fmin, %inv : tensor<2x1x6x6xi1>, tensor<2x1x6x6xf32>
  %tri = echo.triangle lower diagonal 0 inside 0.0 outside -3.40282347E+38 : tensor<6x6xf32>
  %tb = echo.broadcast %tri dims = [0, 1] : (tensor<6x6xf32>) -> tensor<2x1x6x6xf32>
  %combined = echo.add %padding, %tb : tensor<2x1x6x6xf32>
  %c = arith.constant dense<2.000000e+00> : tensor<2x2x6x6xf32>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<4x6x4xf32>, tensor<4x6x4xf32>) -> tensor<4x6x6xf32>
  %s4 = echo.reshape %s : (tensor<4x6x6xf32>) -> tensor<2x2x6x6xf32>
  %x = echo.div %s4, %c : tensor<2x2x6x6xf32>
  %c3 = echo.reshape %combined : (tensor<2x1x6x6xf32>) -> tensor<2x6x6xf32>
  %cb = echo.broadcast %c3 dims = [1] : (tensor<2x6x6xf32>) -> tensor<2x2x6x6xf32>
  %y = echo.add %x, %cb : tensor<2x2x6x6xf32>
  %f = echo.clamp %y {max = 0x7FF0000000000000 : f64, min = -3.4028234663852886e+38 : f64} : tensor<2x2x6x6xf32>
  %p = echo.softmax %f {axis = 3 : i64} : tensor<2x2x6x6xf32>
  %p3 = echo.reshape %p : (tensor<2x2x6x6xf32>) -> tensor<4x6x6xf32>
  %o = echo.batch_matmul %p3, %v : (tensor<4x6x6xf32>, tensor<4x6x4xf32>) -> tensor<4x6x4xf32>
  return %o : tensor<4x6x4xf32>
}

// -----

// Near miss: the padding mask also masks padding queries (the product of
// the mask broadcast along the keys and along the queries): it depends on
// the query otherwise than through the triangle, so it is not causal; it
// stays a [B, 1, S, Sk] mask, passed whole as the bias.
// CHECK-LABEL: func.func @query_padded
// CHECK: echo.triangle
// CHECK: echo.attention %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} {scale = 1.000000e+00 : f64} : ({{.*}}, tensor<2x1x6x6xf32>)
func.func @query_padded(%q: tensor<4x6x4xf32>, %k: tensor<4x6x4xf32>, %v: tensor<4x6x4xf32>, %mask: tensor<2x6xf32>) -> tensor<4x6x4xf32> {
  %m3 = echo.reshape %mask : (tensor<2x6xf32>) -> tensor<2x1x6xf32>
  %mk = echo.broadcast %m3 dims = [2] : (tensor<2x1x6xf32>) -> tensor<2x1x6x6xf32>
  %mq = echo.broadcast %m3 dims = [3] : (tensor<2x1x6xf32>) -> tensor<2x1x6x6xf32>
  %both = echo.mul %mq, %mk : tensor<2x1x6x6xf32>
  %one = arith.constant dense<1.000000e+00> : tensor<2x1x6x6xf32>
  %inv = echo.sub %one, %both : tensor<2x1x6x6xf32>
  %fmin = arith.constant dense<-3.40282347E+38> : tensor<2x1x6x6xf32>
  %padding = echo.mul %inv, %fmin : tensor<2x1x6x6xf32>
  %tri = echo.triangle lower diagonal 0 inside 0.0 outside -3.40282347E+38 : tensor<6x6xf32>
  %tb = echo.broadcast %tri dims = [0, 1] : (tensor<6x6xf32>) -> tensor<2x1x6x6xf32>
  %combined = echo.add %padding, %tb : tensor<2x1x6x6xf32>
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<4x6x4xf32>, tensor<4x6x4xf32>) -> tensor<4x6x6xf32>
  %s4 = echo.reshape %s : (tensor<4x6x6xf32>) -> tensor<2x2x6x6xf32>
  %c3 = echo.reshape %combined : (tensor<2x1x6x6xf32>) -> tensor<2x6x6xf32>
  %cb = echo.broadcast %c3 dims = [1] : (tensor<2x6x6xf32>) -> tensor<2x2x6x6xf32>
  %y = echo.add %s4, %cb : tensor<2x2x6x6xf32>
  %p = echo.softmax %y {axis = 3 : i64} : tensor<2x2x6x6xf32>
  %p3 = echo.reshape %p : (tensor<2x2x6x6xf32>) -> tensor<4x6x6xf32>
  %o = echo.batch_matmul %p3, %v : (tensor<4x6x6xf32>, tensor<4x6x4xf32>) -> tensor<4x6x4xf32>
  return %o : tensor<4x6x4xf32>
}

// -----

// Near miss: the floor without a causal mask (a row may be all floor) stays.
// CHECK-LABEL: func.func @floor_only
// CHECK-NOT: echo.attention
// CHECK: echo.clamp
func.func @floor_only(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %s = echo.batch_matmul %q, %k {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %f = echo.clamp %s {max = 0x7FF0000000000000 : f64, min = -3.4028234663852886e+38 : f64} : tensor<2x3x3xf32>
  %p = echo.softmax %f {axis = 2 : i64} : tensor<2x3x3xf32>
  %o = echo.batch_matmul %p, %v : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %o : tensor<2x3x4xf32>
}
