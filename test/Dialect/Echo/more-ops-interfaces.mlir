// What the ops of EchoMoreOps.td tell the passes through their interfaces:
// which forward values each gradient reads (and that it reads no others),
// the adjoints they build (FLOPs: more-ops-cost.mlir).
// RUN: echo-opt %s -split-input-file -echo-test-gradient-reads -verify-diagnostics -o /dev/null
// RUN: echo-opt %s -split-input-file -echo-test-vjp -o /dev/null
// RUN: echo-opt %s -split-input-file -echo-test-vjp | FileCheck %s

// CHECK-LABEL: func.func @stop_gradient_and_sinusoids
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @stop_gradient_and_sinusoids(%x: tensor<4x8xf32>) {
  // No adjoint for the operand: nothing is built.
  // CHECK: echo.stop_gradient %[[X]]
  // CHECK-NEXT: tensor.empty() {test.adjoint_seed = 0 : i64}
  // CHECK-NOT: test.adjoint_of
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %0 = "echo.stop_gradient"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // sin: dy · cos(x).
  // CHECK: echo.sin %[[X]]
  // CHECK-NEXT: %[[DS:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64}
  // CHECK-NEXT: %[[C:.*]] = echo.cos %[[X]]
  // CHECK-NEXT: echo.mul %[[DS]], %[[C]] {test.adjoint_of = 0 : i64}
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %1 = "echo.sin"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // cos: dy · −sin(x).
  // CHECK: echo.cos %[[X]]
  // CHECK-NEXT: %[[DC:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64}
  // CHECK-NEXT: %[[S:.*]] = echo.sin %[[X]]
  // CHECK-NEXT: %[[N:.*]] = echo.neg %[[S]]
  // CHECK-NEXT: echo.mul %[[DC]], %[[N]] {test.adjoint_of = 0 : i64}
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %2 = "echo.cos"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// The transposed convolution's adjoints: a convolution of dy with w (for x)
// and that convolution's filter gradient (for w); the output is not read.
// CHECK-LABEL: func.func @conv_transpose2d
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x4x4xf32>, %[[W:.*]]: tensor<8x4x3x3xf32>)
func.func @conv_transpose2d(%x: tensor<2x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  // CHECK: echo.conv_transpose2d %[[X]], %[[W]]
  // CHECK-NEXT: %[[DY:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64}
  // CHECK-NEXT: echo.conv2d %[[DY]], %[[W]] {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, test.adjoint_of = 0 : i64} : (tensor<2x8x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x4x4xf32>
  // CHECK-NEXT: echo.conv2d_grad_filter %[[DY]], %[[X]] {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, test.adjoint_of = 1 : i64} : (tensor<2x8x8x8xf32>, tensor<2x8x4x4xf32>) -> tensor<8x4x3x3xf32>
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %0 = "echo.conv_transpose2d"(%x, %w) {groups = 2 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x8x8xf32>
  return
}

// -----

// Upsampling is a fixed linear map: its gradient reads no forward value.
// CHECK-LABEL: func.func @upsample
func.func @upsample(%x: tensor<2x3x4x4xf32>) {
  // CHECK: echo.upsample_nearest2d
  // CHECK-NEXT: %[[DN:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64}
  // CHECK-NEXT: echo.upsample_nearest2d_grad %[[DN]] {scales_h = 2.000000e+00 : f64, scales_w = 2.000000e+00 : f64, test.adjoint_of = 0 : i64} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %0 = "echo.upsample_nearest2d"(%x) {scales_h = 2.0 : f64, scales_w = 2.0 : f64} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: echo.upsample_bilinear2d
  // CHECK-NEXT: %[[DB:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64}
  // CHECK-NEXT: echo.upsample_bilinear2d_grad %[[DB]] {align_corners = true, test.adjoint_of = 0 : i64} : (tensor<2x3x7x9xf32>) -> tensor<2x3x4x4xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %1 = "echo.upsample_bilinear2d"(%x) {align_corners = true} : (tensor<2x3x4x4xf32>) -> tensor<2x3x7x9xf32>
  return
}
