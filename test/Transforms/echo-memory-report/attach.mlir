// RUN: echo-opt %s --echo-memory-report=attach --split-input-file | FileCheck %s --check-prefix=ATTACH
// The recorded statistics survive lowering and bufferization; the report
// written after planning takes them and the plan.
// RUN: echo-opt %s --echo-memory-report=attach --convert-echo-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --buffer-results-to-out-params="modify-public-functions hoist-static-allocs" --echo-plan-buffers --echo-memory-report -o /dev/null --split-input-file | FileCheck %s --check-prefix=PLANNED
// RUN: not echo-opt %s --echo-memory-report --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// ATTACH: func.func @f_train
// The seconds are the default time model's (20 GB/s: the mul moves 48
// bytes, the sum 20).
// ATTACH-SAME: echo.memory_stats = {backward_flops = 24 : i64, backward_seconds = 1.600000e-09 : f64, category_timeline = {activations = array<i64: 16, 16, 16, 0>, data = array<i64: 16, 16, 16, 16>, gradients = array<i64: 0, 0, 16, 16>, host_offload = array<i64: 0, 0, 0, 0>, optimizer_state = array<i64: 0, 0, 0, 0>, parameters = array<i64: 16, 16, 16, 16>, recompute = array<i64: 0, 0, 0, 0>, temporaries = array<i64: 0, 4, 4, 4>}, feature_map_bytes = 16 : i64, forward_flops = 8 : i64, forward_seconds = 3.400000e-09 : f64, function = "f_train", logits_bytes_saved = 0 : i64, loss_chunks = 0 : i64, optimizer_state_bytes = 0 : i64, peak_live_bytes = 68 : i64, recompute_flops = 0 : i64, recompute_seconds = 0.000000e+00 : f64, recomputed_ops = 0 : i64, strategy = "none", timeline = array<i64: 48, 52, 68, 52>}

// PLANNED: "function": "f_train",
// PLANNED: "peak_live_bytes": 68,
// PLANNED: "plan": {
// PLANNED-NEXT: "alignment": 64,
// PLANNED-NEXT: "arena_bytes": 64,
// PLANNED-NEXT: "argument_bytes": 52,
// PLANNED-NEXT: "buffers": 1,
// PLANNED: "unplanned_bytes": 0
// PLANNED: "planned_bytes": 64,
// What the step needs allocated: the arena, its arguments x and w (16 + 16
// bytes) and its results as out-parameters (4 + 16 bytes).
// PLANNED: "step_bytes": 116,
// PLANNED: "timeline": [
// PLANNED-NEXT: 48,
// PLANNED-NEXT: 52,
// PLANNED-NEXT: 68,
// PLANNED-NEXT: 52
// PLANNED-NEXT: ]

func.func @f_train(%x: tensor<4xf32>, %w: tensor<4xf32> {echo.param})
    -> (tensor<f32>, tensor<4xf32>) attributes {echo.train_step} {
  %0 = echo.mul %x, %w : tensor<4xf32>
  %l = echo.reduce_sum %0 dims = [0] : (tensor<4xf32>) -> tensor<f32>
  %g = echo.tanh %0 : tensor<4xf32>
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

// BAD: error: 'echo.memory_stats' lacks a key of the memory report or has the wrong kind
func.func @g_train() attributes {echo.train_step, echo.memory_stats = {function = "g_train"}} {
  return
}
