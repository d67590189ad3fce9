// echo-pipeline's phases are registered on their own and compose to the
// whole pipeline; they take echo-pipeline's options.
// RUN: echo-opt %s --echo-training-pipeline="strategy=mirror" | FileCheck %s --check-prefix=TRAINING
// RUN: echo-opt %s --echo-training-pipeline --echo-bufferization-pipeline | FileCheck %s --check-prefix=BUFFERS
// RUN: echo-opt %s --echo-training-pipeline --echo-bufferization-pipeline --echo-llvm-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: echo-opt %s --echo-pipeline > %t.whole.mlir
// RUN: echo-opt %s --echo-training-pipeline --echo-bufferization-pipeline --echo-llvm-pipeline > %t.phases.mlir
// RUN: sort %t.whole.mlir > %t.whole.sorted
// RUN: sort %t.phases.mlir > %t.phases.sorted
// RUN: diff %t.whole.sorted %t.phases.sorted
// echo-recompute's heavy-budget, through the pipeline: the bundled
// Transformer re-runs an attention's scores (compute-heavy) by default and
// not with heavy-budget=0.
// RUN: echo-opt %echo_src/models/transformer.mlir --echo-training-pipeline --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=HEAVY
// RUN: echo-opt %echo_src/models/transformer.mlir --echo-training-pipeline="heavy-budget=0" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NOHEAVY

// TRAINING: func.func @f_train(
// TRAINING-SAME: echo.recompute_strategy = "mirror"
// TRAINING: echo.matmul
// TRAINING-NOT: linalg.

// BUFFERS: func.func @f_train(
// BUFFERS-SAME: memref<16x64xf32>
// BUFFERS-SAME: echo.buffer_plan = {
// BUFFERS: memref.view

// LLVM-NOT: memref.alloc
// LLVM: llvm.func @_mlir_ciface_f_train(

// HEAVY: "recompute_flops": 15104,
// NOHEAVY: "recompute_flops": 9472,

func.func @f(%x: tensor<16x64xf32>, %w: tensor<64x64xf32> {echo.param},
             %b: tensor<64xf32> {echo.param}, %t: tensor<16x64xf32>)
    -> tensor<f32> {
  %h = "echo.linear"(%x, %w, %b) : (tensor<16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %y = "echo.tanh"(%h) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %l = "echo.mse_loss"(%y, %t) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
