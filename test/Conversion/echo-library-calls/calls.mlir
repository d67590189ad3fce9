// RUN: echo-opt %s --echo-library-calls --split-input-file --verify-diagnostics | FileCheck %s

// Each compute-heavy op becomes one call on a fresh output buffer; inputs are
// read-only views of their tensors, cast to the runtime's dynamic ABI type.
// The call says how many innermost dims of each buffer the runtime needs
// packed (echo.packed_dims, for echo-library-call-layouts): a GEMM's rows,
// a convolution's images [C, H, W] and whole filter.

// CHECK-LABEL: func.func private @echo_gemm(
// CHECK-SAME: memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64)
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul_transposed
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<16x8xf32>)
// CHECK-DAG: %[[AB:.*]] = bufferization.to_buffer %[[A]] read_only : tensor<8x4xf32> to memref<8x4xf32, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[BB:.*]] = bufferization.to_buffer %[[B]] read_only
// CHECK-DAG: %[[OUT:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK: call @echo_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c0_i64{{[_0-9]*}})
// CHECK-SAME: {echo.packed_dims = array<i64: 1, 1, 1>}
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<4x16xf32> to tensor<4x16xf32>
// CHECK: return %[[R]]
func.func @matmul_transposed(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %c = "echo.matmul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// linear: the output starts as the bias in every row; the GEMM (x · wᵀ)
// accumulates into it. The same @echo_gemm declaration is reused.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[BIAS:.*]]: tensor<16xf32>)
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK: %[[BB:.*]] = bufferization.to_buffer %[[BIAS]] read_only
// CHECK: linalg.broadcast ins(%[[BB]] : memref<16xf32, strided<[?], offset: ?>>) outs(%[[OUT]] : memref<4x16xf32>) dimensions = [0]
// CHECK: call @echo_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}})
// CHECK-NOT: func.func private @echo_gemm
func.func @linear(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %y = "echo.linear"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @batch_matmul
// CHECK: call @echo_batched_gemm({{.*}}) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i64, i64, i64) -> ()
func.func @batch_matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %c = "echo.batch_matmul"(%a, %b) : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %c : tensor<2x4x16xf32>
}

// Convolutions: strides (h, w), padding (h, w), then the group count (1
// when the op has none).
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[DY:.*]]: tensor<2x4x4x4xf32>)
// CHECK: call @echo_conv2d_forward(%{{.*}}, %{{.*}}, %{{.*}}, %c2_i64{{.*}}, %c2_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{[_0-9]*}})
// CHECK-SAME: {echo.packed_dims = array<i64: 3, 4, 3>}
// CHECK: call @echo_conv2d_backward_data(%{{.*}}, %{{.*}}, %{{.*}}, %c2_i64{{.*}}, %c2_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{[_0-9]*}})
// CHECK-SAME: {echo.packed_dims = array<i64: 4, 3, 3>}
// CHECK: call @echo_conv2d_backward_filter(%{{.*}}, %{{.*}}, %{{.*}}, %c2_i64{{.*}}, %c2_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{[_0-9]*}})
// CHECK-SAME: {echo.packed_dims = array<i64: 3, 3, 4>}
// CHECK-NOT: echo.conv2d
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %dy: tensor<2x4x4x4xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) {
  %y = "echo.conv2d"(%x, %w) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  %dx = "echo.conv2d_grad_input"(%w, %dy) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<4x3x3x3xf32>, tensor<2x4x4x4xf32>) -> tensor<2x3x8x8xf32>
  %dw = "echo.conv2d_grad_filter"(%x, %dy) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x4x4x4xf32>) -> tensor<4x3x3x3xf32>
  return %y, %dx, %dw : tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
}

