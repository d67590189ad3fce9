// Round-trips the ops of EchoMoreOps.td (stop-gradient, sinusoids,
// transposed convolution, upsampling) through the custom and the generic
// form.
// RUN: echo-opt %s | echo-opt | FileCheck %s
// RUN: echo-opt %s --mlir-print-op-generic | echo-opt | FileCheck %s
// RUN: echo-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @stop_gradient_and_sinusoids
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xbf16>)
func.func @stop_gradient_and_sinusoids(%x: tensor<4x8xf32>, %h: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // CHECK: %[[S:.*]] = echo.stop_gradient %[[X]] : tensor<4x8xf32>
  // GENERIC: "echo.stop_gradient"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = echo.stop_gradient %x : tensor<4x8xf32>
  // CHECK: echo.sin %[[S]] : tensor<4x8xf32>
  // GENERIC: "echo.sin"
  %1 = echo.sin %0 : tensor<4x8xf32>
  // CHECK: echo.cos %{{.*}} : tensor<4x8xf32>
  // GENERIC: "echo.cos"
  %2 = echo.cos %1 : tensor<4x8xf32>
  // CHECK: echo.sin %[[H]] : tensor<4x8xbf16>
  %3 = echo.sin %h : tensor<4x8xbf16>
  // CHECK: echo.cos %{{.*}} : tensor<4x8xbf16>
  %4 = echo.cos %3 : tensor<4x8xbf16>
  return %2 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @conv_transpose2d
func.func @conv_transpose2d(%x: tensor<2x8x4x4xf32>, %w: tensor<8x4x3x3xf32>,
                            %g: tensor<8x2x2x2xf32>) {
  // CHECK: echo.conv_transpose2d %{{.*}}, %{{.*}} {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  // GENERIC: "echo.conv_transpose2d"(%{{.*}}, %{{.*}}) <{groups = 1 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>}>
  %0 = echo.conv_transpose2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, output_padding = array<i64: 1, 1>} : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  // Grouped, no output padding: 8 input channels in 4 groups, 2 outputs
  // per group.
  // CHECK: echo.conv_transpose2d %{{.*}}, %{{.*}} {groups = 4 : i64, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x2x2x2xf32>) -> tensor<2x8x8x8xf32>
  %1 = echo.conv_transpose2d %x, %g {groups = 4 : i64, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x2x2x2xf32>) -> tensor<2x8x8x8xf32>
  return
}

// CHECK-LABEL: func.func @upsample
func.func @upsample(%x: tensor<2x3x4x4xf32>, %y: tensor<2x3x5x5xf32>) {
  // CHECK: echo.upsample_nearest2d %{{.*}} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // GENERIC: "echo.upsample_nearest2d"(%{{.*}}) : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  %0 = echo.upsample_nearest2d %x : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: echo.upsample_nearest2d %{{.*}} {scales_h = 1.700000e+00 : f64, scales_w = 1.700000e+00 : f64} : (tensor<2x3x5x5xf32>) -> tensor<2x3x8x8xf32>
  %1 = echo.upsample_nearest2d %y {scales_h = 1.7 : f64, scales_w = 1.7 : f64} : (tensor<2x3x5x5xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: echo.upsample_bilinear2d %{{.*}} : (tensor<2x3x4x4xf32>) -> tensor<2x3x7x9xf32>
  %2 = echo.upsample_bilinear2d %x : (tensor<2x3x4x4xf32>) -> tensor<2x3x7x9xf32>
  // CHECK: echo.upsample_bilinear2d %{{.*}} {align_corners = true} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // GENERIC: "echo.upsample_bilinear2d"(%{{.*}}) <{align_corners = true}>
  %3 = echo.upsample_bilinear2d %x {align_corners = true} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // Downsampling.
  // CHECK: echo.upsample_bilinear2d %{{.*}} : (tensor<2x3x5x5xf32>) -> tensor<2x3x2x3xf32>
  %4 = echo.upsample_bilinear2d %y : (tensor<2x3x5x5xf32>) -> tensor<2x3x2x3xf32>
  // CHECK: echo.upsample_nearest2d_grad %{{.*}} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  %5 = echo.upsample_nearest2d_grad %0 : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: echo.upsample_bilinear2d_grad %{{.*}} {align_corners = true} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  %6 = echo.upsample_bilinear2d_grad %3 {align_corners = true} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: echo.upsample_bilinear2d_grad %{{.*}} {scales_h = 2.000000e+00 : f64} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  %7 = echo.upsample_bilinear2d_grad %0 {scales_h = 2.0 : f64} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}
