// echo-autocast: one case per policy of AutocastOpInterface.
// RUN: echo-opt %s -split-input-file -echo-autocast="dtype=bf16" | FileCheck %s

// Lower: a GEMM reads its data and its parameters in bf16, each cast once
// before its first use (the weight read twice is cast once); the function's
// arguments keep f32 (master weights).
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

// Full: sums, softmax and losses read f32; their results are f32, and a
// low-precision op after them casts again.
// CHECK-LABEL: func.func @full
// CHECK: %[[M:.*]] = echo.matmul {{.*}} -> tensor<4x8xbf16>
// CHECK: %[[MF:.*]] = echo.cast %[[M]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: %[[S:.*]] = echo.softmax %[[MF]] {{.*}}: tensor<4x8xf32>
// CHECK: %[[R:.*]] = echo.reduce_sum %[[MF]] dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK: %[[SL:.*]] = echo.cast %[[S]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK: echo.mul %[[SL]], %{{.*}} : tensor<4x8xbf16>
// CHECK: echo.mse_loss {{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
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

// Follow: shape ops move a value in its own type; an embedding looks up in
// its (f32) table; a concat of mixed types runs in the wider one.
// CHECK-LABEL: func.func @follow
// CHECK: %[[E:.*]] = echo.embedding {{.*}} -> tensor<4x16xf32>
// CHECK: %[[EL:.*]] = echo.cast %[[E]] : tensor<4x16xf32> to tensor<4x16xbf16>
// CHECK: %[[Y:.*]] = echo.relu %[[EL]] : tensor<4x16xbf16>
// CHECK: %[[T:.*]] = echo.transpose %[[Y]] {{.*}} -> tensor<16x4xbf16>
// CHECK: %[[R:.*]] = echo.reshape %[[T]] : (tensor<16x4xbf16>) -> tensor<4x16xbf16>
// CHECK: %[[RF:.*]] = echo.cast %[[R]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK: echo.concat %[[RF]], %[[E]] {{.*}} -> tensor<8x16xf32>
func.func @follow(%ids: tensor<4xi32>, %t: tensor<8x16xf32>,
                  %table: tensor<10x16xf32> {echo.param}) -> tensor<f32> {
  %e = "echo.embedding"(%ids, %table) : (tensor<4xi32>, tensor<10x16xf32>) -> tensor<4x16xf32>
  %y = "echo.relu"(%e) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %tr = "echo.transpose"(%y) {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %r = "echo.reshape"(%tr) : (tensor<16x4xf32>) -> tensor<4x16xf32>
  %c = "echo.concat"(%r, %e) {axis = 0 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %l = "echo.mse_loss"(%c, %t) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Keep: a cast the model has is left as written (it converts what its
// operand now is).
// CHECK-LABEL: func.func @keep
// CHECK: %[[C:.*]] = echo.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[CL:.*]] = echo.cast %[[C]] : tensor<4xf16> to tensor<4xbf16>
// CHECK: %[[N:.*]] = echo.neg %[[CL]] : tensor<4xbf16>
// CHECK: %[[M:.*]] = echo.reduce_max %[[N]] dims = [0] : (tensor<4xbf16>) -> tensor<bf16>
// CHECK: %[[F:.*]] = echo.cast %[[M]] : tensor<bf16> to tensor<f32>
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
// CHECK: %[[M:.*]] = echo.reduce_max %{{.*}} dims = [0] : (tensor<4xbf16>) -> tensor<bf16>
// CHECK: %[[F:.*]] = echo.cast %[[M]] : tensor<bf16> to tensor<f32>
// CHECK: return %[[F]] : tensor<f32>
func.func @returned(%x: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %n = "echo.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %m = "echo.reduce_max"(%n) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %m : tensor<f32>
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

// LowerInputs: the cross-entropy reads its logits in bf16 and keeps its f32
// loss (it widens each logit as it reads it), so no f32 copy of the logits
// is made.
// CHECK-LABEL: func.func @lower_inputs
// CHECK: %[[H:.*]] = echo.matmul {{.*}} -> tensor<4x8xbf16>
// CHECK-NOT: echo.cast %[[H]]
// CHECK: echo.cross_entropy %[[H]], %{{.*}} : (tensor<4x8xbf16>, tensor<4xi32>) -> tensor<f32>
func.func @lower_inputs(%a: tensor<4x16xf32>, %labels: tensor<4xi32>,
                        %w: tensor<16x8xf32> {echo.param}) -> tensor<f32> {
  %m = "echo.matmul"(%a, %w) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %l = "echo.cross_entropy"(%m, %labels) : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
