// echo-library-calls bf16-calls and f16-calls: an all-bf16 (all-f16) GEMM
// or convolution calls the runtime's bf16 (f16) form on its 16-bit
// buffers; without the option for its type the operands are converted to
// f32 around the f32 call.
// RUN: echo-opt %s --split-input-file --echo-library-calls="bf16-calls=true" | FileCheck %s --check-prefix=BF16
// RUN: echo-opt %s --split-input-file --echo-library-calls="f16-calls=true" | FileCheck %s --check-prefix=F16
// RUN: echo-opt %s --split-input-file --echo-library-calls="bf16-calls=true f16-calls=true" | FileCheck %s --check-prefix=BOTH
// RUN: echo-opt %s --split-input-file --echo-library-calls="bf16-calls=false" | FileCheck %s --check-prefix=WIDEN
// RUN: echo-opt %s --split-input-file --echo-library-calls | FileCheck %s --check-prefix=WIDEN

// BF16-LABEL: func.func @gemms
// BF16-NOT: echo.cast
// BF16: call @echo_gemm_bf16({{.*}}) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, i64, i64, i64) -> ()
// BF16: call @echo_batched_gemm_bf16(
// BF16: call @echo_gemm_bf16(
// BF16: echo.cast {{.*}} : tensor<4x8xf16> to tensor<4x8xf32>
// BF16: call @echo_gemm(
// F16-LABEL: func.func @gemms
// F16: echo.cast {{.*}} : tensor<4x8xbf16> to tensor<4x8xf32>
// F16: call @echo_gemm(
// F16-NOT: _bf16
// F16: call @echo_gemm_f16({{.*}}) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, i64, i64, i64) -> ()
// F16-NOT: echo.cast
// BOTH-LABEL: func.func @gemms
// BOTH-NOT: echo.cast
// BOTH: call @echo_gemm_bf16(
// BOTH: call @echo_batched_gemm_bf16(
// BOTH: call @echo_gemm_bf16(
// BOTH: call @echo_gemm_f16(
// BOTH-NOT: echo.cast
// WIDEN-LABEL: func.func @gemms
// WIDEN-NOT: _bf16
// WIDEN: echo.cast {{.*}} : tensor<4x8xbf16> to tensor<4x8xf32>
// WIDEN: call @echo_gemm(
func.func @gemms(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>,
                 %x: tensor<2x4x8xbf16>, %y: tensor<2x8x16xbf16>,
                 %w: tensor<16x8xbf16>, %bias: tensor<16xbf16>,
                 %h: tensor<4x8xf16>, %g: tensor<8x16xf16>)
    -> (tensor<4x16xbf16>, tensor<2x4x16xbf16>, tensor<4x16xbf16>, tensor<4x16xf16>) {
  %c = "echo.matmul"(%a, %b) : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %d = "echo.batch_matmul"(%x, %y) : (tensor<2x4x8xbf16>, tensor<2x8x16xbf16>) -> tensor<2x4x16xbf16>
  // The linear's output starts as its broadcast bias and accumulates.
  %l = "echo.linear"(%a, %w, %bias) : (tensor<4x8xbf16>, tensor<16x8xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
  // f16: its own form with f16-calls, else f32 around the call.
  %e = "echo.matmul"(%h, %g) : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  return %c, %d, %l, %e : tensor<4x16xbf16>, tensor<2x4x16xbf16>, tensor<4x16xbf16>, tensor<4x16xf16>
}

// -----

// A convolution and its two gradients have 16-bit forms too.
// BOTH-LABEL: func.func @conv
// BOTH-NOT: echo.cast
// BOTH: call @echo_conv2d_forward_bf16({{.*}}) {echo.packed_dims = array<i64: 3, 4, 3>} : (memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64) -> ()
// BOTH: call @echo_conv2d_backward_data_f16(
// BOTH: call @echo_conv2d_backward_filter_f16(
// BOTH-NOT: echo.cast
// F16-LABEL: func.func @conv
// F16: echo.cast {{.*}} : tensor<1x2x4x4xbf16> to tensor<1x2x4x4xf32>
// F16: call @echo_conv2d_forward(
// F16: call @echo_conv2d_backward_data_f16(
// F16: call @echo_conv2d_backward_filter_f16(
// BF16-LABEL: func.func @conv
// BF16: call @echo_conv2d_forward_bf16(
// BF16: echo.cast {{.*}} : tensor<1x3x4x4xf16> to tensor<1x3x4x4xf32>
// BF16: call @echo_conv2d_backward_data(
// BF16: call @echo_conv2d_backward_filter(
// WIDEN-LABEL: func.func @conv
// WIDEN: echo.cast {{.*}} : tensor<1x2x4x4xbf16> to tensor<1x2x4x4xf32>
// WIDEN: call @echo_conv2d_forward(
// WIDEN: echo.cast {{.*}} : tensor<1x3x4x4xf32> to tensor<1x3x4x4xbf16>
func.func @conv(%x: tensor<1x2x4x4xbf16>, %w: tensor<3x2x3x3xbf16>,
                %xh: tensor<1x2x4x4xf16>, %wh: tensor<3x2x3x3xf16>,
                %dy: tensor<1x3x4x4xf16>)
    -> (tensor<1x3x4x4xbf16>, tensor<1x2x4x4xf16>, tensor<3x2x3x3xf16>) {
  %y = "echo.conv2d"(%x, %w) {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xbf16>, tensor<3x2x3x3xbf16>) -> tensor<1x3x4x4xbf16>
  %dx = "echo.conv2d_grad_input"(%wh, %dy) {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<3x2x3x3xf16>, tensor<1x3x4x4xf16>) -> tensor<1x2x4x4xf16>
  %dw = "echo.conv2d_grad_filter"(%xh, %dy) {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf16>, tensor<1x3x4x4xf16>) -> tensor<3x2x3x3xf16>
  return %y, %dx, %dw : tensor<1x3x4x4xbf16>, tensor<1x2x4x4xf16>, tensor<3x2x3x3xf16>
}
