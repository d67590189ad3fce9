// RUN: echo-opt %s --echo-library-calls --split-input-file | FileCheck %s

// echo.attention becomes echo_attention_forward with two fresh outputs; no
// bias: a zero [1,1,1,1] buffer; no step seed: a zero and the flag 0. The
// scale (0.25) and the dropout ratio (0) go as their f64 bits.
// CHECK-LABEL: func.func private @echo_attention_forward(
// CHECK-SAME: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<i64, strided<[], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @forward
// CHECK-DAG: arith.constant dense<0.000000e+00> : tensor<1x1x1x1xf32>
// CHECK-DAG: arith.constant dense<0> : tensor<i64>
// CHECK-DAG: %[[OUT:.*]] = memref.alloc() : memref<2x4x8x16xf32>
// CHECK-DAG: %[[LSE:.*]] = memref.alloc() : memref<2x4x8xf32>
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 4598175219545276416 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: call @echo_attention_forward({{.*}}, %[[SCALE]], %[[ONE]], %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}})
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
func.func @forward(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %o, %lse = echo.attention %q, %k, %v {scale = 2.500000e-01 : f64, causal = true}
      : (tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>)
      -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>)
  return %o : tensor<2x4x8x16xf32>
}

// -----

// The gradient: three outputs; the bias and the step seed passed on, the
// flag 1; bf16 operands widened to f32 around the call and the results
// rounded back.
// CHECK-LABEL: func.func private @echo_attention_backward(
// CHECK-LABEL: func.func @backward
// CHECK-SAME: %[[B:[^:]*]]: tensor<1x1x1x8xbf16>, %[[S:[^:]*]]: tensor<i64>
// CHECK: %[[BW:.*]] = echo.cast %[[B]] : tensor<1x1x1x8xbf16> to tensor<1x1x1x8xf32>
// CHECK: bufferization.to_buffer %[[BW]]
// CHECK: bufferization.to_buffer %[[S]] read_only : tensor<i64> to memref<i64, strided<[], offset: ?>>
// CHECK-COUNT-3: memref.alloc()
// CHECK: call @echo_attention_backward({{.*}}, %c1_i64{{.*}})
// CHECK-COUNT-3: echo.cast {{.*}} : tensor<1x2x8x4xf32> to tensor<1x2x8x4xbf16>
func.func @backward(%q: tensor<1x2x8x4xbf16>, %o: tensor<1x2x8x4xbf16>, %l: tensor<1x2x8xf32>, %b: tensor<1x1x1x8xbf16>, %s: tensor<i64>) -> (tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>) {
  %dq, %dk, %dv = echo.attention_grad %q, %q, %q, %o, %l, %o bias %b seed %s
      {scale = 5.000000e-01 : f64, dropout_ratio = 1.000000e-01 : f64, seed = 3 : i64}
      : (tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8xf32>, tensor<1x2x8x4xbf16>, tensor<1x1x1x8xbf16>, tensor<i64>)
      -> (tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>)
  return %dq, %dk, %dv : tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>
}
