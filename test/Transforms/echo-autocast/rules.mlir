// echo-autocast: one case per policy of AutocastOpInterface.
// RUN: echo-opt %s -split-input-file -echo-autocast="dtype=bf16" | FileCheck %s

// Lower: a GEMM reads its data and its parameters in bf16, each cast once
// before its first use (the weight read twice is cast once); the function's
// arguments keep f32 (master weights). The tanh follows its bf16 operand.
// CHECK-LABEL: func.func @lower
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[L:.*]]: tensor<8xi32>, %[[W:.*]]: tensor<32x32xf32> {echo.param}, %[[B:.*]]: tensor<32xf32> {echo.param})
// CHECK: %[[XL:.*]] = echo.cast %[[X]] : tensor<8x32xf32> to tensor<8x32xbf16>
// CHECK: %[[WL:.*]] = echo.cast %[[W]] : tensor<32x32xf32> to tensor<32x32xbf16>
// CHECK: %[[BL:.*]] = echo.cast %[[B]] : tensor<32xf32> to tensor<32xbf16>
// CHECK: %[[H:.*]] = echo.linear %[[XL]], %[[WL]], %[[BL]] : {{.*}} -> tensor<8x32xbf16>
// CHECK: %[[T:.*]] = echo.tanh %[[H]] : tensor<8x32xbf16>
// CHECK: %[[H2:.*]] = echo.linear %[[T]], %[[WL]], %[[BL]] : {{.*}} -> tensor<8x32xbf16>
// CHECK-NOT: echo.cast %[[W]]
func.func @lower(%x: tensor<8x32xf32>, %labels: tensor<8xi32>,
                 %w: tensor<32x32xf32> {echo.param},
                 %b: tensor<32xf32> {echo.param}) -> tensor<f32> {
  %h = "echo.linear"(%x, %w, %b) : (tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %t = "echo.tanh"(%h) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %h2 = "echo.linear"(%t, %w, %b) : (tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %l = "echo.cross_entropy"(%h2, %labels) : (tensor<8x32xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Full: sums, softmax and losses read f32; their results are f32. An
// elementwise op follows the widest of its operands, as PyTorch's type
// promotion does: the softmax's f32 result times the GEMM's bf16 one is f32.
// CHECK-LABEL: func.func @full
// CHECK: %[[M:.*]] = echo.matmul {{.*}} -> tensor<4x8xbf16>
// CHECK: %[[MF:.*]] = echo.cast %[[M]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: %[[S:.*]] = echo.softmax %[[MF]] {{.*}}: tensor<4x8xf32>
// CHECK: %[[R:.*]] = echo.reduce_sum %[[MF]] dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK: %[[P:.*]] = echo.mul %[[S]], %[[MF]] : tensor<4x8xf32>
// CHECK: echo.mse_loss %[[P]], %{{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
func.func @full(%a: tensor<4x16xf32>, %t: tensor<4x8xf32>,
                %w: tensor<16x8xf32> {echo.param}) -> tensor<f32> {
  %m = "echo.matmul"(%a, %w) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %s = "echo.softmax"(%m) {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = "echo.reduce_sum"(%m) {dimensions = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %p = "echo.mul"(%s, %m) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = "echo.mse_loss"(%p, %t) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Follow: an op runs in the widest type of its operands. Ops on f32 data
// stay f32 (no cast: the embedding's f32 table, the relu and the shape ops
// on it); a bf16 value that meets an f32 one is widened (the residual add);
// one that meets only bf16 values or constants stays bf16 (the scale by a
// constant, which takes the op's type as a Python scalar does in PyTorch).
// CHECK-LABEL: func.func @follow
// CHECK: %[[E:.*]] = echo.embedding {{.*}} -> tensor<4x16xf32>
// CHECK: %[[Y:.*]] = echo.relu %[[E]] : tensor<4x16xf32>
// CHECK: %[[T:.*]] = echo.transpose %[[Y]] {{.*}} -> tensor<16x4xf32>
// CHECK: %[[R:.*]] = echo.reshape %[[T]] : (tensor<16x4xf32>) -> tensor<4x16xf32>
// CHECK: %[[H:.*]] = echo.matmul {{.*}} -> tensor<4x16xbf16>
// CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<4x16xf32>
// CHECK: %[[HALFL:.*]] = echo.cast %[[HALF]] : tensor<4x16xf32> to tensor<4x16xbf16>
// CHECK: %[[S:.*]] = echo.mul %[[H]], %[[HALFL]] : tensor<4x16xbf16>
// CHECK: %[[SF:.*]] = echo.cast %[[S]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK: %[[A:.*]] = echo.add %[[R]], %[[SF]] : tensor<4x16xf32>
// CHECK: echo.concat %[[A]], %[[E]] {{.*}} -> tensor<8x16xf32>
func.func @follow(%ids: tensor<4xi32>, %t: tensor<8x16xf32>,
                  %table: tensor<10x16xf32> {echo.param},
                  %w: tensor<16x16xf32> {echo.param}) -> tensor<f32> {
  %e = "echo.embedding"(%ids, %table) : (tensor<4xi32>, tensor<10x16xf32>) -> tensor<4x16xf32>
  %y = "echo.relu"(%e) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %tr = "echo.transpose"(%y) {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %r = "echo.reshape"(%tr) : (tensor<16x4xf32>) -> tensor<4x16xf32>
  %h = "echo.matmul"(%r, %w) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %half = arith.constant dense<0.5> : tensor<4x16xf32>
  %s = "echo.mul"(%h, %half) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %a = "echo.add"(%r, %s) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = "echo.concat"(%a, %e) {axis = 0 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %l = "echo.mse_loss"(%c, %t) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// FollowInput: a norm runs in the type of its data, its affine parameters
// cast to it: in bf16 after a convolution, in f32 on the f32 input (as
// PyTorch's batch_norm and layer_norm on f32 data under autocast).
// CHECK-LABEL: func.func @follow_input
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4x4xf32>
// CHECK: %[[C:.*]] = echo.conv2d {{.*}} -> tensor<2x3x4x4xbf16>
// CHECK-DAG: %[[GL:.*]] = echo.cast %[[G:[^ ]*]] : tensor<3xf32> to tensor<3xbf16>
// CHECK-DAG: %[[BL:.*]] = echo.cast %[[B:[^ ]*]] : tensor<3xf32> to tensor<3xbf16>
// CHECK: echo.batch_norm %[[C]], %[[GL]], %[[BL]] {{.*}} -> tensor<2x3x4x4xbf16>
// CHECK: echo.batch_norm %[[X]], %[[G]], %[[B]] {{.*}} -> tensor<2x3x4x4xf32>
func.func @follow_input(%x: tensor<2x3x4x4xf32>, %t: tensor<2x3x4x4xf32>,
                        %w: tensor<3x3x1x1xf32> {echo.param},
                        %g: tensor<3xf32> {echo.param},
                        %b: tensor<3xf32> {echo.param}) -> tensor<f32> {
  %c = "echo.conv2d"(%x, %w) {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x4x4xf32>, tensor<3x3x1x1xf32>) -> tensor<2x3x4x4xf32>
  %n = "echo.batch_norm"(%c, %g, %b) {epsilon = 1.0e-5 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %m = "echo.batch_norm"(%x, %g, %b) {epsilon = 1.0e-5 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %s = "echo.add"(%n, %m) : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %l = "echo.mse_loss"(%s, %t) : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Keep: a cast the model has is left as written (it converts what its
// operand now is); the ops after it follow its f16 result.
// CHECK-LABEL: func.func @keep
// CHECK: %[[C:.*]] = echo.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[N:.*]] = echo.neg %[[C]] : tensor<4xf16>
// CHECK: %[[M:.*]] = echo.reduce_max %[[N]] dims = [0] : (tensor<4xf16>) -> tensor<f16>
// CHECK: %[[F:.*]] = echo.cast %[[M]] : tensor<f16> to tensor<f32>
// CHECK: return %[[F]] : tensor<f32>
func.func @keep(%x: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %c = echo.cast %x : tensor<4xf32> to tensor<4xf16>
  %n = "echo.neg"(%c) : (tensor<4xf16>) -> tensor<4xf16>
  %m = "echo.reduce_max"(%n) {dimensions = array<i64: 0>} : (tensor<4xf16>) -> tensor<f16>
  %f = echo.cast %m : tensor<f16> to tensor<f32>
  return %f : tensor<f32>
}

// -----

// A returned value in another type than the function's result is cast back:
// the loss stays tensor<f32>.
// CHECK-LABEL: func.func @returned
// CHECK: %[[M:.*]] = echo.reduce_max %{{.*}} dims = [1] : (tensor<4x8xbf16>) -> tensor<4xbf16>
// CHECK: %[[F:.*]] = echo.cast %[[M]] : tensor<4xbf16> to tensor<4xf32>
// CHECK: return %{{.*}}, %[[F]] : tensor<f32>, tensor<4xf32>
func.func @returned(%a: tensor<4x16xf32>, %t: tensor<4x8xf32>,
                    %w: tensor<16x8xf32> {echo.param}) -> (tensor<f32>, tensor<4xf32>) {
  %m = "echo.matmul"(%a, %w) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %x = "echo.reduce_max"(%m) {dimensions = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %l = "echo.mse_loss"(%m, %t) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %l, %x : tensor<f32>, tensor<4xf32>
}

// -----

// A training step is not a model: left alone.
// CHECK-LABEL: func.func @step
// CHECK-NOT: echo.cast
// CHECK: echo.neg %{{.*}} : tensor<4xf32>
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> attributes {echo.train_step} {
  %n = "echo.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

// The cross-entropy keeps its operands as they arrive (Keep) and its loss
// f32: bf16 logits from a GEMM are read as they are (the lowering widens
// each as it reads it, so no f32 copy of the logits is made); f32 logits
// stay f32.
// CHECK-LABEL: func.func @cross_entropy
// CHECK: %[[H:.*]] = echo.matmul {{.*}} -> tensor<4x8xbf16>
// CHECK-NOT: echo.cast %[[H]]
// CHECK: echo.cross_entropy %[[H]], %{{.*}} : (tensor<4x8xbf16>, tensor<4xi32>) -> tensor<f32>
// CHECK: echo.cross_entropy %[[A:[^,]*]], %{{.*}} : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32>
func.func @cross_entropy(%a: tensor<4x16xf32>, %labels: tensor<4xi32>,
                         %w: tensor<16x8xf32> {echo.param},
                         %z: tensor<4x8xf32>) -> tensor<f32> {
  %m = "echo.matmul"(%a, %w) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %l = "echo.cross_entropy"(%m, %labels) : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32>
  %k = "echo.cross_entropy"(%z, %labels) : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32>
  %s = "echo.add"(%l, %k) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}
