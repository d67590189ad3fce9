// RUN: echo-opt %s --echo-library-calls --split-input-file | FileCheck %s
// RUN: echo-opt %s --echo-library-calls="bf16-calls=true" --split-input-file | FileCheck %s --check-prefix=BF16

// A transposed convolution is the runtimes' backward data with x in the
// place of dy: the filter, then x, into an output buffer whose extent
// carries output_padding; strides, padding and the group count follow.
// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x4x4xf32>, %[[W:.*]]: tensor<8x2x3x3xf32>)
// CHECK-DAG: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only
// CHECK-DAG: %[[WB:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK-DAG: %[[OUT:.*]] = memref.alloc() : memref<2x4x8x8xf32>
// CHECK-DAG: %[[WC:.*]] = memref.cast %[[WB]]
// CHECK-DAG: %[[XC:.*]] = memref.cast %[[XB]]
// CHECK-DAG: %[[OC:.*]] = memref.cast %[[OUT]]
// CHECK: call @echo_conv2d_backward_data(%[[WC]], %[[XC]], %[[OC]], %c2_i64{{.*}}, %c2_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c2_i64{{.*}})
// CHECK-NOT: echo.conv_transpose2d
func.func @conv_transpose(%x: tensor<2x8x4x4xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %y = "echo.conv_transpose2d"(%x, %w) {groups = 2 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %y : tensor<2x4x8x8xf32>
}

// -----

// bf16 operands take the runtime's 16-bit form where it has one.
// BF16-LABEL: func.func @conv_transpose_bf16
// BF16: call @echo_conv2d_backward_data_bf16(
func.func @conv_transpose_bf16(%x: tensor<2x8x4x4xbf16>, %w: tensor<8x4x2x2xbf16>) -> tensor<2x4x8x8xbf16> {
  %y = "echo.conv_transpose2d"(%x, %w) {padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xbf16>, tensor<8x4x2x2xbf16>) -> tensor<2x4x8x8xbf16>
  return %y : tensor<2x4x8x8xbf16>
}
