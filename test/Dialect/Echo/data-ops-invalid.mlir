// Verifier errors of the ops of masks, conversions and indexing, and of
// embedding's padding_idx.
// RUN: echo-opt %s -split-input-file -verify-diagnostics

// A comparison reads two operands of one type.
func.func @compare_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'echo.compare' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = "echo.compare"(%a, %b) {predicate = 0 : i64} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

// Its result is an i1 mask of their shape.
func.func @compare_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'echo.compare' op failed to verify that result is an i1 mask of the operands' shape}}
  %0 = "echo.compare"(%a, %a) {predicate = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xi1>
  return
}

// -----

func.func @compare_predicate(%a: tensor<4xf32>) {
  // expected-error @+1 {{'echo.compare' op attribute 'predicate' failed to satisfy constraint: the relation echo.compare tests}}
  %0 = "echo.compare"(%a, %a) {predicate = 6 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

// f64, dynamic shapes: not Echo's data.
func.func @compare_f64(%a: tensor<4xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 1-bit signless integer values, but got 'tensor<4xf64>'}}
  %0 = "echo.compare"(%a, %a) {predicate = 0 : i64} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_dynamic(%a: tensor<?xi32>) {
  // expected-error @+1 {{'lhs' must be statically shaped tensor}}
  %0 = echo.compare eq, %a, %a : tensor<?xi32>
  return
}

// -----

// The logical ops take masks.
func.func @logical_f32(%a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = echo.logical_and %a, %a : tensor<4xf32>
  return
}

// -----

func.func @not_i32(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = echo.logical_not %a : tensor<4xi32>
  return
}

// -----

// A conversion between two float types is echo.cast.
func.func @convert_floats(%x: tensor<4xf32>) {
  // expected-error @+1 {{'echo.convert' op converts 'f32' to 'bf16', two float types: that is 'echo.cast' (which has a gradient)}}
  %0 = echo.convert %x : tensor<4xf32> to tensor<4xbf16>
  return
}

// -----

func.func @convert_shape(%m: tensor<4xi1>) {
  // expected-error @+1 {{'echo.convert' op failed to verify that all of {x, result} have same shape}}
  %0 = echo.convert %m : tensor<4xi1> to tensor<2x2xf32>
  return
}

// -----

// topk takes k of the last dimension.
func.func @topk_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'echo.topk' op 'x' must have a dimension to take the top k along (it is 0-d)}}
  %0, %1 = echo.topk %x : (tensor<f32>) -> (tensor<f32>, tensor<i32>)
  return
}

// -----

func.func @topk_k(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'echo.topk' op k (the last dimension of 'values', 9) must be in [1, 8], the last dimension of 'x'}}
  %0, %1 = echo.topk %x : (tensor<16x8xf32>) -> (tensor<16x9xf32>, tensor<16x9xi32>)
  return
}

// -----

func.func @topk_zero(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'echo.topk' op k (the last dimension of 'values', 0) must be in [1, 8], the last dimension of 'x'}}
  %0, %1 = echo.topk %x : (tensor<16x8xf32>) -> (tensor<16x0xf32>, tensor<16x0xi32>)
  return
}

// -----

func.func @topk_rows(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'echo.topk' op 'values' has shape [4, 2] but [16, 2] was expected}}
  %0, %1 = echo.topk %x : (tensor<16x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return
}

// -----

func.func @topk_pair(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'echo.topk' op failed to verify that all of {values, indices} have same shape}}
  %0, %1 = echo.topk %x : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x3xi32>)
  return
}

// -----

func.func @topk_indices(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{result #1 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<16x2xf32>'}}
  %0, %1 = echo.topk %x : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xf32>)
  return
}

// -----

// gather: indices of x's rank, its shape outside the axis.
func.func @gather_axis(%x: tensor<16x8xf32>, %i: tensor<16x2xi32>) {
  // expected-error @+1 {{'echo.gather' op 'axis' 2 is out of range [0, 2)}}
  %0 = echo.gather %x, %i {axis = 2 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>) -> tensor<16x2xf32>
  return
}

// -----

func.func @gather_rank(%x: tensor<16x8xf32>, %i: tensor<16xi32>) {
  // expected-error @+1 {{'echo.gather' op 'indices' has rank 1 but 'x' has rank 2}}
  %0 = echo.gather %x, %i {axis = 0 : i64} : (tensor<16x8xf32>, tensor<16xi32>) -> tensor<16xf32>
  return
}

// -----

func.func @gather_shape(%x: tensor<16x8xf32>, %i: tensor<8x2xi32>) {
  // expected-error @+1 {{'echo.gather' op 'indices' has shape [8, 2], which differs from the shape of 'x' [16, 8] outside 'axis' 1}}
  %0 = echo.gather %x, %i {axis = 1 : i64} : (tensor<16x8xf32>, tensor<8x2xi32>) -> tensor<8x2xf32>
  return
}

// -----

func.func @gather_empty(%x: tensor<16x0xf32>, %i: tensor<16x2xi32>) {
  // expected-error @+1 {{'echo.gather' op 'x' has no entries along 'axis' 1 for 'indices' to pick}}
  %0 = echo.gather %x, %i {axis = 1 : i64} : (tensor<16x0xf32>, tensor<16x2xi32>) -> tensor<16x2xf32>
  return
}

// -----

