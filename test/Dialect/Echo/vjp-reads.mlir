// For every differentiable op, the gradient that buildGradient builds reads
// no forward value beyond those getGradientReadOperands/Results declare:
// -echo-test-vjp fails otherwise (and, checked against an empty declaration,
// the check must catch the reads).
// RUN: echo-opt %s -split-input-file -echo-test-vjp -o /dev/null
// RUN: not echo-opt %s -split-input-file -echo-test-vjp=declare-no-reads=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNDECLARED

// The first undeclared read of each function:
// UNDECLARED: error: the gradient reads result #0 that getGradientRead* does not declare (in 'echo.tanh_grad')
// UNDECLARED: error: the gradient reads operand #0 that getGradientRead* does not declare (in 'echo.erf_grad')
// UNDECLARED: error: the gradient reads operand #1 that getGradientRead* does not declare (in 'echo.conv2d_grad_input')
// UNDECLARED: error: the gradient reads operand #0 that getGradientRead* does not declare (in 'echo.max_pool2d_grad')
// UNDECLARED: error: the gradient reads operand #1 that getGradientRead* does not declare (in 'echo.conv2d_grad_input')
// UNDECLARED: error: the gradient reads operand #0 that getGradientRead* does not declare (in 'echo.reduce_max_grad')

func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  %0 = "echo.tanh"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "echo.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "echo.sub"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = "echo.mul"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = "echo.div"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = "echo.neg"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = "echo.exp"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = "echo.log"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = "echo.sigmoid"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %9 = "echo.relu"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %10 = "echo.sqrt"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %11, %12 = "echo.dropout"(%a) {ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  %13 = "echo.softmax"(%a) {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @activations_added(%a: tensor<4x8xf32>, %m: tensor<4x8xi1>) {
  %0 = "echo.erf"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "echo.silu"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "echo.hardswish"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = "echo.hardsigmoid"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = "echo.mish"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = "echo.gelu"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = "echo.gelu"(%a) {tanh_approximation = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = "echo.clamp"(%a) {min = -1.0 : f64, max = 1.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = "echo.select"(%m, %a, %7) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @contractions(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %ba: tensor<2x4x8xf32>, %bb: tensor<2x8x16xf32>, %lw: tensor<16x8xf32>, %lb: tensor<16xf32>) {
  %0 = "echo.conv2d"(%x, %w) {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1 = "echo.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %2 = "echo.batch_matmul"(%ba, %bb) : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %3 = "echo.linear"(%a, %lw, %lb) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @windows_and_norms(%img: tensor<2x3x8x8xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %x: tensor<4x8xf32>, %g8: tensor<8xf32>, %b8: tensor<8xf32>) {
  %0 = "echo.max_pool2d"(%img) {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  %1 = "echo.avg_pool2d"(%img) {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %2 = "echo.batch_norm"(%img, %g, %b) {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
  %3 = "echo.layer_norm"(%x, %g8, %b8) {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @conv_pool_options(%x: tensor<2x6x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %0 = "echo.conv2d"(%x, %w) {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1 = "echo.max_pool2d"(%x) {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x4x4xf32>
  %2 = "echo.avg_pool2d"(%x) {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x5x5xf32>
  %3 = "echo.adaptive_avg_pool2d"(%x) {output_size = array<i64: 3, 3>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x3x3xf32>
  %4, %5 = "echo.dropout"(%x) {broadcast_dims = array<i64: 2, 3>, ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<2x6x8x8xf32>) -> (tensor<2x6x8x8xf32>, tensor<2x6x8x8xi1>)
  return
}

// -----

func.func @shapes_and_losses(%x: tensor<4x8xf32>, %v: tensor<8xf32>, %y: tensor<4x3xf32>, %ids: tensor<4xi32>, %table: tensor<10x8xf32>, %logits: tensor<4x10xf32>) {
  %0 = "echo.broadcast"(%v) {dimensions = array<i64: 0>} : (tensor<8xf32>) -> tensor<4x8xf32>
  %1 = "echo.reduce_sum"(%x) {dimensions = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %2 = "echo.reduce_max"(%x) {dimensions = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %3 = "echo.slice"(%x) {offsets = array<i64: 0, 2>, sizes = array<i64: 4, 3>} : (tensor<4x8xf32>) -> tensor<4x3xf32>
  %4 = "echo.concat"(%3, %y) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  %5 = "echo.reshape"(%x) : (tensor<4x8xf32>) -> tensor<32xf32>
  %6 = "echo.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %7 = "echo.embedding"(%ids, %table) : (tensor<4xi32>, tensor<10x8xf32>) -> tensor<4x8xf32>
  %8 = "echo.cross_entropy"(%logits, %ids) : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  %9 = "echo.mse_loss"(%x, %0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return
}
