// Verifier errors of the ops of EchoMoreOps.td.
// RUN: echo-opt %s -split-input-file -verify-diagnostics

func.func @stop_gradient_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "echo.stop_gradient"(%x) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @stop_gradient_integer(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = "echo.stop_gradient"(%x) : (tensor<4x8xi32>) -> tensor<4x8xi32>
  return
}

// -----

func.func @sin_dynamic(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = "echo.sin"(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @cos_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = "echo.cos"(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<2x8x4x4xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'w' has 6 input channels (its dim 0) but 'x' has 8}}
  %0 = echo.conv_transpose2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<6x4x3x3xf32>) -> tensor<2x4x7x7xf32>
  return
}

// -----

func.func @conv_transpose_groups(%x: tensor<2x6x4x4xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'x' has 6 channels, which 'groups' 4 does not divide}}
  %0 = echo.conv_transpose2d %x, %w {groups = 4 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x4x3x3xf32>) -> tensor<2x16x7x7xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<2x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'output_padding' 2 must be smaller than the stride 2}}
  %0 = echo.conv_transpose2d %x, %w {output_padding = array<i64: 2, 0>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x9x7xf32>
  return
}

// -----

func.func @conv_transpose_result(%x: tensor<2x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  // (4 − 1)·2 − 2 + 3 = 7 rows without output padding.
  // expected-error @+1 {{result has shape [2, 4, 8, 8] but [2, 4, 7, 7] was expected}}
  %0 = echo.conv_transpose2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

func.func @conv_transpose_crop(%x: tensor<2x8x1x1xf32>, %w: tensor<8x4x1x1xf32>) {
  // expected-error @+1 {{'padding' 1 crops the whole output (its extent would be -1)}}
  %0 = echo.conv_transpose2d %x, %w {padding = array<i64: 1, 0>, strides = array<i64: 1, 1>} : (tensor<2x8x1x1xf32>, tensor<8x4x1x1xf32>) -> tensor<2x4x1x1xf32>
  return
}

// -----

func.func @conv_transpose_strides(%x: tensor<2x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'strides' failed to satisfy constraint}}
  %0 = echo.conv_transpose2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 0, 2>} : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x7x7xf32>
  return
}

// -----

func.func @conv_transpose_rank(%x: tensor<8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 4D tensor}}
  %0 = "echo.conv_transpose2d"(%x, %w) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x7x7xf32>
  return
}

// -----

func.func @upsample_channels(%x: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{result has shape [2, 4, 8, 8] but 'x' has [2, 3, 4, 4]: batch and channels must agree}}
  %0 = echo.upsample_nearest2d %x : (tensor<2x3x4x4xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

func.func @upsample_empty(%x: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{the spatial extents must be positive, got 'x' [2, 3, 4, 4] and result [2, 3, 0, 8]}}
  %0 = echo.upsample_bilinear2d %x : (tensor<2x3x4x4xf32>) -> tensor<2x3x0x8xf32>
  return
}

// -----

func.func @upsample_scale(%x: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'scales_w' must be positive and finite, got -2}}
  %0 = echo.upsample_nearest2d %x {scales_w = -2.0 : f64} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @upsample_scale_align_corners(%x: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'scales_h' cannot be given with 'align_corners' (the corners set the source coordinates)}}
  %0 = echo.upsample_bilinear2d %x {align_corners = true, scales_h = 2.0 : f64} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @upsample_grad_channels(%dy: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'dy' has shape [2, 3, 8, 8] but result has [1, 3, 4, 4]: batch and channels must agree}}
  %0 = echo.upsample_bilinear2d_grad %dy : (tensor<2x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @upsample_grad_scale(%dy: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'scales_h' must be positive and finite, got 0}}
  %0 = echo.upsample_nearest2d_grad %dy {scales_h = 0.0 : f64} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @conv_transpose2d_extent_overflow(%x: tensor<1x8x3x2xf32>, %w: tensor<8x4x1x1xf32>) {
  // expected-error @+1 {{the output extent overflows int64}}
  %0 = "echo.conv_transpose2d"(%x, %w) {padding = array<i64: 0, 0>, strides = array<i64: 4611686018427387904, 1>} : (tensor<1x8x3x2xf32>, tensor<8x4x1x1xf32>) -> tensor<1x4x8x2xf32>
  return
}
