// The vector-Jacobian products built through DifferentiableOpInterface read
// exactly the forward values the interface declares. The test pass feeds
// fresh placeholder adjoints (tensor.empty {test.adjoint_seed = result}),
// tags each operand's adjoint, and fails when a built op reads a forward
// value the interface does not declare (every op: vjp-reads.mlir).
// RUN: echo-opt %s -split-input-file -echo-test-vjp | FileCheck %s

// CHECK-LABEL: func.func @activations
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @activations(%x: tensor<4x8xf32>) {
  // tanh and sigmoid gradients read the forward output, not the input.
  // CHECK: %[[T:.*]] = echo.tanh %[[X]]
  // CHECK-NEXT: %[[DT:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64}
  // CHECK-NEXT: echo.tanh_grad %[[T]], %[[DT]] {test.adjoint_of = 0 : i64}
  %t = "echo.tanh"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: %[[S:.*]] = echo.sigmoid %[[X]]
  // CHECK-NEXT: %[[DS:.*]] = tensor.empty()
  // CHECK-NEXT: echo.sigmoid_grad %[[S]], %[[DS]] {test.adjoint_of = 0 : i64}
  %s = "echo.sigmoid"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // relu reads its input.
  // CHECK: echo.relu %[[X]]
  // CHECK-NEXT: %[[DR:.*]] = tensor.empty()
  // CHECK-NEXT: echo.relu_grad %[[X]], %[[DR]] {test.adjoint_of = 0 : i64}
  %r = "echo.relu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // exp reuses its output through a forward mul.
  // CHECK: %[[E:.*]] = echo.exp %[[X]]
  // CHECK-NEXT: %[[DE:.*]] = tensor.empty()
  // CHECK-NEXT: echo.mul %[[DE]], %[[E]] {test.adjoint_of = 0 : i64}
  %e = "echo.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // softmax reads its output.
  // CHECK: %[[SM:.*]] = echo.softmax %[[X]]
  // CHECK-NEXT: %[[DSM:.*]] = tensor.empty()
  // CHECK-NEXT: echo.softmax_grad %[[SM]], %[[DSM]] {axis = 1 : i64, test.adjoint_of = 0 : i64}
  %sm = "echo.softmax"(%x) {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // dropout reads only its mask; the mask gets no adjoint.
  // CHECK: %{{.*}}, %[[M:.*]] = echo.dropout %[[X]]
  // CHECK-NEXT: %[[DY:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64}
  // CHECK-NOT: test.adjoint_seed = 1
  // CHECK-NEXT: echo.dropout_grad %[[M]], %[[DY]] {ratio = 2.500000e-01 : f64, test.adjoint_of = 0 : i64}
  %y, %m = "echo.dropout"(%x) {ratio = 2.500000e-01 : f64, seed = 3 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return
}

// -----

// The adjoints of linear are two matmuls of the inputs and a reduction; the
// forward output is never read.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>)
func.func @linear(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) {
  // CHECK: echo.linear %[[X]], %[[W]], %[[B]]
  // CHECK-NEXT: %[[DY:.*]] = tensor.empty()
  // CHECK-NEXT: echo.matmul %[[DY]], %[[W]] {test.adjoint_of = 0 : i64} : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: echo.matmul %[[DY]], %[[X]] {test.adjoint_of = 1 : i64, transpose_a = true} : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  // CHECK-NEXT: echo.reduce_sum %[[DY]] dims = [0] {test.adjoint_of = 2 : i64} : (tensor<4x16xf32>) -> tensor<16xf32>
  %y = "echo.linear"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// Every transpose combination of matmul gets adjoints of the operand types.
// CHECK-LABEL: func.func @matmul_transposes
func.func @matmul_transposes(%a: tensor<4x8xf32>, %at: tensor<8x4xf32>, %b: tensor<8x16xf32>, %bt: tensor<16x8xf32>) {
  // CHECK: echo.matmul %[[A:.*]], %[[B:.*]] : (tensor<4x8xf32>, tensor<8x16xf32>)
  // CHECK-NEXT: %[[C0:.*]] = tensor.empty()
  // CHECK-NEXT: echo.matmul %[[C0]], %[[B]] {test.adjoint_of = 0 : i64, transpose_b = true} : {{.*}} -> tensor<4x8xf32>
  // CHECK-NEXT: echo.matmul %[[A]], %[[C0]] {test.adjoint_of = 1 : i64, transpose_a = true} : {{.*}} -> tensor<8x16xf32>
  %0 = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // CHECK: echo.matmul %[[AT:.*]], %[[B]] {transpose_a = true}
  // CHECK-NEXT: %[[C1:.*]] = tensor.empty()
  // CHECK-NEXT: echo.matmul %[[B]], %[[C1]] {test.adjoint_of = 0 : i64, transpose_b = true} : {{.*}} -> tensor<8x4xf32>
  // CHECK-NEXT: echo.matmul %[[AT]], %[[C1]] {test.adjoint_of = 1 : i64} : {{.*}} -> tensor<8x16xf32>
  %1 = "echo.matmul"(%at, %b) {transpose_a = true} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // CHECK: echo.matmul %[[A]], %[[BT:.*]] {transpose_b = true}
  // CHECK-NEXT: %[[C2:.*]] = tensor.empty()
  // CHECK-NEXT: echo.matmul %[[C2]], %[[BT]] {test.adjoint_of = 0 : i64} : {{.*}} -> tensor<4x8xf32>
  // CHECK-NEXT: echo.matmul %[[C2]], %[[A]] {test.adjoint_of = 1 : i64, transpose_a = true} : {{.*}} -> tensor<16x8xf32>
  %2 = "echo.matmul"(%a, %bt) {transpose_b = true} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  // CHECK: echo.matmul %[[AT]], %[[BT]] {transpose_a = true, transpose_b = true}
  // CHECK-NEXT: %[[C3:.*]] = tensor.empty()
  // CHECK-NEXT: echo.matmul %[[BT]], %[[C3]] {test.adjoint_of = 0 : i64, transpose_a = true, transpose_b = true} : {{.*}} -> tensor<8x4xf32>
  // CHECK-NEXT: echo.matmul %[[C3]], %[[AT]] {test.adjoint_of = 1 : i64, transpose_a = true, transpose_b = true} : {{.*}} -> tensor<16x8xf32>
  %3 = "echo.matmul"(%at, %bt) {transpose_a = true, transpose_b = true} : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

// conv2d: backward data reads the filter, backward filter the input.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // CHECK: echo.conv2d %[[X]], %[[W]]
  // CHECK-NEXT: %[[DY:.*]] = tensor.empty()
  // CHECK-NEXT: echo.conv2d_grad_input %[[W]], %[[DY]] {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, test.adjoint_of = 0 : i64} : (tensor<4x3x3x3xf32>, tensor<2x4x4x4xf32>) -> tensor<2x3x8x8xf32>
  // CHECK-NEXT: echo.conv2d_grad_filter %[[X]], %[[DY]] {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, test.adjoint_of = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<2x4x4x4xf32>) -> tensor<4x3x3x3xf32>
  %y = "echo.conv2d"(%x, %w) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  return
}

// -----

// The gradients of a grouped convolution keep its group count; pooling
// gradients keep ceil_mode and count_include_pad; adaptive pooling's reads
// only its adjoint.
// CHECK-LABEL: func.func @conv_pool_options
// CHECK-SAME: (%[[X:.*]]: tensor<2x6x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
func.func @conv_pool_options(%x: tensor<2x6x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // CHECK: echo.conv2d %[[X]], %[[W]]
  // CHECK-NEXT: %[[DY:.*]] = tensor.empty()
  // CHECK-NEXT: echo.conv2d_grad_input %[[W]], %[[DY]] {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, test.adjoint_of = 0 : i64} : (tensor<4x3x3x3xf32>, tensor<2x4x4x4xf32>) -> tensor<2x6x8x8xf32>
  // CHECK-NEXT: echo.conv2d_grad_filter %[[X]], %[[DY]] {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, test.adjoint_of = 1 : i64} : (tensor<2x6x8x8xf32>, tensor<2x4x4x4xf32>) -> tensor<4x3x3x3xf32>
  %y = "echo.conv2d"(%x, %w) {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  // CHECK: echo.max_pool2d %[[X]]
  // CHECK-NEXT: %[[DM:.*]] = tensor.empty()
  // CHECK-NEXT: echo.max_pool2d_grad %[[X]], %[[DM]] {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>, test.adjoint_of = 0 : i64}
  %m = "echo.max_pool2d"(%x) {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x4x4xf32>
  // CHECK: echo.avg_pool2d %[[X]]
  // CHECK-NEXT: %[[DA:.*]] = tensor.empty()
  // CHECK-NEXT: echo.avg_pool2d_grad %[[DA]] {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, test.adjoint_of = 0 : i64} : (tensor<2x6x5x5xf32>) -> tensor<2x6x8x8xf32>
  %a = "echo.avg_pool2d"(%x) {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x5x5xf32>
  // CHECK: echo.adaptive_avg_pool2d %[[X]]
  // CHECK-NEXT: %[[DP:.*]] = tensor.empty()
  // CHECK-NEXT: echo.adaptive_avg_pool2d_grad %[[DP]] {test.adjoint_of = 0 : i64} : (tensor<2x6x3x3xf32>) -> tensor<2x6x8x8xf32>
  %p = "echo.adaptive_avg_pool2d"(%x) {output_size = array<i64: 3, 3>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x3x3xf32>
  return
}

// -----

// Integer operands (ids, labels) get no adjoint.
// CHECK-LABEL: func.func @integer_operands
// CHECK-SAME: (%[[IDS:.*]]: tensor<4xi32>, %[[T:.*]]: tensor<10x8xf32>, %[[L:.*]]: tensor<4x10xf32>)
func.func @integer_operands(%ids: tensor<4xi32>, %t: tensor<10x8xf32>, %logits: tensor<4x10xf32>) {
  // CHECK: echo.embedding %[[IDS]], %[[T]]
  // CHECK-NEXT: %[[DE:.*]] = tensor.empty()
  // CHECK-NEXT: echo.embedding_grad %[[IDS]], %[[DE]] {test.adjoint_of = 1 : i64} : (tensor<4xi32>, tensor<4x8xf32>) -> tensor<10x8xf32>
  %e = "echo.embedding"(%ids, %t) : (tensor<4xi32>, tensor<10x8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.cross_entropy %[[L]], %[[IDS]]
  // CHECK-NEXT: %[[DCE:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64} : tensor<f32>
  // CHECK-NEXT: echo.cross_entropy_grad %[[L]], %[[IDS]], %[[DCE]] {test.adjoint_of = 0 : i64}
  %ce = "echo.cross_entropy"(%logits, %ids) : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  return
}

// -----

// The activations of the PyTorch importer: one gradient op each, reading
// the forward input and carrying the forward op's attributes.
// CHECK-LABEL: func.func @activations_added
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[M:.*]]: tensor<4x8xi1>, %[[B:.*]]: tensor<4x8xf32>)
func.func @activations_added(%x: tensor<4x8xf32>, %m: tensor<4x8xi1>, %b: tensor<4x8xf32>) {
  // CHECK: echo.erf %[[X]]
  // CHECK-NEXT: %[[D0:.*]] = tensor.empty()
  // CHECK-NEXT: echo.erf_grad %[[X]], %[[D0]] {test.adjoint_of = 0 : i64}
  %0 = "echo.erf"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.silu %[[X]]
  // CHECK-NEXT: %[[D1:.*]] = tensor.empty()
  // CHECK-NEXT: echo.silu_grad %[[X]], %[[D1]] {test.adjoint_of = 0 : i64}
  %1 = "echo.silu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.hardswish %[[X]]
  // CHECK-NEXT: %[[D2:.*]] = tensor.empty()
  // CHECK-NEXT: echo.hardswish_grad %[[X]], %[[D2]] {test.adjoint_of = 0 : i64}
  %2 = "echo.hardswish"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.hardsigmoid %[[X]]
  // CHECK-NEXT: %[[D3:.*]] = tensor.empty()
  // CHECK-NEXT: echo.hardsigmoid_grad %[[X]], %[[D3]] {test.adjoint_of = 0 : i64}
  %3 = "echo.hardsigmoid"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.mish %[[X]]
  // CHECK-NEXT: %[[D4:.*]] = tensor.empty()
  // CHECK-NEXT: echo.mish_grad %[[X]], %[[D4]] {test.adjoint_of = 0 : i64}
  %4 = "echo.mish"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.gelu %[[X]] : tensor
  // CHECK-NEXT: %[[D5:.*]] = tensor.empty()
  // CHECK-NEXT: echo.gelu_grad %[[X]], %[[D5]] {test.adjoint_of = 0 : i64} : tensor
  %5 = "echo.gelu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.gelu %[[X]] {tanh_approximation = true}
  // CHECK-NEXT: %[[D6:.*]] = tensor.empty()
  // CHECK-NEXT: echo.gelu_grad %[[X]], %[[D6]] {tanh_approximation = true, test.adjoint_of = 0 : i64}
  %6 = "echo.gelu"(%x) {tanh_approximation = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.clamp %[[X]]
  // CHECK-NEXT: %[[D7:.*]] = tensor.empty()
  // CHECK-NEXT: echo.clamp_grad %[[X]], %[[D7]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64, test.adjoint_of = 0 : i64}
  %7 = "echo.clamp"(%x) {min = 0.0 : f64, max = 6.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // select routes the adjoint by its mask, with zeros elsewhere; the mask
  // gets none.
  // CHECK: echo.select %[[M]], %[[X]], %[[B]]
  // CHECK-NEXT: %[[D8:.*]] = tensor.empty()
  // CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
  // CHECK-NEXT: echo.select %[[M]], %[[D8]], %[[Z]] {test.adjoint_of = 1 : i64}
  // CHECK-NEXT: echo.select %[[M]], %[[Z]], %[[D8]] {test.adjoint_of = 2 : i64}
  // CHECK-NOT: test.adjoint_of = 0
  %8 = "echo.select"(%m, %x, %b) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Normalization gradients read x and gamma and return three adjoints.
// CHECK-LABEL: func.func @norms
func.func @norms(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // CHECK: echo.layer_norm %[[X:.*]], %[[G:.*]], %{{.*}} {epsilon
  // CHECK-NEXT: %[[DY:.*]] = tensor.empty()
  // CHECK-NEXT: echo.layer_norm_grad %[[X]], %[[G]], %[[DY]]
  %y = "echo.layer_norm"(%x, %g, %b) {epsilon = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}
