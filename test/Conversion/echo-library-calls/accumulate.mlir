// RUN: echo-opt %s --echo-library-calls --split-input-file | FileCheck %s
// RUN: echo-opt %s --echo-library-calls="bf16-calls=true" --split-input-file | FileCheck %s --check-prefix=BF16
// RUN: echo-opt %s --echo-library-calls --convert-echo-to-linalg --split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize | FileCheck %s --check-prefix=BUF

// A GEMM whose only user adds its product to a tensor defined before the
// GEMM accumulates into that tensor's buffer (accumulate = 1): the product
// gets no buffer of its own and the add is gone.

// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>, %[[C:.*]]: tensor<4x8xf32>)
// CHECK: %[[P:.*]] = call @produce
// CHECK-NOT: memref.alloc
// CHECK: %[[OUT:.*]] = bufferization.to_buffer %[[P]] : tensor<4x16xf32> to memref<4x16xf32>
// CHECK: call @echo_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}})
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NOT: echo.add
// CHECK: return %[[R]]
// BUF-LABEL: func.func @accumulate
// BUF: %[[P:.*]] = call @produce
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: call @echo_gemm(
// BUF: return %[[P]]
func.func private @produce() -> tensor<4x16xf32>
func.func @accumulate(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %acc = func.call @produce() : () -> tensor<4x16xf32>
  %m = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %s = "echo.add"(%acc, %m) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// -----

// The tensor is defined after the GEMM: accumulating would run the GEMM
// later and keep its inputs alive longer; the product keeps its buffer.
// CHECK-LABEL: func.func @defined_after
// CHECK: memref.alloc()
// CHECK: call @echo_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}})
// CHECK: call @produce
// CHECK: echo.add
func.func private @produce() -> tensor<4x16xf32>
func.func @defined_after(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %m = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %acc = func.call @produce() : () -> tensor<4x16xf32>
  %s = "echo.add"(%acc, %m) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// -----

// The product on the left, and a batched GEMM.
// CHECK-LABEL: func.func @batched
// CHECK: call @echo_batched_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}})
// CHECK-NOT: echo.add
// BUF-LABEL: func.func @batched
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: call @echo_batched_gemm(
func.func private @produce3() -> tensor<2x4x16xf32>
func.func @batched(%a: tensor<2x4x8xf32>, %b: tensor<2x16x8xf32>) -> tensor<2x4x16xf32> {
  %acc = func.call @produce3() : () -> tensor<2x4x16xf32>
  %m = "echo.batch_matmul"(%a, %b) {transpose_b = true} : (tensor<2x4x8xf32>, tensor<2x16x8xf32>) -> tensor<2x4x16xf32>
  %s = "echo.add"(%m, %acc) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %s : tensor<2x4x16xf32>
}

// -----

// Not accumulated: an accumulator read again after the add (%s, read by
// the mul: canonicalization folds to_buffer(to_tensor(m)) to m before
// bufferization could copy it, so the mul would read s + m2), and a
// function argument (the caller's buffer is never written). The first sum
// accumulates; the second GEMM has a buffer of its own and the mul reads
// the first sum, not the second.
// CHECK-LABEL: func.func @read_again_or_argument
// CHECK: call @echo_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}})
// CHECK: memref.alloc()
// CHECK: call @echo_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}})
// CHECK: echo.add
// CHECK: memref.alloc()
// CHECK: call @echo_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}})
// CHECK: echo.add
// BUF-LABEL: func.func @read_again_or_argument
// BUF-SAME: (%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<8x16xf32>, %[[X:.*]]: memref<4x16xf32>)
// BUF: %[[S:.*]] = call @produce()
// BUF: %[[SC:.*]] = memref.cast %[[S]]
// BUF: call @echo_gemm(%{{.*}}, %{{.*}}, %[[SC]], %c0_i64{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}})
// BUF: %[[M2:.*]] = memref.alloc()
// BUF: %[[M2C:.*]] = memref.cast %[[M2]]
// BUF: call @echo_gemm(%{{.*}}, %{{.*}}, %[[M2C]], %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}})
// BUF: %[[T:.*]] = memref.alloc()
// BUF: linalg.generic {{.*}} ins(%[[S]], %[[M2]] : {{.*}}) outs(%[[T]] :
// BUF: linalg.generic {{.*}} ins(%[[S]], %[[T]] : {{.*}}) outs(
// BUF-NOT: memref.copy %[[X]]
func.func @read_again_or_argument(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %acc = func.call @produce() : () -> tensor<4x16xf32>
  %m1 = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %s = "echo.add"(%acc, %m1) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %m2 = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %t = "echo.add"(%s, %m2) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %u = "echo.mul"(%s, %t) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %m3 = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %v = "echo.add"(%x, %m3) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %u, %v : tensor<4x16xf32>, tensor<4x16xf32>
}
func.func private @produce() -> tensor<4x16xf32>

// -----

// Not accumulated: a product with another user, a product added to
// itself, a linear (its output already starts as its bias), and f16
// (widened to f32 around the call).
// CHECK-LABEL: func.func @kept
// CHECK: memref.alloc()
// CHECK: echo.add
// CHECK: echo.add
// CHECK: memref.alloc()
// CHECK: echo.add
// CHECK: memref.alloc()
// CHECK: echo.add
// CHECK: memref.alloc()
// CHECK: echo.add
// CHECK-NOT: to_buffer {{%[0-9]+}} :
func.func @kept(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %w: tensor<16x8xf32>, %bias: tensor<16xf32>,
                %acc: tensor<4x16xf32>, %h: tensor<4x8xf16>, %g: tensor<8x16xf16>, %acch: tensor<4x16xf16>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf16>) {
  %m = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %s = "echo.add"(%acc, %m) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %t = "echo.add"(%s, %m) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %n = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %u = "echo.add"(%n, %n) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %l = "echo.linear"(%a, %w, %bias) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %v = "echo.add"(%acc, %l) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = "echo.matmul"(%h, %g) : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  %x = "echo.add"(%acch, %e) : (tensor<4x16xf16>, tensor<4x16xf16>) -> tensor<4x16xf16>
  return %s, %t, %u, %v, %x : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf16>
}

// -----

// A sum of products (a weight's gradient over time steps): the first
// product is the accumulator, every later one adds into its buffer as it
// is computed.
// CHECK-LABEL: func.func @sum_of_products
// CHECK-COUNT-1: memref.alloc()
// CHECK-NOT: memref.alloc()
// CHECK-NOT: echo.add
// BUF-LABEL: func.func @sum_of_products
// BUF-COUNT-1: memref.alloc()
// BUF-NOT: memref.alloc()
// BUF-NOT: memref.copy
func.func @sum_of_products(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x8xf32>, %d: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %m1 = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %m2 = "echo.matmul"(%c, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %s1 = "echo.add"(%m1, %m2) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %m3 = "echo.matmul"(%d, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %s2 = "echo.add"(%s1, %m3) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s2 : tensor<4x16xf32>
}

// -----

// A product over a contraction of length 1 (an outer product) is no call:
// it is left to the lowering (an elementwise generic), transposed or not,
// batched or not.
// CHECK-LABEL: func.func @outer_products
// BUF-LABEL: func.func @outer_products
// CHECK-NOT: call @echo_
// CHECK: echo.matmul
// CHECK: echo.matmul
// CHECK: echo.batch_matmul
// CHECK-NOT: call @echo_
func.func @outer_products(%a: tensor<12x1xf32>, %b: tensor<1x8xf32>, %at: tensor<1x12xf32>, %bt: tensor<8x1xf32>,
                         %x: tensor<2x3x1xf32>, %y: tensor<2x1x5xf32>) -> (tensor<12x8xf32>, tensor<12x8xf32>, tensor<2x3x5xf32>) {
  %p = "echo.matmul"(%a, %b) : (tensor<12x1xf32>, tensor<1x8xf32>) -> tensor<12x8xf32>
  %q = "echo.matmul"(%at, %bt) {transpose_a = true, transpose_b = true} : (tensor<1x12xf32>, tensor<8x1xf32>) -> tensor<12x8xf32>
  %r = "echo.batch_matmul"(%x, %y) : (tensor<2x3x1xf32>, tensor<2x1x5xf32>) -> tensor<2x3x5xf32>
  return %p, %q, %r : tensor<12x8xf32>, tensor<12x8xf32>, tensor<2x3x5xf32>
}

// -----

// bf16 products (a call of their own with bf16-calls) are not accumulated:
// accumulating rounds the sum once where the call and the add round twice.
// BF16-LABEL: func.func @bf16
// CHECK-LABEL: func.func @bf16
// BF16: memref.alloc() : memref<4x16xbf16>
// BF16: call @echo_gemm_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}})
// BF16: echo.add
func.func @bf16(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>, %acc: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %m = "echo.matmul"(%a, %b) : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %s = "echo.add"(%acc, %m) : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  return %s : tensor<4x16xbf16>
}