func.func @gather_result(%x: tensor<16x8xf32>, %i: tensor<16x2xi32>) {
  // expected-error @+1 {{'echo.gather' op failed to verify that all of {indices, result} have same shape}}
  %0 = echo.gather %x, %i {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @gather_f32_indices(%x: tensor<16x8xf32>, %i: tensor<16x2xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<16x2xf32>'}}
  %0 = "echo.gather"(%x, %i) {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xf32>) -> tensor<16x2xf32>
  return
}

// -----

// scatter and scatter_add: the same rules, src of the indices' shape.
func.func @scatter_shape(%x: tensor<16x8xf32>, %i: tensor<16x2x1xi32>, %s: tensor<16x2x1xf32>) {
  // expected-error @+1 {{'echo.scatter' op 'indices' has rank 3 but 'x' has rank 2}}
  %0 = echo.scatter %x, %i, %s {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2x1xi32>, tensor<16x2x1xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @scatter_src(%x: tensor<16x8xf32>, %i: tensor<16x2xi32>, %s: tensor<16x3xf32>) {
  // expected-error @+1 {{'echo.scatter' op failed to verify that all of {indices, src} have same shape}}
  %0 = echo.scatter %x, %i, %s {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>, tensor<16x3xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @scatter_add_axis(%x: tensor<16x8xf32>, %i: tensor<16x2xi32>, %s: tensor<16x2xf32>) {
  // expected-error @+1 {{'echo.scatter_add' op 'axis' -1 is out of range [0, 2)}}
  %0 = echo.scatter_add %x, %i, %s {axis = -1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>, tensor<16x2xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @scatter_add_shape(%x: tensor<16x8xf32>, %i: tensor<4x2xi32>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{'echo.scatter_add' op 'indices' has shape [4, 2], which differs from the shape of 'x' [16, 8] outside 'axis' 1}}
  %0 = echo.scatter_add %x, %i, %s {axis = 1 : i64} : (tensor<16x8xf32>, tensor<4x2xi32>, tensor<4x2xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @scatter_add_empty(%x: tensor<16x0xf32>, %i: tensor<16x2xi32>, %s: tensor<16x2xf32>) {
  // expected-error @+1 {{'echo.scatter_add' op 'x' has no entries along 'axis' 1 for 'indices' to pick}}
  %0 = echo.scatter_add %x, %i, %s {axis = 1 : i64} : (tensor<16x0xf32>, tensor<16x2xi32>, tensor<16x2xf32>) -> tensor<16x0xf32>
  return
}

// -----

func.func @scatter_result(%x: tensor<16x8xf32>, %i: tensor<16x2xi32>, %s: tensor<16x2xf32>) {
  // expected-error @+1 {{'echo.scatter_add' op failed to verify that all of {x, result} have same type}}
  %0 = echo.scatter_add %x, %i, %s {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>, tensor<16x2xf32>) -> tensor<16x8xbf16>
  return
}

// -----

// one_hot adds the class dimension.
func.func @one_hot_rank(%ids: tensor<16x2xi32>) {
  // expected-error @+1 {{'echo.one_hot' op result has rank 2 but 'ids' has rank 2 (the result adds the class dimension)}}
  %0 = echo.one_hot %ids : (tensor<16x2xi32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @one_hot_shape(%ids: tensor<16x2xi32>) {
  // expected-error @+1 {{'echo.one_hot' op result has shape [16, 3, 8] but [16, 2, 8] was expected}}
  %0 = echo.one_hot %ids : (tensor<16x2xi32>) -> tensor<16x3x8xf32>
  return
}

// -----

// The ids are i32: an ignore_index beyond i32 can never be held.
func.func @one_hot_ignore_index(%ids: tensor<16xi32>) {
  // expected-error @+1 {{'echo.one_hot' op ignore_index 4294967296 is not an i32 (the ids are i32)}}
  %0 = echo.one_hot %ids {ignore_index = 4294967296 : i64} : (tensor<16xi32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @one_hot_classes(%ids: tensor<16x2xi32>) {
  // expected-error @+1 {{'echo.one_hot' op result has no classes (its last dimension is 0)}}
  %0 = echo.one_hot %ids : (tensor<16x2xi32>) -> tensor<16x2x0xf32>
  return
}

// -----

func.func @one_hot_mask(%ids: tensor<16xi32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer values, but got 'tensor<16x8xi1>'}}
  %0 = echo.one_hot %ids : (tensor<16xi32>) -> tensor<16x8xi1>
  return
}

// -----

// padding_idx is a row of the table.
func.func @padding_idx_range(%ids: tensor<4xi32>, %t: tensor<100x16xf32>) {
  // expected-error @+1 {{'echo.embedding' op 'padding_idx' 100 is not a row of 'table' [0, 100)}}
  %0 = echo.embedding %ids, %t {padding_idx = 100 : i64} : (tensor<4xi32>, tensor<100x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @padding_idx_negative(%ids: tensor<4xi32>, %t: tensor<100x16xf32>) {
  // expected-error @+1 {{'echo.embedding' op 'padding_idx' -1 is not a row of 'table' [0, 100)}}
  %0 = echo.embedding %ids, %t {padding_idx = -1 : i64} : (tensor<4xi32>, tensor<100x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// Shape ops move masks and ids but do not change their element type.
func.func @broadcast_mask_to_float(%m: tensor<4xi1>) {
  // expected-error @+1 {{'echo.broadcast' op failed to verify that all of {x, result} have same element type}}
  %0 = echo.broadcast %m dims = [0] : (tensor<4xi1>) -> tensor<2x4xf32>
  return
}