// A grouped (here depthwise) convolution passes its group count last; the
// filter keeps its [F, C/groups, KH, KW] shape.
// CHECK-LABEL: func.func @grouped_conv
// CHECK: call @echo_conv2d_forward(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c6_i64{{[_0-9]*}}) {echo.packed_dims = array<i64: 3, 4, 3>} : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64) -> ()
// CHECK: call @echo_conv2d_backward_data(%{{.*}}, %{{.*}}, %{{.*}}, {{.*}}, %c6_i64{{.*}})
// CHECK: call @echo_conv2d_backward_filter(%{{.*}}, %{{.*}}, %{{.*}}, {{.*}}, %c6_i64{{.*}})
func.func @grouped_conv(%x: tensor<2x6x8x8xf32>, %w: tensor<12x1x3x3xf32>, %dy: tensor<2x12x6x6xf32>) -> (tensor<2x12x6x6xf32>, tensor<2x6x8x8xf32>, tensor<12x1x3x3xf32>) {
  %y = "echo.conv2d"(%x, %w) {groups = 6 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<12x1x3x3xf32>) -> tensor<2x12x6x6xf32>
  %dx = "echo.conv2d_grad_input"(%w, %dy) {groups = 6 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<12x1x3x3xf32>, tensor<2x12x6x6xf32>) -> tensor<2x6x8x8xf32>
  %dw = "echo.conv2d_grad_filter"(%x, %dy) {groups = 6 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<2x12x6x6xf32>) -> tensor<12x1x3x3xf32>
  return %y, %dx, %dw : tensor<2x12x6x6xf32>, tensor<2x6x8x8xf32>, tensor<12x1x3x3xf32>
}

// Elementwise ops are not library calls.
// CHECK-LABEL: func.func @elementwise
// CHECK: echo.tanh
// CHECK-NOT: call
func.func @elementwise(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "echo.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The runtime's calls take f32: f16 and bf16 operands are converted to f32
// before the call (the bias too) and the result rounded back after it.
// CHECK-LABEL: func.func @f16
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<8x16xf16>)
// CHECK-DAG: %[[AW:.*]] = echo.cast %[[A]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-DAG: %[[BW:.*]] = echo.cast %[[B]] : tensor<8x16xf16> to tensor<8x16xf32>
// CHECK: call @echo_gemm(
// CHECK: %[[C:.*]] = bufferization.to_tensor %{{.*}} : memref<4x16xf32> to tensor<4x16xf32>
// CHECK: %[[CN:.*]] = echo.cast %[[C]] : tensor<4x16xf32> to tensor<4x16xf16>
// CHECK: return %[[CN]] : tensor<4x16xf16>
func.func @f16(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %c = "echo.matmul"(%a, %b) : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  return %c : tensor<4x16xf16>
}

// -----

// CHECK-LABEL: func.func @linear_bf16
// CHECK-DAG: echo.cast %{{.*}} : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-DAG: echo.cast %{{.*}} : tensor<16x8xbf16> to tensor<16x8xf32>
// CHECK-DAG: %[[BIAS:.*]] = echo.cast %{{.*}} : tensor<16xbf16> to tensor<16xf32>
// CHECK: bufferization.to_buffer %[[BIAS]]
// CHECK: call @echo_gemm(
// CHECK: echo.cast %{{.*}} : tensor<4x16xf32> to tensor<4x16xbf16>
func.func @linear_bf16(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>, %b: tensor<16xbf16>) -> tensor<4x16xbf16> {
  %y = "echo.linear"(%x, %w, %b) : (tensor<4x8xbf16>, tensor<16x8xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// expected-note @+1 {{defined here}}
func.func private @echo_gemm(memref<?x?xf32>)

func.func @taken(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'echo.matmul' op echo-library-calls: 'echo_gemm' is already defined with type '(memref<?x?xf32>) -> ()'}}
  %c = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

memref.global "private" @echo_batched_gemm : memref<f32>

func.func @not_a_function(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'echo.batch_matmul' op echo-library-calls: the symbol 'echo_batched_gemm' is taken by something other than a function}}
  %c = "echo.batch_matmul"(%a, %b) : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %c : tensor<2x4x16xf32>
}
