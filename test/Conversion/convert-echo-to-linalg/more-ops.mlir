// RUN: echo-opt %s --split-input-file --convert-echo-to-linalg | FileCheck %s

// A stop-gradient is its operand; sin and cos are one generic each, in f32
// for bf16 (widened, rounded once).
// CHECK-LABEL: func.func @stop_gradient_and_sinusoids
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xbf16>)
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>)
// CHECK: math.sin
// CHECK: linalg.generic
// CHECK: math.cos
// CHECK: linalg.generic {{.*}} ins(%[[H]] : tensor<4x8xbf16>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: math.sin %{{.*}} : f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: echo.
func.func @stop_gradient_and_sinusoids(%x: tensor<4x8xf32>, %h: tensor<4x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xbf16>) {
  %0 = echo.stop_gradient %x : tensor<4x8xf32>
  %1 = echo.sin %0 : tensor<4x8xf32>
  %2 = echo.cos %1 : tensor<4x8xf32>
  %3 = echo.sin %h : tensor<4x8xbf16>
  return %2, %3 : tensor<4x8xf32>, tensor<4x8xbf16>
}

// -----

// A transposed convolution is conv2d_grad_input's lowering with x as dy:
// one contraction per filter offset (3x3 here) accumulated into the padded
// output at stride 2, then the padding cropped; output_padding is in the
// result's extent.
// CHECK-LABEL: func.func @conv_transpose
// CHECK-COUNT-9: tensor.insert_slice {{.*}} [1, 1, 2, 2]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 1] [2, 4, 8, 8] [1, 1, 1, 1] : tensor<2x4x10x10xf32> to tensor<2x4x8x8xf32>
// CHECK-NOT: echo.
func.func @conv_transpose(%x: tensor<2x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %y = echo.conv_transpose2d %x, %w {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %y : tensor<2x4x8x8xf32>
}

// -----

// Upsampling gathers: a generic over the output, reading the input at the
// taps of its position (one for nearest, four for bilinear); the gradient
// is a generic over the input and a window of output positions (the two
// reductions), reading dy where the taps reach.
// CHECK-LABEL: func.func @upsample
// CHECK: linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<2x3x8x8xf32>)
// CHECK-COUNT-1: tensor.extract
// CHECK: linalg.yield
// CHECK: linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<2x3x7x9xf32>)
// CHECK-COUNT-4: tensor.extract
// CHECK: linalg.yield
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: tensor.extract
// CHECK: arith.select
// CHECK-NOT: echo.
func.func @upsample(%x: tensor<2x3x4x4xf32>, %dy: tensor<2x3x7x9xf32>) -> (tensor<2x3x8x8xf32>, tensor<2x3x7x9xf32>, tensor<2x3x4x4xf32>) {
  %0 = echo.upsample_nearest2d %x : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  %1 = echo.upsample_bilinear2d %x : (tensor<2x3x4x4xf32>) -> tensor<2x3x7x9xf32>
  %2 = echo.upsample_bilinear2d_grad %dy : (tensor<2x3x7x9xf32>) -> tensor<2x3x4x4xf32>
  return %0, %1, %2 : tensor<2x3x8x8xf32>, tensor<2x3x7x9xf32>, tensor<2x3x4x4xf32>
}
