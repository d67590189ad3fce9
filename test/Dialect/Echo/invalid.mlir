// RUN: echo-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// ODS type constraints
//===----------------------------------------------------------------------===//

// Binary elementwise: dynamic dimension.
func.func @add_dynamic(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?x4xf32>'}}
  %0 = echo.add %a, %a : tensor<?x4xf32>
  return
}

// -----

// Binary elementwise: unranked tensor (the custom form cannot even parse it).
func.func @sub_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = "echo.sub"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Binary elementwise: f64 is not a supported element type.
func.func @mul_f64(%a: tensor<4x8xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf64>'}}
  %0 = echo.mul %a, %a : tensor<4x8xf64>
  return
}

// -----

// Binary elementwise: integer element type.
func.func @div_i32(%a: tensor<4x8xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = echo.div %a, %a : tensor<4x8xi32>
  return
}

// -----

// Unary elementwise: dynamic dimension (generic form).
func.func @tanh_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?xf32>'}}
  %0 = "echo.tanh"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

// Unary elementwise: unranked tensor.
func.func @exp_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = "echo.exp"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Unary elementwise: integer element type.
func.func @neg_i32(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = echo.neg %x : tensor<4xi32>
  return
}

// -----

// Unary elementwise: f64.
func.func @sqrt_f64(%x: tensor<4xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xf64>'}}
  %0 = echo.sqrt %x : tensor<4xf64>
  return
}

// -----

// Unary elementwise: not a tensor.
func.func @relu_scalar(%x: f32) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'f32'}}
  %0 = "echo.relu"(%x) : (f32) -> f32
  return
}

// -----

// broadcast: dynamic result.
func.func @broadcast_dynamic(%x: tensor<8xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<?x8xf32>'}}
  %0 = echo.broadcast %x dims = [0] : (tensor<8xf32>) -> tensor<?x8xf32>
  return
}

// -----

// reduce_sum: f64.
func.func @reduce_sum_f64(%x: tensor<4x8xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf64>'}}
  %0 = echo.reduce_sum %x dims = [1] : (tensor<4x8xf64>) -> tensor<4xf64>
  return
}

// -----

// reduce_max: unranked.
func.func @reduce_max_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = echo.reduce_max %x dims = [1] : (tensor<*xf32>) -> tensor<4xf32>
  return
}

// -----

// slice: dynamic dimension.
func.func @slice_dynamic(%x: tensor<2x?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<2x?xf32>'}}
  %0 = echo.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 4>} : (tensor<2x?xf32>) -> tensor<2x4xf32>
  return
}

// -----

// concat: integer inputs.
func.func @concat_i32(%a: tensor<2x3xi32>) {
  // expected-error @+1 {{operand #0 must be variadic of statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x3xi32>'}}
  %0 = echo.concat %a, %a {axis = 1 : i64} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x6xi32>
  return
}

// -----

// reshape: unranked result.
func.func @reshape_unranked(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = echo.reshape %x : (tensor<2x8xf32>) -> tensor<*xf32>
  return
}

// -----

// reshape: i32 ids stay i32 (labels are flattened, never turned into data).
func.func @reshape_i32_to_f32(%ids: tensor<2x8xi32>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same element type}}
  %0 = echo.reshape %ids : (tensor<2x8xi32>) -> tensor<16xf32>
  return
}

// -----

// reshape: i64 is not an id type.
func.func @reshape_i64(%ids: tensor<2x8xi64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<2x8xi64>'}}
  %0 = echo.reshape %ids : (tensor<2x8xi64>) -> tensor<16xi64>
  return
}

// -----

// transpose: f64.
func.func @transpose_f64(%x: tensor<2x8xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<2x8xf64>'}}
  %0 = echo.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x8xf64>) -> tensor<8x2xf64>
  return
}

// -----

// matmul: 'a' is not 2D.
func.func @matmul_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 2D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x4x8xf32>'}}
  %0 = echo.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// matmul: result is not 2D.
func.func @matmul_result_rank(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped 2D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<64xf32>'}}
  %0 = echo.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<64xf32>
  return
}

// -----

// matmul: dynamic 'b'.
func.func @matmul_dynamic(%a: tensor<4x8xf32>, %b: tensor<8x?xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 2D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<8x?xf32>'}}
  %0 = echo.matmul %a, %b : (tensor<4x8xf32>, tensor<8x?xf32>) -> tensor<4x16xf32>
  return
}

// -----

// matmul: f64.
func.func @matmul_f64(%a: tensor<4x8xf64>, %b: tensor<8x16xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped 2D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf64>'}}
  %0 = echo.matmul %a, %b : (tensor<4x8xf64>, tensor<8x16xf64>) -> tensor<4x16xf64>
  return
}

// -----

