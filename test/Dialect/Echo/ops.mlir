// Round-trips every Echo op through the custom and the generic form.
// RUN: echo-opt %s | echo-opt | FileCheck %s
// RUN: echo-opt %s --mlir-print-op-generic | echo-opt | FileCheck %s
// RUN: echo-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: echo.add %[[A]], %[[B]] : tensor<4x8xf32>
  %0 = echo.add %a, %b : tensor<4x8xf32>
  // CHECK: echo.sub %{{.*}}, %[[B]] : tensor<4x8xf32>
  %1 = echo.sub %0, %b : tensor<4x8xf32>
  // CHECK: echo.mul
  %2 = echo.mul %1, %b : tensor<4x8xf32>
  // CHECK: echo.div
  %3 = echo.div %2, %b : tensor<4x8xf32>
  // CHECK: echo.neg
  %4 = echo.neg %3 : tensor<4x8xf32>
  // CHECK: echo.exp
  %5 = echo.exp %4 : tensor<4x8xf32>
  // CHECK: echo.log
  %6 = echo.log %5 : tensor<4x8xf32>
  // CHECK: echo.tanh
  %7 = echo.tanh %6 : tensor<4x8xf32>
  // CHECK: echo.sigmoid
  %8 = echo.sigmoid %7 : tensor<4x8xf32>
  // CHECK: echo.relu
  %9 = echo.relu %8 : tensor<4x8xf32>
  // CHECK: echo.sqrt
  %10 = echo.sqrt %9 : tensor<4x8xf32>
  return %10 : tensor<4x8xf32>
}
// GENERIC-LABEL: sym_name = "elementwise"
// GENERIC: "echo.add"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>

// CHECK-LABEL: func.func @half_precision
func.func @half_precision(%a: tensor<4xf16>, %b: tensor<4xbf16>) -> (tensor<4xf16>, tensor<4xbf16>) {
  // CHECK: echo.tanh %{{.*}} : tensor<4xf16>
  %0 = echo.tanh %a : tensor<4xf16>
  // CHECK: echo.relu %{{.*}} : tensor<4xbf16>
  %1 = echo.relu %b : tensor<4xbf16>
  return %0, %1 : tensor<4xf16>, tensor<4xbf16>
}

