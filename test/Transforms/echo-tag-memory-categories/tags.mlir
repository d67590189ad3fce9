// RUN: echo-opt %s --echo-autodiff --echo-tag-memory-categories -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=mirror --echo-tag-memory-categories -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=MIRROR
// RUN: echo-opt %s --echo-autodiff --echo-tag-memory-categories --echo-strip-markers -mlir-print-debuginfo | FileCheck %s --check-prefix=STRIP

// Each argument and each op of a training step gets its memory category in
// its location: the data and the parameter by their markers, the forward
// value the backward pass reads (tanh's, for tanh_grad) as an activation,
// the other forward values and the loss as temporaries, the backward pass's
// values as gradients; a model that is not a training step is left alone.

// CHECK-LABEL: func.func @f(
// CHECK-NOT: echo.memory_category
// CHECK-LABEL: func.func @f_train(
// CHECK-SAME: loc(fused<["echo.memory_category", "data", "argument"]>
// CHECK-SAME: {echo.param} loc(fused<["echo.memory_category", "parameters", "argument"]>
// CHECK: echo.mul {{.*}} loc(fused<["echo.memory_category", "temporaries", "echo.mul"]>
// CHECK: echo.tanh {{.*}} loc(fused<["echo.memory_category", "activations", "echo.tanh"]>
// CHECK: echo.reduce_sum {{.*}} loc(fused<["echo.memory_category", "temporaries", "echo.reduce_sum"]>
// CHECK: echo.tanh_grad {{.*}} loc(fused<["echo.memory_category", "gradients", "echo.tanh_grad"]>
// CHECK: return {{.*}} loc("{{.*}}tags.mlir":{{[0-9]+}}:{{[0-9]+}})

// Under mirror, tanh is re-run in a recompute region: what the region makes
// and yields is recompute, and the forward tanh is no longer read back.
// MIRROR-LABEL: func.func @f_train(
// MIRROR: echo.tanh {{.*}} loc(fused<["echo.memory_category", "temporaries", "echo.tanh"]>
// MIRROR: echo.tanh {{.*}} loc(fused<["echo.memory_category", "recompute", "echo.tanh"]>
// MIRROR: loc(fused<["echo.memory_category", "recompute", "echo.recompute"]>
// MIRROR: echo.tanh_grad {{.*}} loc(fused<["echo.memory_category", "gradients", "echo.tanh_grad"]>

// echo-strip-markers removes the tags.
// STRIP-NOT: echo.memory_category

func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.mul"(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "echo.tanh"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "echo.reduce_sum"(%1) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// A reshape is a view of its operand's buffer: the add whose reshaped value
// the backward pass reads (mul's gradient reads its operands) holds a
// stashed activation, though the add's own result is not read back.
// CHECK-LABEL: func.func @g_train(
// CHECK: echo.add {{.*}} loc(fused<["echo.memory_category", "activations", "echo.add"]>
// CHECK: echo.reshape {{.*}} loc(fused<["echo.memory_category", "activations", "echo.reshape"]>
func.func @g(%x: tensor<4xf32>, %w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.add"(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "echo.reshape"(%0) : (tensor<4xf32>) -> tensor<2x2xf32>
  %2 = "echo.mul"(%1, %1) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = "echo.reduce_sum"(%2) {dimensions = array<i64: 0, 1>} : (tensor<2x2xf32>) -> tensor<f32>
  return %3 : tensor<f32>
}