// batch_matmul: operands must be 3D.
func.func @batch_matmul_rank(%a: tensor<4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 3D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf32>'}}
  %0 = echo.batch_matmul %a, %b : (tensor<4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

// batch_matmul: unranked 'b'.
func.func @batch_matmul_unranked(%a: tensor<2x4x8xf32>, %b: tensor<*xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 3D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = echo.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<*xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

// linear: bias must be 1D.
func.func @linear_bias_rank(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{operand #2 must be statically shaped 1D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<1x16xf32>'}}
  %0 = echo.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// linear: 'x' must be 2D.
func.func @linear_x_rank(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 2D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x4x8xf32>'}}
  %0 = echo.linear %x, %w, %b : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// linear: integer 'w'.
func.func @linear_i32(%x: tensor<4x8xf32>, %w: tensor<16x8xi32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 2D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<16x8xi32>'}}
  %0 = echo.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xi32>, tensor<16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// conv2d: 'x' must be 4D.
func.func @conv2d_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<3x8x8xf32>'}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: dynamic filter.
func.func @conv2d_dynamic(%x: tensor<2x3x8x8xf32>, %w: tensor<?x3x3x3xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?x3x3x3xf32>'}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<?x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// max_pool2d: 'x' must be 4D.
func.func @max_pool2d_rank(%x: tensor<3x8x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<3x8x8xf32>'}}
  %0 = echo.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<3x8x8xf32>) -> tensor<3x4x4xf32>
  return
}

// -----

// avg_pool2d: f64.
func.func @avg_pool2d_f64(%x: tensor<2x3x8x8xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped 4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x3x8x8xf64>'}}
  %0 = echo.avg_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf64>) -> tensor<2x3x4x4xf64>
  return
}

// -----

// batch_norm: 'x' must have rank 2 or 4.
func.func @batch_norm_rank(%x: tensor<2x3x8xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 2D/4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x3x8xf32>'}}
  %0 = echo.batch_norm %x, %g, %g {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8xf32>
  return
}

// -----

// batch_norm: 'gamma' must be 1D.
func.func @batch_norm_gamma_rank(%x: tensor<4x3xf32>, %g: tensor<1x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 1D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<1x3xf32>'}}
  %0 = echo.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<4x3xf32>, tensor<1x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// layer_norm: unranked 'x'.
func.func @layer_norm_unranked(%x: tensor<*xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = echo.layer_norm %x, %g, %g {epsilon = 1.000000e-05 : f64} : (tensor<*xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<*xf32>
  return
}

// -----

// layer_norm: 'beta' must be 1D.
func.func @layer_norm_beta_rank(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{operand #2 must be statically shaped 1D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf32>'}}
  %0 = echo.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// softmax: dynamic dimension.
func.func @softmax_dynamic(%x: tensor<4x?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x?xf32>'}}
  %0 = echo.softmax %x {axis = 1 : i64} : tensor<4x?xf32>
  return
}

// -----

// dropout: f64 input.
func.func @dropout_f64(%x: tensor<4x8xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf64>'}}
  %0, %1 = echo.dropout %x {ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf64>) -> (tensor<4x8xf64>, tensor<4x8xi1>)
  return
}

// -----

// dropout: the mask must be i1.
func.func @dropout_mask_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result #1 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x8xi8>'}}
  %0, %1 = echo.dropout %x {ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi8>)
  return
}

// -----

// embedding: ids must be i32.
func.func @embedding_ids_f32(%ids: tensor<4x6xf32>, %t: tensor<100x16xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<4x6xf32>'}}
  %0 = echo.embedding %ids, %t : (tensor<4x6xf32>, tensor<100x16xf32>) -> tensor<4x6x16xf32>
  return
}

// -----

// embedding: ids must be statically shaped.
func.func @embedding_ids_dynamic(%ids: tensor<?xi32>, %t: tensor<100x16xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<?xi32>'}}
  %0 = echo.embedding %ids, %t : (tensor<?xi32>, tensor<100x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// embedding: the table must be 2D.
func.func @embedding_table_rank(%ids: tensor<4xi32>, %t: tensor<100x2x16xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 2D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<100x2x16xf32>'}}
  %0 = echo.embedding %ids, %t : (tensor<4xi32>, tensor<100x2x16xf32>) -> tensor<4x2x16xf32>
  return
}

// -----

// cross_entropy: logits must be 2D.
func.func @cross_entropy_rank(%l: tensor<4x10x1xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 2D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x10x1xf32>'}}
  %0 = echo.cross_entropy %l, %y : (tensor<4x10x1xf32>, tensor<4xi32>) -> tensor<f32>
  return
}

// -----

// cross_entropy: labels must be i32.
func.func @cross_entropy_labels_f32(%l: tensor<4x10xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 1D tensor of 32-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = echo.cross_entropy %l, %y : (tensor<4x10xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

// cross_entropy: labels must be 1D.
func.func @cross_entropy_labels_rank(%l: tensor<4x10xf32>, %y: tensor<4x1xi32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 1D tensor of 32-bit signless integer values, but got 'tensor<4x1xi32>'}}
  %0 = echo.cross_entropy %l, %y : (tensor<4x10xf32>, tensor<4x1xi32>) -> tensor<f32>
  return
}

// -----

// cross_entropy: the loss is a 0D tensor.
func.func @cross_entropy_result_rank(%l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{result #0 must be statically shaped 0D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<1xf32>'}}
  %0 = echo.cross_entropy %l, %y : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<1xf32>
  return
}

// -----

// cross_entropy: label_smoothing in [0, 1].
func.func @cross_entropy_smoothing(%l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'echo.cross_entropy' op 'label_smoothing' must be in [0, 1], got 1.5}}
  %0 = echo.cross_entropy %l, %y {label_smoothing = 1.5 : f64} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  return
}

// -----

// cross_entropy_terms: label_smoothing in [0, 1] (NaN too).
func.func @cross_entropy_terms_smoothing(%l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'echo.cross_entropy_terms' op 'label_smoothing' must be in [0, 1], got nan}}
  %0 = echo.cross_entropy_terms %l, %y {label_smoothing = 0x7FF8000000000000 : f64} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

// cross_entropy_grad: label_smoothing in [0, 1].
func.func @cross_entropy_grad_smoothing(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<f32>) {
  // expected-error @+1 {{'echo.cross_entropy_grad' op 'label_smoothing' must be in [0, 1], got -0.1}}
  %0 = echo.cross_entropy_grad %l, %y, %d {label_smoothing = -0.1 : f64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  return
}

// -----

// cross_entropy: a loss over 0 classes has no value.
func.func @cross_entropy_no_classes(%l: tensor<4x0xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'echo.cross_entropy' op 'logits' has no classes (dim 1 is 0): a cross-entropy over 0 classes has no value}}
  %0 = echo.cross_entropy %l, %y : (tensor<4x0xf32>, tensor<4xi32>) -> tensor<f32>
  return
}

// -----

// cross_entropy_grad: likewise.
func.func @cross_entropy_grad_no_classes(%l: tensor<4x0xf32>, %y: tensor<4xi32>, %d: tensor<f32>) {
  // expected-error @+1 {{'echo.cross_entropy_grad' op 'logits' has no classes}}
  %0 = echo.cross_entropy_grad %l, %y, %d : (tensor<4x0xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x0xf32>
  return
}

// -----

// cross_entropy_grad: one divisor.
func.func @cross_entropy_grad_two_divisors(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<f32>) {
  // expected-error @+1 {{'echo.cross_entropy_grad' op 'count' and 'total_rows' both give the divisor: give one}}
  %0 = echo.cross_entropy_grad %l, %y, %d, %d {total_rows = 8 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
  return
}

// -----

// cross_entropy_grad: the count has dloss's type.
func.func @cross_entropy_grad_count_type(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<f32>, %n: tensor<bf16>) {
  // expected-error @+1 {{'echo.cross_entropy_grad' op 'count' must have the element type of 'dloss' ('f32'), not 'bf16'}}
  %0 = echo.cross_entropy_grad %l, %y, %d, %n {ignore_index = -100 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>, tensor<bf16>) -> tensor<4x10xf32>
  return
}

// -----

// label_count: labels are i32.
func.func @label_count_f32(%y: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 1D tensor of 32-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "echo.label_count"(%y) {ignore_index = -100 : i64} : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

// label_count: ignore_index is required.
func.func @label_count_no_ignore(%y: tensor<4xi32>) {
  // expected-error @+1 {{requires attribute 'ignore_index'}}
  %0 = "echo.label_count"(%y) : (tensor<4xi32>) -> tensor<f32>
  return
}

// -----

// dropout: the step seed is a 0-d i64.
func.func @dropout_seed_i32(%x: tensor<4x8xf32>, %s: tensor<i32>) {
  // expected-error @+1 {{operand #1 must be 0-d i64 tensor of 64-bit signless integer values, but got 'tensor<i32>'}}
  %0, %1 = "echo.dropout"(%x, %s) {ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return
}

// -----

// echo.rng_seed marks a 0-d i64 argument.
// expected-error @+1 {{'echo.rng_seed' on argument 0 may only mark a 0-d i64 tensor or memref argument of a func.func}}
func.func @rng_seed_f32(%s: tensor<f32> {echo.rng_seed}) {
  return
}

// -----

// echo.rng_seed is a unit attribute.
// expected-error @+1 {{'echo.rng_seed' on argument 0 must be a unit attribute}}
func.func @rng_seed_value(%s: tensor<i64> {echo.rng_seed = 3 : i64}) {
  return
}

// -----

// A step has one seed.
// expected-error @+1 {{arguments 0 and 1 are both marked 'echo.rng_seed': a step has one seed}}
func.func @two_rng_seeds(%s: tensor<i64> {echo.rng_seed}, %t: tensor<i64> {echo.rng_seed}) {
  return
}

// -----

// echo.frozen marks a floating-point argument.
// expected-error @+1 {{frozen parameter argument 0 must be a statically shaped floating-point tensor or memref}}
func.func @frozen_i32(%w: tensor<4xi32> {echo.frozen}) {
  return
}

// -----

// A parameter is trained or frozen, not both.
// expected-error @+1 {{argument 0 is marked both 'echo.param' and 'echo.frozen'}}
func.func @frozen_param(%w: tensor<4xf32> {echo.param, echo.frozen}) {
  return
}

// -----

// mse_loss: dynamic prediction.
func.func @mse_loss_dynamic(%p: tensor<?x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?x8xf32>'}}
  %0 = echo.mse_loss %p, %p : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<f32>
  return
}

// -----

// mse_loss: the loss is a 0D tensor.
func.func @mse_loss_result_rank(%p: tensor<4x8xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped 0D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xf32>'}}
  %0 = echo.mse_loss %p, %p : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// tanh_grad: unranked.
func.func @tanh_grad_unranked(%y: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = "echo.tanh_grad"(%y, %y) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// sigmoid_grad: f64.
func.func @sigmoid_grad_f64(%y: tensor<4x8xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf64>'}}
  %0 = echo.sigmoid_grad %y, %y : tensor<4x8xf64>
  return
}

// -----

// relu_grad: 'x' must be a float tensor or an i1 mask.
func.func @relu_grad_x_i32(%x: tensor<4x8xi32>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values or statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x8xi32>'}}
  %0 = echo.relu_grad %x, %dy : tensor<4x8xi32>, tensor<4x8xf32>
  return
}

// -----

// relu_grad: dynamic 'dy'.
func.func @relu_grad_dynamic(%x: tensor<4x8xi1>, %dy: tensor<4x?xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x?xf32>'}}
  %0 = echo.relu_grad %x, %dy : tensor<4x8xi1>, tensor<4x?xf32>
  return
}

// -----

// reduce_max_grad: dynamic 'x'.
func.func @reduce_max_grad_dynamic(%x: tensor<?x8xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?x8xf32>'}}
  %0 = echo.reduce_max_grad %x, %y, %y dims = [1] : (tensor<?x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x8xf32>
  return
}

// -----

// slice_grad: unranked result.
func.func @slice_grad_unranked(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = echo.slice_grad %dy {offsets = array<i64: 0, 4>} : (tensor<2x4xf32>) -> tensor<*xf32>
  return
}

// -----

// softmax_grad: f64.
func.func @softmax_grad_f64(%y: tensor<4x8xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf64>'}}
  %0 = echo.softmax_grad %y, %y {axis = 1 : i64} : tensor<4x8xf64>
  return
}

// -----

// dropout_grad: the mask must be i1.
func.func @dropout_grad_mask_f32(%m: tensor<4x8xf32>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %0 = echo.dropout_grad %m, %dy {ratio = 5.000000e-01 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// embedding_grad: ids must be i32.
func.func @embedding_grad_ids_i64(%ids: tensor<4x6xi64>, %dy: tensor<4x6x16xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<4x6xi64>'}}
  %0 = echo.embedding_grad %ids, %dy : (tensor<4x6xi64>, tensor<4x6x16xf32>) -> tensor<100x16xf32>
  return
}

// -----

// embedding_grad: the table gradient must be 2D.
func.func @embedding_grad_result_rank(%ids: tensor<4x6xi32>, %dy: tensor<4x6x16xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped 2D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<1600xf32>'}}
  %0 = echo.embedding_grad %ids, %dy : (tensor<4x6xi32>, tensor<4x6x16xf32>) -> tensor<1600xf32>
  return
}

// -----

// cross_entropy_grad: 'dloss' must be 0D.
func.func @cross_entropy_grad_dloss_rank(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<1xf32>) {
  // expected-error @+1 {{operand #2 must be statically shaped 0D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<1xf32>'}}
  %0 = echo.cross_entropy_grad %l, %y, %d : (tensor<4x10xf32>, tensor<4xi32>, tensor<1xf32>) -> tensor<4x10xf32>
  return
}

// -----

// cross_entropy_grad: a chunk has no more rows than the whole loss.
func.func @cross_entropy_grad_total_rows(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<f32>) {
  // expected-error @+1 {{'total_rows' (3) is below the rows of 'logits' (4)}}
  %0 = echo.cross_entropy_grad %l, %y, %d {total_rows = 3 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  return
}

// -----

// cross_entropy_grad: total_rows is positive.
func.func @cross_entropy_grad_total_rows_zero(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<f32>) {
  // expected-error @+1 {{attribute 'total_rows' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = echo.cross_entropy_grad %l, %y, %d {total_rows = 0 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  return
}

// -----

// cross_entropy_terms: one label per row.
func.func @cross_entropy_terms_labels(%l: tensor<4x10xf32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{'labels' has 3 entries but 'logits' has 4 rows}}
  %0 = echo.cross_entropy_terms %l, %y : (tensor<4x10xf32>, tensor<3xi32>) -> tensor<4xf32>
  return
}

// -----

// cross_entropy_terms: one term per row.
func.func @cross_entropy_terms_result(%l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{result has shape [3] but [4] was expected}}
  %0 = echo.cross_entropy_terms %l, %y : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<3xf32>
  return
}

// -----

// cross_entropy_terms: the terms are 1D.
func.func @cross_entropy_terms_rank(%l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{result #0 must be statically shaped 1D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<f32>'}}
  %0 = echo.cross_entropy_terms %l, %y : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  return
}

// -----

// slice: i32 labels keep their element type.
func.func @slice_i32_to_f32(%y: tensor<4xi32>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same element type}}
  %0 = echo.slice %y {offsets = array<i64: 0>, sizes = array<i64: 2>} : (tensor<4xi32>) -> tensor<2xf32>
  return
}

// -----

// cross_entropy_grad: labels must be i32.
func.func @cross_entropy_grad_labels_f32(%l: tensor<4x10xf32>, %y: tensor<4xf32>, %d: tensor<f32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 1D tensor of 32-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = echo.cross_entropy_grad %l, %y, %d : (tensor<4x10xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4x10xf32>
  return
}

// -----

// mse_loss_grad: 'dloss' must be 0D.
func.func @mse_loss_grad_dloss_rank(%p: tensor<4x8xf32>, %d: tensor<4xf32>) {
  // expected-error @+1 {{operand #2 must be statically shaped 0D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xf32>'}}
  %0 = echo.mse_loss_grad %p, %p, %d : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// conv2d_grad_input: the filter must be 4D.
func.func @conv2d_grad_input_rank(%w: tensor<4x3x3xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x3x3xf32>'}}
  %0 = echo.conv2d_grad_input %w, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// conv2d_grad_filter: dynamic 'dy'.
func.func @conv2d_grad_filter_dynamic(%x: tensor<2x3x8x8xf32>, %dy: tensor<?x4x8x8xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?x4x8x8xf32>'}}
  %0 = echo.conv2d_grad_filter %x, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

// max_pool2d_grad: 'dy' must be 4D.
func.func @max_pool2d_grad_rank(%x: tensor<2x3x8x8xf32>, %dy: tensor<6x4x4xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<6x4x4xf32>'}}
  %0 = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<6x4x4xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// avg_pool2d_grad: unranked 'dy'.
func.func @avg_pool2d_grad_unranked(%dy: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = echo.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<*xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// batch_norm_grad: 'gamma' must be 1D.
func.func @batch_norm_grad_gamma_rank(%x: tensor<4x3xf32>, %g: tensor<1x3xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped 1D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<1x3xf32>'}}
  %0:3 = echo.batch_norm_grad %x, %g, %x {epsilon = 1.000000e-05 : f64} : (tensor<4x3xf32>, tensor<1x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>)
  return
}

// -----

// layer_norm_grad: f64.
func.func @layer_norm_grad_f64(%x: tensor<4x8xf64>, %g: tensor<8xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf64>'}}
  %0:3 = echo.layer_norm_grad %x, %g, %x {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf64>, tensor<8xf64>, tensor<4x8xf64>) -> (tensor<4x8xf64>, tensor<8xf64>, tensor<8xf64>)
  return
}

// -----

// pack_mask: the mask must be i1.
func.func @pack_mask_f32(%m: tensor<4x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %0 = echo.pack_mask %m : (tensor<4x8xf32>) -> tensor<4xi8>
  return
}

// -----

// pack_mask: the packed bytes are a 1D i8 tensor.
func.func @pack_mask_result_rank(%m: tensor<4x8xi1>) {
  // expected-error @+1 {{result #0 must be statically shaped 1D tensor of 8-bit signless integer values, but got 'tensor<2x2xi8>'}}
  %0 = echo.pack_mask %m : (tensor<4x8xi1>) -> tensor<2x2xi8>
  return
}

// -----

// unpack_mask: the packed bytes must be i8.
func.func @unpack_mask_i32(%p: tensor<1xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 1D tensor of 8-bit signless integer values, but got 'tensor<1xi32>'}}
  %0 = echo.unpack_mask %p : (tensor<1xi32>) -> tensor<4x8xi1>
  return
}

// -----

// unpack_mask: the result must be an i1 mask.
func.func @unpack_mask_result_f32(%p: tensor<4xi8>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %0 = echo.unpack_mask %p : (tensor<4xi8>) -> tensor<4x8xf32>
  return
}

// -----

// recompute: inputs must be statically shaped.
func.func @recompute_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be variadic of statically shaped tensor, but got 'tensor<?xf32>'}}
  %0 = echo.recompute (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    echo.yield %a : tensor<?xf32>
  }
  return
}

// -----

// yield: unranked operand.
func.func @yield_unranked(%x: tensor<4xf32>) {
  %0 = echo.recompute (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %u = tensor.cast %a : tensor<4xf32> to tensor<*xf32>
    // expected-error @+1 {{operand #0 must be variadic of statically shaped tensor, but got 'tensor<*xf32>'}}
    echo.yield %u : tensor<*xf32>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// Attribute constraints
//===----------------------------------------------------------------------===//

// conv2d: strides must have 2 entries.
func.func @conv2d_strides_count(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: strides must be positive.
func.func @conv2d_strides_zero(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 0>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: padding must be non-negative.
func.func @conv2d_padding_negative(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{attribute 'padding' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is non-negative}}
  %0 = echo.conv2d %x, %w {padding = array<i64: -1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: padding must have 2 entries.
func.func @conv2d_padding_count(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{attribute 'padding' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is non-negative}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: groups must be positive.
func.func @conv2d_groups_zero(%x: tensor<2x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = "echo.conv2d"(%x, %w) {groups = 0 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: groups is an I64Attr.
func.func @conv2d_groups_i32(%x: tensor<2x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = "echo.conv2d"(%x, %w) {groups = 2 : i32, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d_grad_filter: groups must be positive.
func.func @conv2d_grad_filter_groups(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = "echo.conv2d_grad_filter"(%x, %dy) {groups = -2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x2x3x3xf32>
  return
}

// -----

// max_pool2d: ceil_mode is a BoolAttr.
func.func @max_pool2d_ceil_mode_int(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'ceil_mode' failed to satisfy constraint: bool attribute}}
  %0 = "echo.max_pool2d"(%x) {ceil_mode = 1 : i64, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// avg_pool2d_grad: count_include_pad is a BoolAttr.
func.func @avg_pool2d_grad_count_include_pad_int(%dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{attribute 'count_include_pad' failed to satisfy constraint: bool attribute}}
  %0 = "echo.avg_pool2d_grad"(%dy) {count_include_pad = 1 : i64, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// adaptive_avg_pool2d: output_size must have 2 entries.
func.func @adaptive_avg_pool2d_size_count(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'output_size' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = "echo.adaptive_avg_pool2d"(%x) {output_size = array<i64: 3>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x3x3xf32>
  return
}

// -----

// adaptive_avg_pool2d: output_size must be positive.
func.func @adaptive_avg_pool2d_size_zero(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'output_size' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = "echo.adaptive_avg_pool2d"(%x) {output_size = array<i64: 0, 3>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x0x3xf32>
  return
}

// -----

// adaptive_avg_pool2d: output_size is required.
func.func @adaptive_avg_pool2d_size_missing(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{requires attribute 'output_size'}}
  %0 = "echo.adaptive_avg_pool2d"(%x) : (tensor<2x3x8x8xf32>) -> tensor<2x3x3x3xf32>
  return
}

// -----

// adaptive_avg_pool2d_grad: 'dy' must be 4D.
func.func @adaptive_avg_pool2d_grad_rank(%dy: tensor<6x3x3xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped 4D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<6x3x3xf32>'}}
  %0 = "echo.adaptive_avg_pool2d_grad"(%dy) : (tensor<6x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// dropout: broadcast_dims is a DenseI64ArrayAttr.
func.func @dropout_broadcast_dims_kind(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'broadcast_dims' failed to satisfy constraint: i64 dense array attribute}}
  %0, %1 = "echo.dropout"(%x) {broadcast_dims = [2, 3], ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<2x3x8x8xi1>)
  return
}

// -----

// conv2d: strides are required.
func.func @conv2d_strides_missing(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{requires attribute 'strides'}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// max_pool2d: kernel must have 2 entries.
func.func @max_pool2d_kernel_count(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'kernel' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = echo.max_pool2d %x {kernel = array<i64: 2, 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// max_pool2d: kernel must be positive.
func.func @max_pool2d_kernel_zero(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'kernel' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = echo.max_pool2d %x {kernel = array<i64: 0, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// avg_pool2d: strides must be positive.
func.func @avg_pool2d_strides_negative(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = echo.avg_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: -2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// avg_pool2d: padding must be non-negative.
func.func @avg_pool2d_padding_negative(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{attribute 'padding' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is non-negative}}
  %0 = echo.avg_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, -1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// conv2d_grad_input: strides must be positive.
func.func @conv2d_grad_input_strides(%w: tensor<4x3x3x3xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = echo.conv2d_grad_input %w, %dy {padding = array<i64: 1, 1>, strides = array<i64: 0, 1>} : (tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// conv2d_grad_filter: padding must have 2 entries.
func.func @conv2d_grad_filter_padding(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{attribute 'padding' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is non-negative}}
  %0 = echo.conv2d_grad_filter %x, %dy {padding = array<i64: 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

// max_pool2d_grad: kernel must be positive.
func.func @max_pool2d_grad_kernel(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{attribute 'kernel' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 2, -2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// avg_pool2d_grad: strides must have 2 entries.
func.func @avg_pool2d_grad_strides(%dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements whose value is positive}}
  %0 = echo.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// batch_norm: epsilon must be an f64 attribute.
func.func @batch_norm_epsilon_f32(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{attribute 'epsilon' failed to satisfy constraint: 64-bit float attribute}}
  %0 = echo.batch_norm %x, %g, %g {epsilon = 1.000000e-05 : f32} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Type-relation traits
//===----------------------------------------------------------------------===//

// add: SameOperandsAndResultType (element type).
func.func @add_types(%a: tensor<4x8xf32>, %b: tensor<4x8xf16>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "echo.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

// add: Elementwise (shapes).
func.func @add_shapes(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = "echo.add"(%a, %b) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// tanh: SameOperandsAndResultType (element type).
func.func @tanh_types(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "echo.tanh"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf16>
  return
}

// -----

// softmax_grad: SameOperandsAndResultType.
func.func @softmax_grad_types(%y: tensor<4x8xf32>, %dy: tensor<4x8xf16>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "echo.softmax_grad"(%y, %dy) {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

// broadcast: AllElementTypesMatch.
func.func @broadcast_element_type(%x: tensor<8xf16>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same element type}}
  %0 = echo.broadcast %x dims = [0] : (tensor<8xf16>) -> tensor<4x8xf32>
  return
}

// -----

// matmul: AllElementTypesMatch.
func.func @matmul_element_type(%a: tensor<4x8xf32>, %b: tensor<8x16xbf16>) {
  // expected-error @+1 {{failed to verify that all of {a, b, result} have same element type}}
  %0 = echo.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xbf16>) -> tensor<4x16xf32>
  return
}

// -----

// concat: SameOperandsElementType.
func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x5xf16>) {
  // expected-error @+1 {{requires the same element type for all operands}}
  %0 = echo.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf16>) -> tensor<2x8xf32>
  return
}

// -----

// concat: SameOperandsAndResultElementType.
func.func @concat_result_element_type(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = echo.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf16>
  return
}

// -----

// batch_norm: AllTypesMatch x/result.
func.func @batch_norm_result_type(%x: tensor<2x3x8x8xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same type}}
  %0 = echo.batch_norm %x, %g, %g {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// layer_norm: AllElementTypesMatch x/gamma/beta/result.
func.func @layer_norm_element_type(%x: tensor<4x8xf32>, %g: tensor<8xf16>) {
  // expected-error @+1 {{failed to verify that all of {x, gamma, beta, result} have same element type}}
  %0 = echo.layer_norm %x, %g, %g {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf16>, tensor<8xf16>) -> tensor<4x8xf32>
  return
}

// -----

// dropout: AllTypesMatch x/result.
func.func @dropout_result_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same type}}
  %0, %1 = echo.dropout %x {ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf16>, tensor<4x8xi1>)
  return
}

// -----

// dropout: AllShapesMatch x/mask.
func.func @dropout_mask_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{failed to verify that all of {x, mask} have same shape}}
  %0, %1 = echo.dropout %x {ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<32xi1>)
  return
}

// -----

// embedding: AllElementTypesMatch table/result.
func.func @embedding_element_type(%ids: tensor<4xi32>, %t: tensor<100x16xf32>) {
  // expected-error @+1 {{failed to verify that all of {table, result} have same element type}}
  %0 = echo.embedding %ids, %t : (tensor<4xi32>, tensor<100x16xf32>) -> tensor<4x16xbf16>
  return
}

// -----

// mse_loss: AllTypesMatch pred/target.
func.func @mse_loss_target_type(%p: tensor<4x8xf32>, %t: tensor<8x4xf32>) {
  // expected-error @+1 {{failed to verify that all of {pred, target} have same type}}
  %0 = echo.mse_loss %p, %t : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<f32>
  return
}

// -----

// relu_grad: AllShapesMatch x/dy.
func.func @relu_grad_shape(%m: tensor<4x8xi1>, %dy: tensor<8x4xf32>) {
  // expected-error @+1 {{failed to verify that all of {x, dy} have same shape}}
  %0 = echo.relu_grad %m, %dy : tensor<4x8xi1>, tensor<8x4xf32>
  return
}

// -----

// reduce_max_grad: AllTypesMatch y/dy.
func.func @reduce_max_grad_dy_type(%x: tensor<4x8xf32>, %y: tensor<4xf32>, %dy: tensor<8xf32>) {
  // expected-error @+1 {{failed to verify that all of {y, dy} have same type}}
  %0 = echo.reduce_max_grad %x, %y, %dy dims = [1] : (tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// dropout_grad: AllShapesMatch mask/dy.
func.func @dropout_grad_shape(%m: tensor<32xi1>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{failed to verify that all of {mask, dy} have same shape}}
  %0 = echo.dropout_grad %m, %dy {ratio = 5.000000e-01 : f64} : (tensor<32xi1>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// cross_entropy_grad: AllTypesMatch logits/result.
func.func @cross_entropy_grad_result_type(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<f32>) {
  // expected-error @+1 {{failed to verify that all of {logits, result} have same type}}
  %0 = echo.cross_entropy_grad %l, %y, %d : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<10x4xf32>
  return
}

// -----

// mse_loss_grad: AllTypesMatch pred/target/result.
func.func @mse_loss_grad_types(%p: tensor<4x8xf32>, %t: tensor<4x8xf16>, %d: tensor<f32>) {
  // expected-error @+1 {{failed to verify that all of {pred, target, result} have same type}}
  %0 = echo.mse_loss_grad %p, %t, %d : (tensor<4x8xf32>, tensor<4x8xf16>, tensor<f32>) -> tensor<4x8xf32>
  return
}

// -----

// max_pool2d_grad: AllTypesMatch x/result.
func.func @max_pool2d_grad_result_type(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same type}}
  %0 = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// layer_norm_grad: AllTypesMatch gamma/dgamma/dbeta.
func.func @layer_norm_grad_dgamma_type(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{failed to verify that all of {gamma, dgamma, dbeta} have same type}}
  %0:3 = echo.layer_norm_grad %x, %g, %x {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>)
  return
}

// -----

// batch_norm_grad: AllTypesMatch x/dy/dx.
func.func @batch_norm_grad_dy_type(%x: tensor<4x3xf32>, %g: tensor<3xf32>, %dy: tensor<3x4xf32>) {
  // expected-error @+1 {{failed to verify that all of {x, dy, dx} have same type}}
  %0:3 = echo.batch_norm_grad %x, %g, %dy {epsilon = 1.000000e-05 : f64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Activations and select
//===----------------------------------------------------------------------===//

// erf: integer element type.
func.func @erf_i32(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'echo.erf' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = "echo.erf"(%x) : (tensor<4x8xi32>) -> tensor<4x8xi32>
  return
}

// -----

// silu: SameOperandsAndResultType (element type; Elementwise checks shapes).
func.func @silu_types(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.silu' op requires the same type for all operands and results}}
  %0 = "echo.silu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

// hardswish: dynamic dimension.
func.func @hardswish_dynamic(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{'echo.hardswish' op operand #0 must be statically shaped tensor}}
  %0 = "echo.hardswish"(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return
}

// -----

// gelu: the flag is a BoolAttr.
func.func @gelu_flag_i64(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.gelu' op attribute 'tanh_approximation' failed to satisfy constraint: bool attribute}}
  %0 = "echo.gelu"(%x) {tanh_approximation = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// clamp: both bounds are required.
func.func @clamp_no_max(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.clamp' op requires attribute 'max'}}
  %0 = "echo.clamp"(%x) {min = 0.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// clamp: the bounds are F64Attr.
func.func @clamp_f32_bound(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.clamp' op attribute 'min' failed to satisfy constraint: 64-bit float attribute}}
  %0 = "echo.clamp"(%x) {min = 0.0 : f32, max = 6.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// clamp: min > max.
func.func @clamp_min_above_max(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.clamp' op 'min' (6.00) must be at most 'max' (0.00)}}
  %0 = echo.clamp %x {min = 6.0 : f64, max = 0.0 : f64} : tensor<4x8xf32>
  return
}

// -----

// clamp: a NaN bound.
func.func @clamp_nan_bound(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.clamp' op 'min' (nan) must be at most 'max' (6.00)}}
  %0 = echo.clamp %x {min = 0x7FF8000000000000 : f64, max = 6.0 : f64} : tensor<4x8xf32>
  return
}

// -----

// clamp_grad: min > max.
func.func @clamp_grad_min_above_max(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.clamp_grad' op 'min' (1.00) must be at most 'max' (-1.00)}}
  %0 = echo.clamp_grad %x, %dy {min = 1.0 : f64, max = -1.0 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

// clamp_grad: 'x' is a float tensor or an i1 mask.
func.func @clamp_grad_x_i32(%x: tensor<4x8xi32>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.clamp_grad' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values or statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x8xi32>'}}
  %0 = echo.clamp_grad %x, %dy {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xi32>, tensor<4x8xf32>
  return
}

// -----

// clamp_grad: a float 'x' has the element type of 'dy'.
func.func @clamp_grad_element_type(%x: tensor<4x8xf16>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.clamp_grad' op 'x' must be an i1 mask or have the element type of 'dy'}}
  %0 = echo.clamp_grad %x, %dy {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xf16>, tensor<4x8xf32>
  return
}

// -----

// clamp_grad: the mask has the shape of 'dy'.
func.func @clamp_grad_mask_shape(%m: tensor<8x4xi1>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.clamp_grad' op failed to verify that all of {x, dy} have same shape}}
  %0 = echo.clamp_grad %m, %dy {min = 0.0 : f64, max = 6.0 : f64} : tensor<8x4xi1>, tensor<4x8xf32>
  return
}

// -----

// gelu_grad: x and dy have the same type.
func.func @gelu_grad_types(%x: tensor<4x8xf32>, %dy: tensor<4x8xf16>) {
  // expected-error @+1 {{'echo.gelu_grad' op requires the same type for all operands and results}}
  %0 = "echo.gelu_grad"(%x, %dy) : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

// mish_grad: unranked.
func.func @mish_grad_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{'echo.mish_grad' op operand #0 must be statically shaped tensor}}
  %0 = "echo.mish_grad"(%x, %x) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// select: the condition is an i1 mask.
func.func @select_float_cond(%c: tensor<4x8xf32>, %a: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %0 = "echo.select"(%c, %a, %a) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// select: the condition has the shape of the data (no broadcasting).
func.func @select_cond_shape(%c: tensor<8xi1>, %a: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.select' op failed to verify that all of {cond, a} have same shape}}
  %0 = "echo.select"(%c, %a, %a) : (tensor<8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// select: a, b and the result have one type.
func.func @select_types(%c: tensor<4x8xi1>, %a: tensor<4x8xf32>, %b: tensor<4x8xf16>) {
  // expected-error @+1 {{'echo.select' op failed to verify that all of {a, b, result} have same type}}
  %0 = "echo.select"(%c, %a, %b) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

// select: the data are float tensors.
func.func @select_i32_data(%c: tensor<4xi1>, %a: tensor<4xi32>) {
  // expected-error @+1 {{'echo.select' op operand #1 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = "echo.select"(%c, %a, %a) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shape and reduction ops
//===----------------------------------------------------------------------===//

// broadcast: result rank = rank(x) + #dimensions.
func.func @broadcast_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{result rank 3 must be the rank of 'x' (1) plus the number of 'dimensions' (1)}}
  %0 = echo.broadcast %x dims = [0] : (tensor<8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// broadcast: dimension out of range.
func.func @broadcast_dim_range(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dimensions' entry 2 is out of range [0, 2)}}
  %0 = echo.broadcast %x dims = [2] : (tensor<8xf32>) -> tensor<8x4xf32>
  return
}

// -----

// broadcast: dimensions not strictly increasing.
func.func @broadcast_dim_order(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dimensions' must be strictly increasing}}
  %0 = echo.broadcast %x dims = [1, 0] : (tensor<8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// broadcast: kept dimensions must be the shape of 'x'.
func.func @broadcast_shape(%x: tensor<8xf32>) {
  // expected-error @+1 {{result dimensions not in 'dimensions' [4] must equal the shape of 'x' [8]}}
  %0 = echo.broadcast %x dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// reduce_sum: dimension out of range.
func.func @reduce_sum_dim_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dimensions' entry 2 is out of range [0, 2)}}
  %0 = echo.reduce_sum %x dims = [2] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// reduce_sum: negative dimension.
func.func @reduce_sum_dim_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dimensions' entry -1 is out of range [0, 2)}}
  %0 = echo.reduce_sum %x dims = [-1] : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// reduce_sum: dimensions not strictly increasing (repeated).
func.func @reduce_sum_dim_repeat(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dimensions' must be strictly increasing}}
  %0 = echo.reduce_sum %x dims = [1, 1] : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// reduce_sum: wrong result shape.
func.func @reduce_sum_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result has shape [8] but [4] was expected}}
  %0 = echo.reduce_sum %x dims = [1] : (tensor<4x8xf32>) -> tensor<8xf32>
  return
}

// -----

// reduce_max: wrong result shape (reduced dimension kept).
func.func @reduce_max_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result has shape [4, 1] but [4] was expected}}
  %0 = echo.reduce_max %x dims = [1] : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return
}

// -----

// reduce_max: dimensions not strictly increasing.
func.func @reduce_max_dim_order(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'dimensions' must be strictly increasing}}
  %0 = echo.reduce_max %x dims = [2, 0] : (tensor<2x4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// slice: 'offsets' needs one entry per dimension.
func.func @slice_offsets_count(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'offsets' and 'sizes' need one entry per dimension of 'x' (2)}}
  %0 = echo.slice %x {offsets = array<i64: 0>, sizes = array<i64: 2, 4>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

// slice: 'sizes' needs one entry per dimension.
func.func @slice_sizes_count(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'offsets' and 'sizes' need one entry per dimension of 'x' (2)}}
  %0 = echo.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: 2, 4, 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

// slice: past the end.
func.func @slice_past_end(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{slice [6, 10) of dimension 1 is out of bounds of 'x' (size 8)}}
  %0 = echo.slice %x {offsets = array<i64: 0, 6>, sizes = array<i64: 2, 4>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

// slice: negative offset.
func.func @slice_negative_offset(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{slice [-1, 1) of dimension 0 is out of bounds of 'x' (size 2)}}
  %0 = echo.slice %x {offsets = array<i64: -1, 0>, sizes = array<i64: 2, 4>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return
}

// -----

// slice: empty slice.
func.func @slice_empty(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{slice [4, 4) of dimension 1 is out of bounds of 'x' (size 8)}}
  %0 = echo.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: 2, 0>} : (tensor<2x8xf32>) -> tensor<2x0xf32>
  return
}

// -----

// slice: result shape must be 'sizes'.
func.func @slice_shape(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{result has shape [2, 3] but [2, 4] was expected}}
  %0 = echo.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: 2, 4>} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  return
}

// -----

// concat: axis out of range.
func.func @concat_axis(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+1 {{'axis' 2 is out of range [0, 2)}}
  %0 = echo.concat %a, %b {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return
}

// -----

// concat: negative axis.
func.func @concat_axis_negative(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+1 {{'axis' -1 is out of range [0, 2)}}
  %0 = echo.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return
}

// -----

// concat: rank mismatch.
func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x5x1xf32>) {
  // expected-error @+1 {{input #1 has rank 3 but input #0 has rank 2}}
  %0 = echo.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5x1xf32>) -> tensor<2x8xf32>
  return
}

// -----

// concat: mismatch in a non-axis dimension.
func.func @concat_dim(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{input #1 has size 4 in dimension 0 but input #0 has 2}}
  %0 = echo.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x8xf32>
  return
}

// -----

// concat: wrong result shape.
func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+1 {{result has shape [2, 9] but [2, 8] was expected}}
  %0 = echo.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x9xf32>
  return
}

// -----

// concat: at least one input (caught by SameOperandsElementType first).
func.func @concat_empty() {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0 = "echo.concat"() {axis = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

// reshape: element count must be preserved.
func.func @reshape_count(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'x' has 16 elements but the result has 12}}
  %0 = echo.reshape %x : (tensor<2x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

// transpose: one entry per dimension.
func.func @transpose_count(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'permutation' has 3 entries but 'x' has rank 2}}
  %0 = echo.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x8xf32>) -> tensor<8x2xf32>
  return
}

// -----

// transpose: repeated entry.
func.func @transpose_repeat(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'permutation' is not a permutation of [0, 2)}}
  %0 = echo.transpose %x {permutation = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<8x8xf32>
  return
}

// -----

// transpose: entry out of range.
func.func @transpose_range(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'permutation' is not a permutation of [0, 2)}}
  %0 = echo.transpose %x {permutation = array<i64: 2, 0>} : (tensor<2x8xf32>) -> tensor<8x2xf32>
  return
}

// -----

// transpose: wrong result shape.
func.func @transpose_shape(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{result has shape [2, 8] but [8, 2] was expected}}
  %0 = echo.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Compute-heavy ops
//===----------------------------------------------------------------------===//

// matmul: contraction mismatch.
func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{contraction size of 'a' (8) does not match that of 'b' (16)}}
  %0 = echo.matmul %a, %b : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// matmul: contraction mismatch with transpose_a.
func.func @matmul_contraction_transpose_a(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{contraction size of 'a' (4) does not match that of 'b' (8)}}
  %0 = echo.matmul %a, %b {transpose_a = true} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

// matmul: wrong result shape.
func.func @matmul_shape(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{result has shape [16, 4] but [4, 16] was expected}}
  %0 = echo.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<16x4xf32>
  return
}

// -----

// matmul: wrong result shape with transpose_b.
func.func @matmul_shape_transpose_b(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{result has shape [4, 8] but [4, 16] was expected}}
  %0 = echo.matmul %a, %b {transpose_b = true} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// batch_matmul: contraction mismatch.
func.func @batch_matmul_contraction(%a: tensor<2x4x8xf32>, %b: tensor<2x4x16xf32>) {
  // expected-error @+1 {{contraction size of 'a' (8) does not match that of 'b' (4)}}
  %0 = echo.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

// batch_matmul: batch mismatch.
func.func @batch_matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+1 {{batch size of 'a' (2) does not match that of 'b' (3)}}
  %0 = echo.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

// batch_matmul: wrong result shape.
func.func @batch_matmul_shape(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @+1 {{result has shape [2, 4, 8] but [2, 4, 16] was expected}}
  %0 = echo.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// batch_matmul: wrong result shape with both transposes.
func.func @batch_matmul_shape_transposed(%a: tensor<2x8x4xf32>, %b: tensor<2x16x8xf32>) {
  // expected-error @+1 {{result has shape [2, 8, 16] but [2, 4, 16] was expected}}
  %0 = echo.batch_matmul %a, %b {transpose_a = true, transpose_b = true} : (tensor<2x8x4xf32>, tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

// linear: input feature mismatch.
func.func @linear_features(%x: tensor<4x8xf32>, %w: tensor<16x4xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'w' has 4 input features but 'x' has 8}}
  %0 = echo.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// linear: bias size mismatch.
func.func @linear_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'b' has 8 entries but 'w' has 16 output features}}
  %0 = echo.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return
}

// -----

// linear: wrong result shape.
func.func @linear_shape(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{result has shape [4, 8] but [4, 16] was expected}}
  %0 = echo.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x8xf32>
  return
}

// -----

// conv2d: channel mismatch.
func.func @conv2d_channels(%x: tensor<2x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'w' has 2 input channels but 'x' has 3}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: filter larger than the padded input.
func.func @conv2d_fit(%x: tensor<2x3x4x4xf32>, %w: tensor<4x3x7x3xf32>) {
  // expected-error @+1 {{the 7x3 filter does not fit the padded 4x4 input}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>, tensor<4x3x7x3xf32>) -> tensor<2x4x1x4xf32>
  return
}

// -----

// conv2d: wrong result shape.
func.func @conv2d_shape(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{result has shape [2, 4, 8, 8] but [2, 4, 6, 6] was expected}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: wrong result shape with strides.
func.func @conv2d_shape_strided(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{result has shape [2, 4, 8, 8] but [2, 4, 4, 4] was expected}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: 'groups' must divide the input channels.
func.func @conv2d_groups_channels(%x: tensor<2x6x8x8xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{'x' has 6 channels, which 'groups' 4 does not divide}}
  %0 = echo.conv2d %x, %w {groups = 4 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: 'groups' must divide the filters.
func.func @conv2d_groups_filters(%x: tensor<2x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'w' has 4 filters, which 'groups' 3 does not divide}}
  %0 = echo.conv2d %x, %w {groups = 3 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: a group count larger than the channels divides nothing.
func.func @conv2d_groups_too_many(%x: tensor<2x6x8x8xf32>, %w: tensor<12x1x3x3xf32>) {
  // expected-error @+1 {{'x' has 6 channels, which 'groups' 12 does not divide}}
  %0 = echo.conv2d %x, %w {groups = 12 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<12x1x3x3xf32>) -> tensor<2x12x8x8xf32>
  return
}

// -----

// conv2d: the filter holds C/groups input channels.
func.func @conv2d_groups_filter_channels(%x: tensor<2x6x8x8xf32>, %w: tensor<4x6x3x3xf32>) {
  // expected-error @+1 {{'w' has 6 input channels per group but 'x' has 6 in 2 groups (3 per group)}}
  %0 = echo.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// conv2d: depthwise, wrong result shape (the filters give the channels).
func.func @conv2d_depthwise_shape(%x: tensor<2x6x8x8xf32>, %w: tensor<12x1x3x3xf32>) {
  // expected-error @+1 {{result has shape [2, 6, 8, 8] but [2, 12, 8, 8] was expected}}
  %0 = echo.conv2d %x, %w {groups = 6 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<12x1x3x3xf32>) -> tensor<2x6x8x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

// max_pool2d: padding must be smaller than the kernel.
func.func @max_pool2d_padding(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'padding' 2 must be smaller than the kernel size 2}}
  %0 = echo.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 2, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x6x4xf32>
  return
}

// -----

// avg_pool2d: padding must be smaller than the kernel (width).
func.func @avg_pool2d_padding(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'padding' 3 must be smaller than the kernel size 3}}
  %0 = echo.avg_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 3>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x12xf32>
  return
}

// -----

// max_pool2d: window larger than the padded input.
func.func @max_pool2d_fit(%x: tensor<2x3x2x8xf32>) {
  // expected-error @+1 {{the 4x2 window does not fit the padded 2x8 input}}
  %0 = echo.max_pool2d %x {kernel = array<i64: 4, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x2x8xf32>) -> tensor<2x3x1x4xf32>
  return
}

// -----

// max_pool2d: wrong result shape.
func.func @max_pool2d_shape(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{result has shape [2, 3, 8, 8] but [2, 3, 4, 4] was expected}}
  %0 = echo.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// avg_pool2d: wrong result shape (padding counted).
func.func @avg_pool2d_shape(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{result has shape [2, 3, 4, 4] but [2, 3, 5, 5] was expected}}
  %0 = echo.avg_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// max_pool2d: ceil_mode rounds the output up.
func.func @max_pool2d_ceil_shape(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{result has shape [2, 3, 3, 3] but [2, 3, 4, 4] was expected}}
  %0 = echo.max_pool2d %x {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x3x3xf32>
  return
}

// -----

// avg_pool2d: ceil_mode drops a last window that would start in the
// padding: ceil((7 + 2 - 2) / 2) + 1 = 5, but window 4 would start at
// 4·2 - 1 = 7, past the input; 4 windows.
func.func @avg_pool2d_ceil_dropped(%x: tensor<2x3x7x7xf32>) {
  // expected-error @+1 {{result has shape [2, 3, 5, 5] but [2, 3, 4, 4] was expected}}
  %0 = echo.avg_pool2d %x {ceil_mode = true, count_include_pad = true, kernel = array<i64: 2, 2>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x5x5xf32>
  return
}

// -----

// max_pool2d: with ceil_mode a window larger than the input may fit (it is
// clipped), but not one that leaves no window at all.
func.func @max_pool2d_ceil_fit(%x: tensor<2x3x1x8xf32>) {
  // expected-error @+1 {{the 3x2 window does not fit the padded 1x8 input}}
  %0 = echo.max_pool2d %x {ceil_mode = true, kernel = array<i64: 3, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x1x8xf32>) -> tensor<2x3x1x4xf32>
  return
}

// -----

// adaptive_avg_pool2d: the result is N×C×output_size.
func.func @adaptive_avg_pool2d_shape(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{result has shape [2, 3, 3, 2] but [2, 3, 3, 3] was expected}}
  %0 = echo.adaptive_avg_pool2d %x {output_size = array<i64: 3, 3>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x3x2xf32>
  return
}

// -----

// adaptive_avg_pool2d_grad: 'dy' has the batch and channels of the result.
func.func @adaptive_avg_pool2d_grad_dy(%dy: tensor<2x4x3x3xf32>) {
  // expected-error @+1 {{'dy' has shape [2, 4, 3, 3] but [2, 3, 3, 3] was expected}}
  %0 = echo.adaptive_avg_pool2d_grad %dy : (tensor<2x4x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// batch_norm: epsilon must be positive (zero).
func.func @batch_norm_epsilon_zero(%x: tensor<2x3x8x8xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'epsilon' must be positive}}
  %0 = echo.batch_norm %x, %g, %g {epsilon = 0.000000e+00 : f64} : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// batch_norm: epsilon must be positive (negative).
func.func @batch_norm_epsilon_negative(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'epsilon' must be positive}}
  %0 = echo.batch_norm %x, %g, %g {epsilon = -1.000000e-05 : f64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// batch_norm: gamma size.
func.func @batch_norm_gamma(%x: tensor<2x3x8x8xf32>, %g: tensor<8xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'gamma' has 8 entries but 'x' has 3 channels (dimension 1)}}
  %0 = echo.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8x8xf32>, tensor<8xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// batch_norm: beta size.
func.func @batch_norm_beta(%x: tensor<4x3xf32>, %g: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'beta' has 4 entries but 'x' has 3 channels (dimension 1)}}
  %0 = echo.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

// layer_norm: epsilon must be positive.
func.func @layer_norm_epsilon(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'epsilon' must be positive}}
  %0 = echo.layer_norm %x, %g, %g {epsilon = 0.000000e+00 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// layer_norm: 'x' must have rank >= 1.
func.func @layer_norm_rank0(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'x' must have rank >= 1}}
  %0 = echo.layer_norm %x, %g, %g {epsilon = 1.000000e-05 : f64} : (tensor<f32>, tensor<1xf32>, tensor<1xf32>) -> tensor<f32>
  return
}

// -----

// layer_norm: gamma size.
func.func @layer_norm_gamma(%x: tensor<4x8xf32>, %g: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'gamma' has 4 entries but 'x' has 8 features (last dimension)}}
  %0 = echo.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// layer_norm: beta size.
func.func @layer_norm_beta(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'beta' has 16 entries but 'x' has 8 features (last dimension)}}
  %0 = echo.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<16xf32>) -> tensor<4x8xf32>
  return
}

// -----

// softmax: axis out of range.
func.func @softmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'axis' 2 is out of range [0, 2)}}
  %0 = echo.softmax %x {axis = 2 : i64} : tensor<4x8xf32>
  return
}

// -----

// softmax: negative axis.
func.func @softmax_axis_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'axis' -1 is out of range [0, 2)}}
  %0 = echo.softmax %x {axis = -1 : i64} : tensor<4x8xf32>
  return
}

// -----

// dropout: negative ratio.
func.func @dropout_ratio_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'ratio' must be in [0, 1), got -0.1}}
  %0, %1 = echo.dropout %x {ratio = -1.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return
}

// -----

// dropout: ratio 1 drops everything.
func.func @dropout_ratio_one(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'ratio' must be in [0, 1), got 1}}
  %0, %1 = echo.dropout %x {ratio = 1.000000e+00 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return
}

// -----

// dropout: broadcast_dims must be dims of 'x'.
func.func @dropout_broadcast_dims_range(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'broadcast_dims' entry 4 is out of range [0, 4)}}
  %0, %1 = echo.dropout %x {broadcast_dims = array<i64: 2, 4>, ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<2x3x8x8xi1>)
  return
}

// -----

// dropout: broadcast_dims must be sorted and unique.
func.func @dropout_broadcast_dims_order(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'broadcast_dims' must be strictly increasing}}
  %0, %1 = echo.dropout %x {broadcast_dims = array<i64: 3, 2>, ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<2x3x8x8xi1>)
  return
}

// -----

// dropout: broadcast_dims must not repeat a dim.
func.func @dropout_broadcast_dims_repeated(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'broadcast_dims' must be strictly increasing}}
  %0, %1 = echo.dropout %x {broadcast_dims = array<i64: 2, 2>, ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<2x3x8x8xi1>)
  return
}

// -----

// dropout: broadcast_dims must leave a dim to draw along.
func.func @dropout_broadcast_dims_all(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'broadcast_dims' names every dimension of 'x'; at least one must keep its own draws}}
  %0, %1 = echo.dropout %x {broadcast_dims = array<i64: 0, 1>, ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return
}

// -----

// embedding: result shape is ids shape + [H].
func.func @embedding_shape(%ids: tensor<4x6xi32>, %t: tensor<100x16xf32>) {
  // expected-error @+1 {{result has shape [4, 6, 100] but [4, 6, 16] was expected}}
  %0 = echo.embedding %ids, %t : (tensor<4x6xi32>, tensor<100x16xf32>) -> tensor<4x6x100xf32>
  return
}

// -----

// cross_entropy: one label per row.
func.func @cross_entropy_labels(%l: tensor<4x10xf32>, %y: tensor<10xi32>) {
  // expected-error @+1 {{'labels' has 10 entries but 'logits' has 4 rows}}
  %0 = echo.cross_entropy %l, %y : (tensor<4x10xf32>, tensor<10xi32>) -> tensor<f32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

// relu_grad: float 'x' must have the element type of 'dy'.
func.func @relu_grad_element_type(%x: tensor<4x8xf16>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{'x' must be an i1 mask or have the element type of 'dy'}}
  %0 = echo.relu_grad %x, %dy : tensor<4x8xf16>, tensor<4x8xf32>
  return
}

// -----

// reduce_max_grad: dimension out of range.
func.func @reduce_max_grad_dim_range(%x: tensor<4x8xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'dimensions' entry 3 is out of range [0, 2)}}
  %0 = echo.reduce_max_grad %x, %y, %y dims = [3] : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// reduce_max_grad: 'y' must have the reduced shape.
func.func @reduce_max_grad_y_shape(%x: tensor<4x8xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'y' has shape [8] but [4] was expected}}
  %0 = echo.reduce_max_grad %x, %y, %y dims = [1] : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// slice_grad: rank mismatch.
func.func @slice_grad_rank(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{'dy', 'offsets' and the result must have the same rank}}
  %0 = echo.slice_grad %dy {offsets = array<i64: 0, 4>} : (tensor<2x4xf32>) -> tensor<16xf32>
  return
}

// -----

// slice_grad: 'offsets' entry count.
func.func @slice_grad_offsets_count(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{'dy', 'offsets' and the result must have the same rank}}
  %0 = echo.slice_grad %dy {offsets = array<i64: 4>} : (tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

// slice_grad: does not fit.
func.func @slice_grad_fit(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{'dy' placed at offset 6 of dimension 1 does not fit the result (size 8)}}
  %0 = echo.slice_grad %dy {offsets = array<i64: 0, 6>} : (tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

// slice_grad: negative offset.
func.func @slice_grad_negative(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{'dy' placed at offset -1 of dimension 0 does not fit the result (size 2)}}
  %0 = echo.slice_grad %dy {offsets = array<i64: -1, 0>} : (tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

// softmax_grad: axis out of range.
func.func @softmax_grad_axis(%y: tensor<4x8xf32>) {
  // expected-error @+1 {{'axis' 2 is out of range [0, 2)}}
  %0 = echo.softmax_grad %y, %y {axis = 2 : i64} : tensor<4x8xf32>
  return
}

// -----

// dropout_grad: ratio 1.
func.func @dropout_grad_ratio_one(%m: tensor<4x8xi1>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{'ratio' must be in [0, 1), got 1}}
  %0 = echo.dropout_grad %m, %dy {ratio = 1.000000e+00 : f64} : (tensor<4x8xi1>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// dropout_grad: negative ratio.
func.func @dropout_grad_ratio_negative(%m: tensor<4x8xi1>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{'ratio' must be in [0, 1), got -0.5}}
  %0 = echo.dropout_grad %m, %dy {ratio = -5.000000e-01 : f64} : (tensor<4x8xi1>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// embedding_grad: 'dy' shape is ids shape + [H].
func.func @embedding_grad_dy_shape(%ids: tensor<4x6xi32>, %dy: tensor<4x6x8xf32>) {
  // expected-error @+1 {{'dy' has shape [4, 6, 8] but [4, 6, 16] was expected}}
  %0 = echo.embedding_grad %ids, %dy : (tensor<4x6xi32>, tensor<4x6x8xf32>) -> tensor<100x16xf32>
  return
}

// -----

// cross_entropy_grad: one label per row.
func.func @cross_entropy_grad_labels(%l: tensor<4x10xf32>, %y: tensor<5xi32>, %d: tensor<f32>) {
  // expected-error @+1 {{'labels' has 5 entries but 'logits' has 4 rows}}
  %0 = echo.cross_entropy_grad %l, %y, %d : (tensor<4x10xf32>, tensor<5xi32>, tensor<f32>) -> tensor<4x10xf32>
  return
}

// -----

// conv2d_grad_input: channel mismatch between filter and result.
func.func @conv2d_grad_input_channels(%w: tensor<4x3x3x3xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{'w' has 3 input channels but 'result' has 2}}
  %0 = echo.conv2d_grad_input %w, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x2x8x8xf32>
  return
}

// -----

// conv2d_grad_input: filter does not fit the result.
func.func @conv2d_grad_input_fit(%w: tensor<4x3x5x5xf32>, %dy: tensor<2x4x1x1xf32>) {
  // expected-error @+1 {{the 5x5 filter does not fit the padded 2x2 input}}
  %0 = echo.conv2d_grad_input %w, %dy {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<4x3x5x5xf32>, tensor<2x4x1x1xf32>) -> tensor<2x3x2x2xf32>
  return
}

// -----

// conv2d_grad_input: 'dy' shape.
func.func @conv2d_grad_input_dy(%w: tensor<4x3x3x3xf32>, %dy: tensor<2x4x6x6xf32>) {
  // expected-error @+1 {{'dy' has shape [2, 4, 6, 6] but [2, 4, 8, 8] was expected}}
  %0 = echo.conv2d_grad_input %w, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x3x3x3xf32>, tensor<2x4x6x6xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// conv2d_grad_filter: channel mismatch between 'x' and the result.
func.func @conv2d_grad_filter_channels(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{'result' has 1 input channels but 'x' has 3}}
  %0 = echo.conv2d_grad_filter %x, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x1x3x3xf32>
  return
}

// -----

// conv2d_grad_filter: 'dy' shape.
func.func @conv2d_grad_filter_dy(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x8x8x8xf32>) {
  // expected-error @+1 {{'dy' has shape [2, 8, 8, 8] but [2, 4, 8, 8] was expected}}
  %0 = echo.conv2d_grad_filter %x, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

// max_pool2d_grad: padding must be smaller than the kernel.
func.func @max_pool2d_grad_padding(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'padding' 2 must be smaller than the kernel size 2}}
  %0 = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// max_pool2d_grad: window does not fit.
func.func @max_pool2d_grad_fit(%x: tensor<2x3x2x2xf32>, %dy: tensor<2x3x1x1xf32>) {
  // expected-error @+1 {{the 3x3 window does not fit the padded 2x2 input}}
  %0 = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x2x2xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x2x2xf32>
  return
}

// -----

// max_pool2d_grad: 'dy' shape.
func.func @max_pool2d_grad_dy(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'dy' has shape [2, 3, 8, 8] but [2, 3, 4, 4] was expected}}
  %0 = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// avg_pool2d_grad: padding must be smaller than the kernel.
func.func @avg_pool2d_grad_padding(%dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'padding' 1 must be smaller than the kernel size 1}}
  %0 = echo.avg_pool2d_grad %dy {kernel = array<i64: 1, 1>, padding = array<i64: 1, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// avg_pool2d_grad: 'dy' shape.
func.func @avg_pool2d_grad_dy(%dy: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'dy' has shape [2, 3, 4, 4] but [2, 3, 7, 7] was expected}}
  %0 = echo.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// conv2d_grad_input: 'groups' must divide the result's channels.
func.func @conv2d_grad_input_groups(%w: tensor<4x2x3x3xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{'result' has 6 channels, which 'groups' 4 does not divide}}
  %0 = echo.conv2d_grad_input %w, %dy {groups = 4 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x2x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x6x8x8xf32>
  return
}

// -----

// conv2d_grad_input: the filter holds C/groups input channels.
func.func @conv2d_grad_input_groups_channels(%w: tensor<4x2x3x3xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{'w' has 2 input channels per group but 'result' has 6 in 2 groups (3 per group)}}
  %0 = echo.conv2d_grad_input %w, %dy {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x2x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x6x8x8xf32>
  return
}

// -----

// conv2d_grad_filter: 'groups' must divide the result's filters.
func.func @conv2d_grad_filter_groups_filters(%x: tensor<2x6x8x8xf32>, %dy: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{'result' has 4 filters, which 'groups' 3 does not divide}}
  %0 = echo.conv2d_grad_filter %x, %dy {groups = 3 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x2x3x3xf32>
  return
}

// -----

// conv2d_grad_filter: grouped, 'dy' shape.
func.func @conv2d_grad_filter_groups_dy(%x: tensor<2x6x8x8xf32>, %dy: tensor<2x6x8x8xf32>) {
  // expected-error @+1 {{'dy' has shape [2, 6, 8, 8] but [2, 4, 8, 8] was expected}}
  %0 = echo.conv2d_grad_filter %x, %dy {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<2x6x8x8xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

// max_pool2d_grad: ceil_mode, 'dy' shape.
func.func @max_pool2d_grad_ceil_dy(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{'dy' has shape [2, 3, 3, 3] but [2, 3, 4, 4] was expected}}
  %0 = echo.max_pool2d_grad %x, %dy {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// avg_pool2d_grad: ceil_mode, 'dy' shape.
func.func @avg_pool2d_grad_ceil_dy(%dy: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{'dy' has shape [2, 3, 3, 3] but [2, 3, 4, 4] was expected}}
  %0 = echo.avg_pool2d_grad %dy {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// batch_norm_grad: 'x' must have rank 2 or 4.
func.func @batch_norm_grad_rank(%x: tensor<2x3x8xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'x' must have rank 2 or 4, got 3}}
  %0:3 = echo.batch_norm_grad %x, %g, %x {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8xf32>, tensor<3xf32>, tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm_grad: epsilon must be positive.
func.func @batch_norm_grad_epsilon(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'epsilon' must be positive}}
  %0:3 = echo.batch_norm_grad %x, %g, %x {epsilon = -1.000000e+00 : f64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm_grad: gamma size.
func.func @batch_norm_grad_gamma(%x: tensor<2x3x8x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'gamma' has 8 entries but 'x' has 3 channels (dimension 1)}}
  %0:3 = echo.batch_norm_grad %x, %g, %x {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8x8xf32>, tensor<8xf32>, tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// layer_norm_grad: epsilon must be positive.
func.func @layer_norm_grad_epsilon(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'epsilon' must be positive}}
  %0:3 = echo.layer_norm_grad %x, %g, %x {epsilon = 0.000000e+00 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// layer_norm_grad: 'x' must have rank >= 1.
func.func @layer_norm_grad_rank0(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'x' must have rank >= 1}}
  %0:3 = echo.layer_norm_grad %x, %g, %x {epsilon = 1.000000e-05 : f64} : (tensor<f32>, tensor<1xf32>, tensor<f32>) -> (tensor<f32>, tensor<1xf32>, tensor<1xf32>)
  return
}

// -----

// layer_norm_grad: gamma size.
func.func @layer_norm_grad_gamma(%x: tensor<4x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'gamma' has 4 entries but 'x' has 8 features (last dimension)}}
  %0:3 = echo.layer_norm_grad %x, %g, %x {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Masks
//===----------------------------------------------------------------------===//

// pack_mask: ceil(numel / 8) bytes.
func.func @pack_mask_bytes(%m: tensor<4x5xi1>) {
  // expected-error @+1 {{a mask of 20 elements packs into 3 bytes, but the result has 2}}
  %0 = echo.pack_mask %m : (tensor<4x5xi1>) -> tensor<2xi8>
  return
}

// -----

// unpack_mask: ceil(numel / 8) bytes.
func.func @unpack_mask_bytes(%p: tensor<4xi8>) {
  // expected-error @+1 {{a mask of 20 elements needs 3 packed bytes, but 'packed' has 4}}
  %0 = echo.unpack_mask %p : (tensor<4xi8>) -> tensor<4x5xi1>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Recompute and yield
//===----------------------------------------------------------------------===//

// recompute: at least one result.
func.func @recompute_no_results(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{must recompute at least one value}}
  echo.recompute (%x) : (tensor<4x8xf32>) -> () {
  ^bb0(%a: tensor<4x8xf32>):
    echo.yield
  }
  return
}

// -----

// recompute: one body argument per input.
func.func @recompute_arg_count(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
  // expected-error @+1 {{body takes 1 argument(s) but the op has 2 input(s)}}
  %0 = echo.recompute (%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %t = echo.tanh %a : tensor<4x8xf32>
    echo.yield %t : tensor<4x8xf32>
  }
  return
}

// -----

// recompute: body argument types match the inputs.
func.func @recompute_arg_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{body argument #0 has type 'tensor<4x8xf16>' but input #0 has type 'tensor<4x8xf32>'}}
  %0 = echo.recompute (%x) : (tensor<4x8xf32>) -> tensor<4x8xf16> {
  ^bb0(%a: tensor<4x8xf16>):
    %t = echo.tanh %a : tensor<4x8xf16>
    echo.yield %t : tensor<4x8xf16>
  }
  return
}

// -----

// recompute: yielded types are the result types.
func.func @recompute_yield_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{yields 1 value(s) of types 'tensor<4x8xf32>' but the op has result types 'tensor<8x4xf32>'}}
  %0 = echo.recompute (%x) : (tensor<4x8xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %t = echo.tanh %a : tensor<4x8xf32>
    echo.yield %t : tensor<4x8xf32>
  }
  return
}

// -----

// recompute: yielded count is the result count.
func.func @recompute_yield_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{yields 1 value(s) of types 'tensor<4x8xf32>' but the op has result types 'tensor<4x8xf32>', 'tensor<4x8xi1>'}}
  %0:2 = echo.recompute (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  ^bb0(%a: tensor<4x8xf32>):
    echo.yield %a : tensor<4x8xf32>
  }
  return
}

// -----

// recompute: the terminator must be echo.yield.
func.func @recompute_other_terminator(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{body must end with 'echo.yield'}}
  %0 = echo.recompute (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %t = echo.tanh %a : tensor<4x8xf32>
    llvm.unreachable
  }
  return
}

// -----

// recompute: missing terminator (caught by the generic block verifier).
func.func @recompute_no_terminator(%x: tensor<4x8xf32>) {
  %0 = echo.recompute (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    // expected-error @+1 {{block with no terminator}}
    %t = echo.tanh %a : tensor<4x8xf32>
  }
  return
}

// -----

// recompute: empty block (SingleBlock).
func.func @recompute_empty_block(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects a non-empty block}}
  %0 = echo.recompute (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
  }
  return
}

// -----

// recompute: the custom parser rejects an empty region.
func.func @recompute_empty_region(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expected a non-empty body}}
  %0 = echo.recompute (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {}
  return
}

// -----

// recompute: isolated from above.
func.func @recompute_isolated(%x: tensor<4x8xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = echo.recompute (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %t = echo.tanh %x : tensor<4x8xf32>
    echo.yield %t : tensor<4x8xf32>
  }
  return
}

// -----

// yield: only inside echo.recompute.
func.func @yield_outside(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects parent op 'echo.recompute'}}
  echo.yield %x : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Dialect attributes
//===----------------------------------------------------------------------===//

// echo.param must be a unit attribute.
// expected-error @+1 {{'echo.param' on argument 0 must be a unit attribute}}
func.func @param_not_unit(%w: tensor<2x4xf32> {echo.param = true}) {
  return
}

// -----

// echo.param on an integer tensor.
// expected-error @+1 {{parameter argument 1 must be a statically shaped floating-point tensor}}
func.func @param_integer(%x: tensor<8x4xf32>, %ids: tensor<8xi32> {echo.param}) {
  return
}

// -----

// echo.param on a dynamically shaped tensor.
// expected-error @+1 {{parameter argument 0 must be a statically shaped floating-point tensor}}
func.func @param_dynamic(%w: tensor<?x4xf32> {echo.param}) {
  return
}

// -----

// echo.param on a scalar.
// expected-error @+1 {{parameter argument 0 must be a statically shaped floating-point tensor}}
func.func @param_scalar(%w: f32 {echo.param}) {
  return
}

// -----

// echo.param on an argument of a function that is not a func.func.
// expected-error @+1 {{'echo.param' may only mark arguments of a func.func}}
llvm.func @param_llvm_func(%w: f32 {echo.param}) {
  llvm.return
}

// -----

// Unknown echo argument attribute.
// expected-error @+1 {{unknown echo argument attribute 'echo.weight' on argument 0}}
func.func @unknown_arg_attr(%w: tensor<2x4xf32> {echo.weight}) {
  return
}

// -----

// echo.train_step must be a unit attribute.
// expected-error @+1 {{'echo.train_step' must be a unit attribute}}
func.func @train_step_not_unit() attributes {echo.train_step = 1 : i64} {
  return
}

// -----

// echo.train_step only on a func.func.
module {
  // expected-error @+1 {{'echo.train_step' may only be attached to a func.func}}
  module @inner attributes {echo.train_step} {
  }
}

// -----

// echo.train_step on an echo op.
func.func @train_step_on_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{'echo.train_step' may only be attached to a func.func}}
  %0 = echo.tanh %x {echo.train_step} : tensor<4xf32>
  return
}

// -----

// echo.recompute_strategy must be a string.
// expected-error @+1 {{'echo.recompute_strategy' must be a string attribute}}
func.func @strategy_not_string() attributes {echo.train_step, echo.recompute_strategy = 3 : i64} {
  return
}

// -----

// echo.recompute_strategy only on training steps.
// expected-error @+1 {{'echo.recompute_strategy' may only be attached to a training step (echo.train_step)}}
func.func @strategy_not_step() attributes {echo.recompute_strategy = "echo"} {
  return
}

// -----

// Unknown echo operation attribute.
// expected-error @+1 {{unknown echo attribute 'echo.model' on an operation}}
func.func @unknown_op_attr() attributes {echo.model} {
  return
}

// -----

// Regression: echo.param on a declaration is checked against the signature
// (this used to crash on the missing body).
// expected-error @+1 {{parameter argument 0 must be a statically shaped floating-point tensor}}
func.func private @param_on_declaration(tensor<4xi32> {echo.param})

// -----

func.func private @param_on_declaration_ok(tensor<4xf32> {echo.param})
// expected-error @+1 {{echo attribute 'echo.param' is not allowed on result 0}}
func.func private @echo_result_attr() -> (tensor<f32> {echo.param})

// -----

// Regression: offset + size must not overflow into "in bounds".
func.func @slice_offset_overflow(%x: tensor<8xf32>) {
  // expected-error @+1 {{is out of bounds of 'x' (size 8)}}
  %0 = echo.slice %x {offsets = array<i64: 9223372036854775807>, sizes = array<i64: 1>} : (tensor<8xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @slice_grad_offset_overflow(%dy: tensor<1xf32>) {
  // expected-error @+1 {{does not fit the result (size 8)}}
  %0 = echo.slice_grad %dy {offsets = array<i64: 9223372036854775807>} : (tensor<1xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @slice_grad_empty(%dy: tensor<0x4xf32>) {
  // expected-error @+1 {{'dy' placed at offset 0 of dimension 0 does not fit the result}}
  %0 = echo.slice_grad %dy {offsets = array<i64: 0, 0>} : (tensor<0x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_infinite_epsilon(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'epsilon' must be positive and finite}}
  %0 = echo.layer_norm %x, %g, %g {epsilon = 0x7FF0000000000000 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// expected-error @+1 {{'echo.memory_stats' must be a dictionary attribute}}
func.func @stats_not_dict() attributes {echo.train_step, echo.memory_stats = 3 : i64} {
  return
}

// -----

// expected-error @+1 {{'echo.memory_stats' may only be attached to a training step (echo.train_step)}}
func.func @stats_not_step() attributes {echo.memory_stats = {}} {
  return
}

// -----

// expected-error @+1 {{'echo.buffer_plan' must be a dictionary attribute}}
func.func @plan_not_dict() attributes {echo.buffer_plan = "size"} {
  return
}

// -----

func.func @plan_not_func() {
  // expected-error @+1 {{'echo.buffer_plan' may only be attached to a func.func}}
  %c = arith.constant {echo.buffer_plan = {}} 0 : index
  return
}

// -----

func.func @arena_not_unit() {
  // expected-error @+1 {{'echo.arena' must be a unit attribute}}
  %a = memref.alloc() {echo.arena = 1 : i64} : memref<64xi8>
  return
}

// -----

func.func @arena_not_bytes() {
  // expected-error @+1 {{'echo.arena' may only mark a memref.alloc of a statically shaped memref<Nxi8>}}
  %a = memref.alloc() {echo.arena} : memref<16xf32>
  return
}

// -----

// expected-error @+1 {{'echo.arena' on argument 0 may only mark a statically shaped memref<Nxi8> argument of a func.func}}
func.func @arena_arg_type(%a: memref<4x4xi8> {echo.arena}) {
  return
}

// -----

// expected-error @+1 {{'echo.arena' on argument 0 must be a unit attribute}}
func.func @arena_arg_not_unit(%a: memref<16xi8> {echo.arena = "x"}) {
  return
}

// -----

func.func @backward_begin_not_unit(%x: tensor<4xf32>) -> tensor<4xf32> attributes {echo.train_step} {
  // expected-error @+1 {{'echo.backward_begin' must be a unit attribute}}
  %y = echo.tanh %x {echo.backward_begin = 1 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @backward_begin_outside_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'echo.backward_begin' may only mark an op of a training step's body}}
  %y = echo.tanh %x {echo.backward_begin} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'echo.parallel_part' must be a unit attribute}}
func.func private @parallel_part_not_unit(index, index) attributes {echo.parallel_part = 1 : i64}

// -----

func.func @parallel_part_not_function(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'echo.parallel_part' may only mark a function}}
  %y = echo.tanh %x {echo.parallel_part} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// echo.packed_dims: one entry per buffer of a library call, each between 1
// and the buffer's rank.
func.func private @echo_gemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64)
func.func @packed_dims_not_array(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %i: i64) {
  // expected-error @+1 {{'echo.packed_dims' must be an array of i64}}
  call @echo_gemm(%x, %x, %i) {echo.packed_dims = [1, 1]} : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64) -> ()
  return
}

// -----

func.func @packed_dims_not_call(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'echo.packed_dims' may only mark a library call (func.call)}}
  %y = echo.tanh %x {echo.packed_dims = array<i64: 1>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func private @echo_gemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64)
func.func @packed_dims_count(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %i: i64) {
  // expected-error @+1 {{'echo.packed_dims' has 3 entries, but the call has 2 ranked memref operands}}
  call @echo_gemm(%x, %x, %i) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64) -> ()
  return
}

// -----

func.func private @echo_gemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64)
func.func @packed_dims_rank(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %i: i64) {
  // expected-error @+1 {{'echo.packed_dims' entry 1 is 3, not in [1, 2] (the rank of its buffer)}}
  call @echo_gemm(%x, %x, %i) {echo.packed_dims = array<i64: 1, 3>} : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64) -> ()
  return
}

// -----

// reshape: an element count that wraps around int64 (2^62+1 x 4 = 2^64+4)
// must not pass for the input's 4: every Echo op bounds its tensors.
func.func @reshape_overflow(%x: tensor<4xf32>) {
  // expected-error @+1 {{'echo.reshape' op result #0 of type 'tensor<4611686018427387905x4xf32>' has a byte count that does not fit in int64, more than the largest tensor Echo accepts (2^50 bytes, 1 PiB)}}
  %0 = echo.reshape %x : (tensor<4xf32>) -> tensor<4611686018427387905x4xf32>
  return
}

// -----

// max_pool2d: a window and padding whose extents overflow int64.
func.func @max_pool2d_overflow(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{the 4611686018427387905x1 window with its padding overflows int64}}
  %0 = echo.max_pool2d %x {kernel = array<i64: 4611686018427387905, 1>, padding = array<i64: 4611686018427387904, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// conv2d: padding whose extents overflow int64.
func.func @conv2d_overflow(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x1x1xf32>) {
  // expected-error @+1 {{the 1x1 filter with its padding overflows int64}}
  %0 = echo.conv2d %x, %w {padding = array<i64: 4611686018427387904, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Every Echo op bounds the tensors it reads and writes at 2^50 bytes (the
// memory model sums them in int64): 2^48+1 f32 elements are one too many.
func.func @tensor_too_large(%x: tensor<281474976710657xf32>) {
  // expected-error @+1 {{'echo.tanh' op operand #0 of type 'tensor<281474976710657xf32>' takes 1125899906842628 bytes, more than the largest tensor Echo accepts (2^50 bytes, 1 PiB)}}
  %0 = echo.tanh %x : tensor<281474976710657xf32>
  return
}

// -----

// 2^48 f32 elements are exactly the bound.
func.func @tensor_at_bound(%x: tensor<281474976710656xf32>) {
  %0 = echo.tanh %x : tensor<281474976710656xf32>
  // expected-error @+1 {{'echo.reduce_sum' op result #0 of type 'tensor<281474976710656x2xf32>' takes 2251799813685248 bytes, more than the largest tensor Echo accepts (2^50 bytes, 1 PiB)}}
  %1 = "echo.reduce_sum"(%0) {dimensions = array<i64: 0>} : (tensor<281474976710656xf32>) -> tensor<281474976710656x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Host offload
//===----------------------------------------------------------------------===//

func.func @offload_read_on_device(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'echo.offload' op the host copy may only be read by 'echo.fetch', not by 'echo.tanh'}}
  %h = echo.offload %x : tensor<4xf32>
  %t = echo.tanh %h : tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

func.func @fetch_of_device_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'echo.fetch' op reads a host copy, which 'echo.offload' makes}}
  %y = echo.fetch %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @wait_without_transfer(%x: tensor<4xf32>) {
  // expected-error @+1 {{'echo.transfer_wait' op waits for a transfer: its operand must be the result of 'echo.fetch' or offloaded by an 'echo.offload' before it in the same block}}
  echo.transfer_wait %x : tensor<4xf32>
  return
}

// -----

func.func @wait_before_offload(%x: tensor<4xf32>) {
  // expected-error @+1 {{'echo.transfer_wait' op waits for a transfer}}
  echo.transfer_wait %x : tensor<4xf32>
  %h = echo.offload %x : tensor<4xf32>
  return
}

// -----

func.func @offload_mask(%m: tensor<4xi1>) {
  // expected-error @+1 {{'echo.offload' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %h = "echo.offload"(%m) : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @fetch_type_mismatch(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  %h = echo.offload %x : tensor<4xf32>
  // expected-error @+1 {{'echo.fetch' op requires the same type for all operands and results}}
  %y = "echo.fetch"(%h) : (tensor<4xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