// CHECK-LABEL: func.func @activations
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[M:.*]]: tensor<4x8xi1>)
func.func @activations(%x: tensor<4x8xf32>, %m: tensor<4x8xi1>) -> tensor<4x8xf32> {
  // CHECK: echo.erf %[[X]] : tensor<4x8xf32>
  %0 = echo.erf %x : tensor<4x8xf32>
  // CHECK: echo.silu
  %1 = echo.silu %0 : tensor<4x8xf32>
  // CHECK: echo.hardswish
  %2 = echo.hardswish %1 : tensor<4x8xf32>
  // CHECK: echo.hardsigmoid
  %3 = echo.hardsigmoid %2 : tensor<4x8xf32>
  // CHECK: echo.mish
  %4 = echo.mish %3 : tensor<4x8xf32>
  // The flag is printed only when set.
  // CHECK: echo.gelu %{{.*}} : tensor<4x8xf32>
  %5 = echo.gelu %4 : tensor<4x8xf32>
  // CHECK: echo.gelu %{{.*}} : tensor<4x8xf32>
  %6 = echo.gelu %5 {tanh_approximation = false} : tensor<4x8xf32>
  // CHECK: echo.gelu %{{.*}} {tanh_approximation = true} : tensor<4x8xf32>
  %7 = echo.gelu %6 {tanh_approximation = true} : tensor<4x8xf32>
  // CHECK: echo.clamp %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<4x8xf32>
  %8 = echo.clamp %7 {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xf32>
  // A one-sided clamp: min is -inf.
  // CHECK: echo.clamp %{{.*}} {max = 1.000000e+00 : f64, min = 0xFFF0000000000000 : f64} : tensor<4x8xf32>
  %9 = echo.clamp %8 {min = 0xFFF0000000000000 : f64, max = 1.0 : f64} : tensor<4x8xf32>
  // CHECK: echo.clamp %{{.*}} {max = 2.000000e+00 : f64, min = 2.000000e+00 : f64} : tensor<4x8xf32>
  %10 = echo.clamp %9 {min = 2.0 : f64, max = 2.0 : f64} : tensor<4x8xf32>
  // CHECK: echo.select %[[M]], %{{.*}}, %[[X]] : tensor<4x8xi1>, tensor<4x8xf32>
  %11 = echo.select %m, %10, %x : tensor<4x8xi1>, tensor<4x8xf32>
  return %11 : tensor<4x8xf32>
}
// GENERIC-LABEL: sym_name = "activations"
// GENERIC: "echo.erf"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "echo.gelu"(%{{.*}}) <{tanh_approximation = false}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "echo.gelu"(%{{.*}}) <{tanh_approximation = true}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "echo.clamp"(%{{.*}}) <{max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "echo.select"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>

// The generic form of the contract, with the attributes in the dictionary
// and the flag absent.
// CHECK-LABEL: func.func @activations_generic
func.func @activations_generic(%x: tensor<2x3xf32>, %m: tensor<2x3xi1>) -> tensor<2x3xf32> {
  // CHECK: echo.gelu %{{.*}} : tensor<2x3xf32>
  %0 = "echo.gelu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: echo.gelu %{{.*}} {tanh_approximation = true} : tensor<2x3xf32>
  %1 = "echo.gelu"(%0) {tanh_approximation = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: echo.clamp %{{.*}} {max = 1.000000e+00 : f64, min = -1.000000e+00 : f64} : tensor<2x3xf32>
  %2 = "echo.clamp"(%1) {min = -1.000000e+00 : f64, max = 1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: echo.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3xi1>, tensor<2x3xf32>
  %3 = "echo.select"(%m, %2, %x) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @activation_gradients
// CHECK-SAME: %[[MASK:[^:]*]]: tensor<4x8xi1>
func.func @activation_gradients(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %h: tensor<4xbf16>, %m: tensor<4x8xi1>) {
  // CHECK: echo.erf_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %0 = echo.erf_grad %x, %dy : tensor<4x8xf32>
  // CHECK: echo.silu_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %1 = echo.silu_grad %x, %dy : tensor<4x8xf32>
  // CHECK: echo.hardswish_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %2 = echo.hardswish_grad %x, %dy : tensor<4x8xf32>
  // CHECK: echo.hardsigmoid_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %3 = echo.hardsigmoid_grad %x, %dy : tensor<4x8xf32>
  // CHECK: echo.mish_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %4 = echo.mish_grad %x, %dy : tensor<4x8xf32>
  // CHECK: echo.gelu_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %5 = echo.gelu_grad %x, %dy : tensor<4x8xf32>
  // CHECK: echo.gelu_grad %{{.*}}, %{{.*}} {tanh_approximation = true} : tensor<4x8xf32>
  %6 = echo.gelu_grad %x, %dy {tanh_approximation = true} : tensor<4x8xf32>
  // CHECK: echo.clamp_grad %{{.*}}, %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  %7 = echo.clamp_grad %x, %dy {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  // Like relu_grad, clamp_grad takes the 1-bit mask of min < x < max.
  // CHECK: echo.clamp_grad %[[MASK]], %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<4x8xi1>, tensor<4x8xf32>
  %9 = echo.clamp_grad %m, %dy {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xi1>, tensor<4x8xf32>
  // CHECK: echo.hardswish_grad %{{.*}}, %{{.*}} : tensor<4xbf16>
  %8 = echo.hardswish_grad %h, %h : tensor<4xbf16>
  return
}
// GENERIC-LABEL: sym_name = "activation_gradients"
// GENERIC: "echo.erf_grad"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "echo.clamp_grad"(%{{.*}}, %{{.*}}) <{max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<4x8xf32>, %v: tensor<8xf32>, %y: tensor<4x3xf32>) -> tensor<f32> {
  // CHECK: echo.broadcast %{{.*}} dims = [0] : (tensor<8xf32>) -> tensor<4x8xf32>
  %0 = echo.broadcast %v dims = [0] : (tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.reduce_sum %{{.*}} dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  %1 = echo.reduce_sum %0 dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: echo.reduce_max %{{.*}} dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  %2 = echo.reduce_max %x dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  // CHECK: echo.slice %{{.*}} {offsets = array<i64: 0, 2>, sizes = array<i64: 4, 3>} : (tensor<4x8xf32>) -> tensor<4x3xf32>
  %3 = echo.slice %x {offsets = array<i64: 0, 2>, sizes = array<i64: 4, 3>} : (tensor<4x8xf32>) -> tensor<4x3xf32>
  // CHECK: echo.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  %4 = echo.concat %3, %y {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  // CHECK: echo.reshape %{{.*}} : (tensor<4x6xf32>) -> tensor<24xf32>
  %5 = echo.reshape %4 : (tensor<4x6xf32>) -> tensor<24xf32>
  // CHECK: echo.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %6 = echo.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %2 : tensor<f32>
}

// CHECK-LABEL: func.func @compute_heavy
func.func @compute_heavy(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>, %bias: tensor<16xf32>,
                         %ba: tensor<2x4x8xf32>, %bb: tensor<2x8x16xf32>,
                         %img: tensor<2x3x8x8xf32>, %filter: tensor<4x3x3x3xf32>) {
  // CHECK: echo.matmul %{{.*}}, %{{.*}} {transpose_b = true} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %0 = echo.matmul %a, %b {transpose_b = true} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  // CHECK: echo.matmul %{{.*}}, %{{.*}} {transpose_a = true} : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %1 = echo.matmul %a, %0 {transpose_a = true, transpose_b = false} : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  // CHECK: echo.batch_matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %2 = echo.batch_matmul %ba, %bb : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: echo.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %3 = echo.linear %a, %b, %bias : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK: echo.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %4 = echo.conv2d %img, %filter {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  // CHECK: echo.conv2d {{.*}} -> tensor<2x4x3x3xf32>
  %5 = echo.conv2d %img, %filter {padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x3x3xf32>
  return
}

// CHECK-LABEL: func.func @pool_norm
func.func @pool_norm(%img: tensor<2x3x8x8xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>,
                     %x: tensor<4x8xf32>, %g8: tensor<8xf32>, %b8: tensor<8xf32>) {
  // CHECK: echo.max_pool2d %{{.*}} {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  %0 = echo.max_pool2d %img {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: echo.avg_pool2d {{.*}} -> tensor<2x3x8x8xf32>
  %1 = echo.avg_pool2d %img {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: echo.batch_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
  %2 = echo.batch_norm %img, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: echo.batch_norm {{.*}} -> tensor<4x8xf32>
  %3 = echo.batch_norm %x, %g8, %b8 {epsilon = 1.000000e-03 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = echo.layer_norm %x, %g8, %b8 {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.softmax %{{.*}} {axis = 1 : i64} : tensor<4x8xf32>
  %5 = echo.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @dropout_embedding_losses
func.func @dropout_embedding_losses(%x: tensor<4x8xf32>, %ids: tensor<4x6xi32>, %table: tensor<100x16xf32>,
                                    %logits: tensor<4x10xf32>, %labels: tensor<4xi32>) -> (tensor<f32>, tensor<f32>) {
  // CHECK: %{{.*}}, %{{.*}} = echo.dropout %{{.*}} {ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  %y, %m = echo.dropout %x {ratio = 5.000000e-01 : f64, seed = 7 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  // CHECK: echo.embedding %{{.*}}, %{{.*}} : (tensor<4x6xi32>, tensor<100x16xf32>) -> tensor<4x6x16xf32>
  %e = echo.embedding %ids, %table : (tensor<4x6xi32>, tensor<100x16xf32>) -> tensor<4x6x16xf32>
  // CHECK: echo.cross_entropy %{{.*}}, %{{.*}} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  %l = echo.cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  // CHECK: echo.cross_entropy_terms %{{.*}}, %{{.*}} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  %terms = echo.cross_entropy_terms %logits, %labels : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  // Slices of labels (the chunked loss's).
  // CHECK: echo.slice %{{.*}} {offsets = array<i64: 2>, sizes = array<i64: 2>} : (tensor<4xi32>) -> tensor<2xi32>
  %half = echo.slice %labels {offsets = array<i64: 2>, sizes = array<i64: 2>} : (tensor<4xi32>) -> tensor<2xi32>
  // CHECK: echo.mse_loss %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  %s = echo.mse_loss %y, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %l, %s : tensor<f32>, tensor<f32>
}

// The step's seed (dropout with fresh masks every step), PyTorch's
// ignore_index and label smoothing, the count of the rows that count, a
// frozen parameter.
// CHECK-LABEL: func.func @seeded_dropout_ignored_rows
// CHECK-SAME: %{{[^:]*}}: tensor<i64> {echo.rng_seed}
// CHECK-SAME: %{{[^:]*}}: tensor<10x8xf32> {echo.frozen}
// GENERIC-LABEL: sym_name = "seeded_dropout_ignored_rows"
func.func @seeded_dropout_ignored_rows(%x: tensor<4x8xf32>, %seed: tensor<i64> {echo.rng_seed},
                                       %w: tensor<10x8xf32> {echo.frozen},
                                       %labels: tensor<4xi32>) -> tensor<f32> {
  // CHECK: echo.dropout %{{.*}}, %{{.*}} {ratio = 1.000000e-01 : f64, seed = 3 : i64} : (tensor<4x8xf32>, tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  // GENERIC: "echo.dropout"(%{{.*}}, %{{.*}}) <{ratio = 1.000000e-01 : f64, seed = 3 : i64}> : (tensor<4x8xf32>, tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  %y, %m = echo.dropout %x, %seed {ratio = 1.000000e-01 : f64, seed = 3 : i64} : (tensor<4x8xf32>, tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  %logits = echo.matmul %y, %w {transpose_b = true} : (tensor<4x8xf32>, tensor<10x8xf32>) -> tensor<4x10xf32>
  // CHECK: echo.cross_entropy %{{.*}}, %{{.*}} {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  // GENERIC: "echo.cross_entropy"(%{{.*}}, %{{.*}}) <{ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64}>
  %l = echo.cross_entropy %logits, %labels {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  // CHECK: echo.cross_entropy_terms %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  %t = echo.cross_entropy_terms %logits, %labels {ignore_index = -100 : i64} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  // CHECK: echo.label_count %{{.*}} {ignore_index = -100 : i64} : (tensor<4xi32>) -> tensor<f32>
  // GENERIC: "echo.label_count"(%{{.*}}) <{ignore_index = -100 : i64}> : (tensor<4xi32>) -> tensor<f32>
  %n = echo.label_count %labels {ignore_index = -100 : i64} : (tensor<4xi32>) -> tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  // CHECK: echo.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = -100 : i64, label_smoothing = 2.000000e-01 : f64, total_rows = 8 : i64}
  %g = echo.cross_entropy_grad %logits, %labels, %one {ignore_index = -100 : i64, label_smoothing = 2.000000e-01 : f64, total_rows = 8 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  // CHECK: echo.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
  // GENERIC: "echo.cross_entropy_grad"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{ignore_index = -100 : i64}>
  %gc = echo.cross_entropy_grad %logits, %labels, %one, %n {ignore_index = -100 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @gradients
func.func @gradients(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %m: tensor<4x8xi1>,
                     %r: tensor<4xf32>, %dr: tensor<4xf32>, %part: tensor<4x3xf32>,
                     %ids: tensor<4x6xi32>, %de: tensor<4x6x16xf32>,
                     %logits: tensor<4x10xf32>, %labels: tensor<4xi32>, %dl: tensor<f32>,
                     %g8: tensor<8xf32>) {
  // CHECK: echo.tanh_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %0 = echo.tanh_grad %x, %dy : tensor<4x8xf32>
  // CHECK: echo.sigmoid_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %1 = echo.sigmoid_grad %x, %dy : tensor<4x8xf32>
  // CHECK: echo.relu_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
  %2 = echo.relu_grad %x, %dy : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK: echo.relu_grad %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>
  %3 = echo.relu_grad %m, %dy : tensor<4x8xi1>, tensor<4x8xf32>
  // CHECK: echo.reduce_max_grad %{{.*}}, %{{.*}}, %{{.*}} dims = [1] : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  %4 = echo.reduce_max_grad %x, %r, %dr dims = [1] : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  // CHECK: echo.slice_grad %{{.*}} {offsets = array<i64: 0, 5>} : (tensor<4x3xf32>) -> tensor<4x8xf32>
  %5 = echo.slice_grad %part {offsets = array<i64: 0, 5>} : (tensor<4x3xf32>) -> tensor<4x8xf32>
  // CHECK: echo.softmax_grad %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<4x8xf32>
  %6 = echo.softmax_grad %x, %dy {axis = 1 : i64} : tensor<4x8xf32>
  // CHECK: echo.dropout_grad %{{.*}}, %{{.*}} {ratio = 2.500000e-01 : f64} : (tensor<4x8xi1>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = echo.dropout_grad %m, %dy {ratio = 2.500000e-01 : f64} : (tensor<4x8xi1>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: echo.embedding_grad %{{.*}}, %{{.*}} : (tensor<4x6xi32>, tensor<4x6x16xf32>) -> tensor<100x16xf32>
  %8 = echo.embedding_grad %ids, %de : (tensor<4x6xi32>, tensor<4x6x16xf32>) -> tensor<100x16xf32>
  // CHECK: echo.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  %9 = echo.cross_entropy_grad %logits, %labels, %dl : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  // A chunk of a loss over 8 rows.
  // CHECK: echo.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} {total_rows = 8 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  %ce_chunk = echo.cross_entropy_grad %logits, %labels, %dl {total_rows = 8 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  // CHECK: echo.mse_loss_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %10 = echo.mse_loss_grad %x, %dy, %dl : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = echo.layer_norm_grad %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %11:3 = echo.layer_norm_grad %x, %g8, %dy {epsilon = 1.000000e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// CHECK-LABEL: func.func @conv_pool_norm_gradients
func.func @conv_pool_norm_gradients(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                                    %dy: tensor<2x4x8x8xf32>, %dp: tensor<2x3x4x4xf32>,
                                    %g: tensor<3xf32>, %dx: tensor<2x3x8x8xf32>) {
  // CHECK: echo.conv2d_grad_input %{{.*}}, %{{.*}} {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x3x8x8xf32>
  %0 = echo.conv2d_grad_input %w, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: echo.conv2d_grad_filter %{{.*}}, %{{.*}} {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  %1 = echo.conv2d_grad_filter %x, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  // CHECK: echo.max_pool2d_grad %{{.*}}, %{{.*}} {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  %2 = echo.max_pool2d_grad %x, %dp {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: echo.avg_pool2d_grad %{{.*}} {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  %3 = echo.avg_pool2d_grad %dp {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = echo.batch_norm_grad %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>)
  %4:3 = echo.batch_norm_grad %x, %g, %dx {epsilon = 1.000000e-05 : f64} : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// Grouped and depthwise convolution, ceil_mode and count_include_pad
// pooling, adaptive average pooling and dropout with a shared mask, in the
// generic form of the contract (an importer's output) and back.
// CHECK-LABEL: func.func @conv_pool_dropout_options
// GENERIC-LABEL: sym_name = "conv_pool_dropout_options"
func.func @conv_pool_dropout_options(%x: tensor<2x6x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                                     %d: tensor<6x1x3x3xf32>, %dy: tensor<2x4x8x8xf32>,
                                     %dp: tensor<2x6x4x4xf32>, %da: tensor<2x6x3x3xf32>,
                                     %dq: tensor<2x6x5x5xf32>, %w6: tensor<4x6x3x3xf32>) {
  // CHECK: echo.conv2d %{{.*}}, %{{.*}} {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  // GENERIC: "echo.conv2d"(%{{.*}}, %{{.*}}) <{groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>}>
  %0 = "echo.conv2d"(%x, %w) {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  // CHECK: echo.conv2d %{{.*}}, %{{.*}} {groups = 6 : i64, {{.*}}} : (tensor<2x6x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<2x6x8x8xf32>
  %1 = echo.conv2d %x, %d {groups = 6 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<2x6x8x8xf32>
  // CHECK: echo.conv2d_grad_input %{{.*}}, %{{.*}} {groups = 2 : i64, {{.*}}} : (tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x6x8x8xf32>
  %2 = echo.conv2d_grad_input %w, %dy {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x6x8x8xf32>
  // CHECK: echo.conv2d_grad_filter %{{.*}}, %{{.*}} {groups = 2 : i64, {{.*}}} : (tensor<2x6x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  %3 = echo.conv2d_grad_filter %x, %dy {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  // 8 = 2·3 + 3 - 1: ceil_mode adds a window clipped at the input's end.
  // CHECK: echo.max_pool2d %{{.*}} {ceil_mode = true, kernel = array<i64: 3, 3>, {{.*}}} : (tensor<2x6x8x8xf32>) -> tensor<2x6x4x4xf32>
  // GENERIC: "echo.max_pool2d"(%{{.*}}) <{ceil_mode = true, kernel = array<i64: 3, 3>
  %4 = "echo.max_pool2d"(%x) {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x4x4xf32>
  // 5 = ceil((8 + 2 - 3) / 2) + 1: the last window starts on the input's
  // last row.
  // CHECK: echo.avg_pool2d %{{.*}} {ceil_mode = true, count_include_pad = true, {{.*}}} : (tensor<2x6x8x8xf32>) -> tensor<2x6x5x5xf32>
  // GENERIC: "echo.avg_pool2d"(%{{.*}}) <{ceil_mode = true, count_include_pad = true,
  %5 = "echo.avg_pool2d"(%x) {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x5x5xf32>
  // CHECK: echo.max_pool2d_grad %{{.*}}, %{{.*}} {ceil_mode = true, {{.*}}} : (tensor<2x6x8x8xf32>, tensor<2x6x4x4xf32>) -> tensor<2x6x8x8xf32>
  %6 = echo.max_pool2d_grad %x, %dp {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>, tensor<2x6x4x4xf32>) -> tensor<2x6x8x8xf32>
  // CHECK: echo.avg_pool2d_grad %{{.*}} {ceil_mode = true, count_include_pad = true, {{.*}}} : (tensor<2x6x5x5xf32>) -> tensor<2x6x8x8xf32>
  %7 = echo.avg_pool2d_grad %dq {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x5x5xf32>) -> tensor<2x6x8x8xf32>
  // CHECK: echo.adaptive_avg_pool2d %{{.*}} {output_size = array<i64: 3, 3>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x3x3xf32>
  // GENERIC: "echo.adaptive_avg_pool2d"(%{{.*}}) <{output_size = array<i64: 3, 3>}>
  %8 = "echo.adaptive_avg_pool2d"(%x) {output_size = array<i64: 3, 3>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x3x3xf32>
  // CHECK: echo.adaptive_avg_pool2d_grad %{{.*}} : (tensor<2x6x3x3xf32>) -> tensor<2x6x8x8xf32>
  %9 = echo.adaptive_avg_pool2d_grad %da : (tensor<2x6x3x3xf32>) -> tensor<2x6x8x8xf32>
  // CHECK: %{{.*}}, %{{.*}} = echo.dropout %{{.*}} {broadcast_dims = array<i64: 2, 3>, ratio = 2.000000e-01 : f64, seed = 8 : i64} : (tensor<2x6x8x8xf32>) -> (tensor<2x6x8x8xf32>, tensor<2x6x8x8xi1>)
  // GENERIC: "echo.dropout"(%{{.*}}) <{broadcast_dims = array<i64: 2, 3>, ratio = 2.000000e-01 : f64, seed = 8 : i64}>
  %10, %11 = "echo.dropout"(%x) {broadcast_dims = array<i64: 2, 3>, ratio = 2.000000e-01 : f64, seed = 8 : i64} : (tensor<2x6x8x8xf32>) -> (tensor<2x6x8x8xf32>, tensor<2x6x8x8xi1>)
  // Absent attributes keep their defaults (groups 1, flags false) and
  // print as absent.
  // CHECK: echo.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x6x3x3xf32>)
  %12 = "echo.conv2d"(%x, %w6) {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// CHECK-LABEL: func.func @recompute_and_masks
func.func @recompute_and_masks(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %m: tensor<3x5xi1>)
    -> (tensor<4x8xf32>, tensor<3x5xi1>) {
  // CHECK: %[[P:.*]] = echo.pack_mask %{{.*}} : (tensor<3x5xi1>) -> tensor<2xi8>
  %p = echo.pack_mask %m : (tensor<3x5xi1>) -> tensor<2xi8>
  // CHECK: echo.unpack_mask %[[P]] : (tensor<2xi8>) -> tensor<3x5xi1>
  %u = echo.unpack_mask %p : (tensor<2xi8>) -> tensor<3x5xi1>
  // CHECK: %[[R:.*]]:2 = echo.recompute (%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x8xf32>):
  // CHECK-NEXT:   %[[MM:.*]] = echo.matmul %[[A]], %[[B]]
  // CHECK-NEXT:   %[[T:.*]] = echo.tanh %[[MM]]
  // CHECK-NEXT:   echo.yield %[[MM]], %[[T]] : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK-NEXT: }
  %r:2 = echo.recompute (%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %mm = echo.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %t = echo.tanh %mm : tensor<4x8xf32>
    echo.yield %mm, %t : tensor<4x8xf32>, tensor<4x8xf32>
  }
  // CHECK: echo.recompute () : () -> tensor<4x8xf32>
  %c = echo.recompute () : () -> tensor<4x8xf32> {
    %z = arith.constant dense<0.0> : tensor<4x8xf32>
    echo.yield %z : tensor<4x8xf32>
  }
  %s = echo.add %r#1, %c : tensor<4x8xf32>
  return %s, %u : tensor<4x8xf32>, tensor<3x5xi1>
}
// GENERIC-LABEL: sym_name = "recompute_and_masks"
// GENERIC: "echo.recompute"(%{{.*}}, %{{.*}}) ({
// GENERIC: "echo.yield"

// CHECK-LABEL: func.func @model_attributes
// CHECK-SAME: %{{.*}}: tensor<2x4xf32> {echo.param}
// CHECK-SAME: attributes {echo.train_step}
func.func @model_attributes(%x: tensor<8x4xf32>, %w: tensor<2x4xf32> {echo.param})
    -> tensor<f32> attributes {echo.train_step} {
  %0 = echo.matmul %x, %w {transpose_b = true} : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  %1 = echo.reduce_sum %0 dims = [0, 1] : (tensor<8x2xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
