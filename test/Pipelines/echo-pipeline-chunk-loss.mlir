// echo-pipeline's chunk-loss= reaches echo-recompute (a number of chunks
// applies under strategy=none too), and the planned step holds the smaller
// buffers: the report's step bytes with and without it.
// RUN: echo-opt %s --echo-pipeline="strategy=none chunk-loss=4 report=-" -o /dev/null | FileCheck %s --check-prefix=CHUNKED
// RUN: echo-opt %s --echo-pipeline="strategy=none report=-" -o /dev/null | FileCheck %s --check-prefix=WHOLE
// RUN: echo-opt %s --echo-pipeline="strategy=echo chunk-loss=off report=-" -o /dev/null | FileCheck %s --check-prefix=WHOLE
// Under echo, auto chunks where the estimated peak drops, in chunks of at
// least 128 rows: these 64 rows stay whole (16 chunks of 4 rows would take
// 14,144 B; chunk-loss=16 asks for them).
// RUN: echo-opt %s --echo-pipeline="strategy=echo report=-" -o /dev/null | FileCheck %s --check-prefix=WHOLE
// RUN: echo-opt %s --echo-pipeline="strategy=echo chunk-loss=16 report=-" -o /dev/null | FileCheck %s --check-prefix=SIXTEEN
// RUN: not echo-opt %s --echo-pipeline="chunk-loss=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO

// The whole logits (64 × 500 f32) live at the loss: an arena of 132,032 B;
// in 4 chunks, 37,376 B; in 16, 14,144 B (each chunk's weight gradient
// accumulated into one buffer by the GEMM).
// CHUNKED: "logits_bytes_saved": 96000,
// CHUNKED: "loss_chunks": 4,
// CHUNKED: "planned_bytes": 37376,
// CHUNKED: "step_bytes": 58660,
// WHOLE: "logits_bytes_saved": 0,
// WHOLE: "loss_chunks": 0,
// WHOLE: "planned_bytes": 132032,
// WHOLE: "step_bytes": 153316,
// SIXTEEN: "logits_bytes_saved": 120000,
// SIXTEEN: "loss_chunks": 16,
// SIXTEEN: "planned_bytes": 14144,
// ZERO: error: echo-recompute: chunk-loss must be auto, off or a number of chunks >= 2, got '0'
func.func @f(%x: tensor<64x4xf32>, %labels: tensor<64xi32>,
             %w: tensor<500x4xf32> {echo.param},
             %b: tensor<500xf32> {echo.param}) -> tensor<f32> {
  %h = echo.tanh %x : tensor<64x4xf32>
  %z = echo.linear %h, %w, %b : (tensor<64x4xf32>, tensor<500x4xf32>, tensor<500xf32>) -> tensor<64x500xf32>
  %l = echo.cross_entropy %z, %labels : (tensor<64x500xf32>, tensor<64xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
