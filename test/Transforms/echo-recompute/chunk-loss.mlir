// The chunked output layer and loss (chunk-loss=), one case per form of
// output layer; the option cases are below the RUN lines.
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=none chunk-loss=2" | FileCheck %s
// Under another strategy, which plans on the chunked step.
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=mirror chunk-loss=2" | FileCheck %s --check-prefix=MIRROR
// Uneven chunks: ceil(8 / 3) = 3 rows, the last chunk 2.
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=none chunk-loss=3" | FileCheck %s --check-prefix=UNEVEN
// More chunks than rows: one row each.
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=none chunk-loss=100" | FileCheck %s --check-prefix=ROWS
// off, and auto under strategies other than echo: nothing chunked.
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=none chunk-loss=off" | FileCheck %s --check-prefix=OFF
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=mirror" | FileCheck %s --check-prefix=OFF
// auto under echo (the default): chunked where that lowers the estimated
// peak, whatever heavy-budget (nothing is re-run).
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute | FileCheck %s --check-prefix=AUTO
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="heavy-budget=0" | FileCheck %s --check-prefix=AUTO
// A chunk per decoder step, each placed where its step's backward reads it.
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=none chunk-loss=4" | FileCheck %s --check-prefix=PLACED
// The memory report: chunks and the logits bytes saved.
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=none chunk-loss=2" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=none" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=REPORT-OFF

// echo.linear: where the logits gradient was formed, each chunk's logits
// are computed once and give the chunk's terms of the loss and its
// gradient; dx is written by rows, dW and db summed over the chunks, the
// loss is the terms' sum over the rows. Nothing is recomputed.
// CHECK-LABEL: func.func @linear_train
// CHECK-SAME: echo.chunked_loss = {chunk_rows = 4 : i64, chunks = 2 : i64, logits_bytes_saved = 96 : i64, rows = 8 : i64}
// CHECK-NOT: {{echo.recompute[^_]}}
// CHECK: %[[H:.*]] = echo.tanh
// CHECK-NOT: tensor<8x6xf32>
// The chunks' first op marks where the backward pass begins.
// CHECK: %[[X0:.*]] = echo.slice %[[H]] {echo.backward_begin, offsets = array<i64: 0, 0>, sizes = array<i64: 4, 4>}
// CHECK: %[[Z0:.*]] = echo.linear %[[X0]], %{{.*}}, %{{.*}} : (tensor<4x4xf32>, tensor<6x4xf32>, tensor<6xf32>) -> tensor<4x6xf32>
// CHECK: %[[L0:.*]] = echo.slice %{{.*}} {offsets = array<i64: 0>, sizes = array<i64: 4>} : (tensor<8xi32>) -> tensor<4xi32>
// CHECK: %[[T0:.*]] = echo.cross_entropy_terms %[[Z0]], %[[L0]] : (tensor<4x6xf32>, tensor<4xi32>) -> tensor<4xf32>
// CHECK: %[[DZ0:.*]] = echo.cross_entropy_grad %[[Z0]], %[[L0]], %{{.*}} {total_rows = 8 : i64} : (tensor<4x6xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x6xf32>
// CHECK-DAG: %[[DX0:.*]] = echo.matmul %[[DZ0]], %{{.*}} : (tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
// CHECK-DAG: %[[DW0:.*]] = echo.matmul %[[DZ0]], %{{.*}} {transpose_a = true} : (tensor<4x6xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
// CHECK-DAG: %[[DB0:.*]] = echo.reduce_sum %[[DZ0]] dims = [0] : (tensor<4x6xf32>) -> tensor<6xf32>
// CHECK: echo.slice %[[H]] {offsets = array<i64: 4, 0>, sizes = array<i64: 4, 4>}
// CHECK: %[[Z1:.*]] = echo.linear
// CHECK: %[[T1:.*]] = echo.cross_entropy_terms %[[Z1]]
// CHECK: %[[DZ1:.*]] = echo.cross_entropy_grad %[[Z1]], %{{.*}}, %{{.*}} {total_rows = 8 : i64}
// CHECK-DAG: %[[DX1:.*]] = echo.matmul %[[DZ1]], %{{.*}} : (tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
// CHECK-DAG: %[[DW1:.*]] = echo.matmul %[[DZ1]]
// CHECK-DAG: %[[DW:.*]] = echo.add %[[DW0]], %[[DW1]] : tensor<6x4xf32>
// CHECK-DAG: %[[DB1:.*]] = echo.reduce_sum %[[DZ1]]
// CHECK-DAG: %[[DB:.*]] = echo.add %[[DB0]], %[[DB1]] : tensor<6xf32>
// CHECK: %[[DX:.*]] = echo.concat %[[DX0]], %[[DX1]] {axis = 0 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK: %[[T:.*]] = echo.concat %[[T0]], %[[T1]] {axis = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
// CHECK: %[[S:.*]] = echo.reduce_sum %[[T]] dims = [0] : (tensor<8xf32>) -> tensor<f32>
// CHECK: %[[R:.*]] = arith.constant dense<8.000000e+00> : tensor<f32>
// CHECK: %[[LOSS:.*]] = echo.div %[[S]], %[[R]] : tensor<f32>
// CHECK: echo.tanh_grad %[[H]], %[[DX]]
// CHECK: return %[[LOSS]], %{{.*}}, %[[DW]], %[[DB]]
// MIRROR-LABEL: func.func @linear_train
// MIRROR-SAME: echo.chunked_loss = {chunk_rows = 4 : i64, chunks = 2 : i64
// MIRROR-SAME: echo.recompute_strategy = "mirror"
// MIRROR-COUNT-2: echo.cross_entropy_terms
// UNEVEN-LABEL: func.func @linear_train
// UNEVEN-SAME: echo.chunked_loss = {chunk_rows = 3 : i64, chunks = 3 : i64, logits_bytes_saved = 120 : i64, rows = 8 : i64}
// UNEVEN: echo.cross_entropy_terms %{{.*}}, %{{.*}} : (tensor<3x6xf32>, tensor<3xi32>) -> tensor<3xf32>
// UNEVEN: echo.cross_entropy_terms %{{.*}}, %{{.*}} : (tensor<3x6xf32>, tensor<3xi32>) -> tensor<3xf32>
// UNEVEN: echo.cross_entropy_terms %{{.*}}, %{{.*}} : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<2xf32>
// UNEVEN: echo.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<8x4xf32>
// ROWS-LABEL: func.func @linear_train
// ROWS-SAME: echo.chunked_loss = {chunk_rows = 1 : i64, chunks = 8 : i64, logits_bytes_saved = 168 : i64, rows = 8 : i64}
// ROWS-COUNT-8: echo.cross_entropy_terms %{{.*}}, %{{.*}} : (tensor<1x6xf32>, tensor<1xi32>) -> tensor<1xf32>
// OFF-LABEL: func.func @linear_train
// OFF-NOT: echo.chunked_loss
// OFF-NOT: echo.cross_entropy_terms
// OFF: echo.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x6xf32>
// auto: on a step this small the logits do not set the estimated peak,
// and chunking them lowers it by no byte.
// AUTO-LABEL: func.func @linear_train
// AUTO-NOT: echo.chunked_loss
// AUTO-SAME: echo.recompute_strategy = "echo"
// The chunked output layer and loss are formed in the backward pass (its
// first op marks where it begins): the forward pass is the matmul and the
// tanh (448 FLOPs), where the whole step's forward pass has the output
// layer and the loss too (1120).
// REPORT: "backward_flops": 2167
// REPORT: "forward_flops": 448
// REPORT: "function": "linear_train"
// REPORT-DAG: "logits_bytes_saved": 96
// REPORT-DAG: "loss_chunks": 2
// REPORT-OFF: "forward_flops": 1120
// REPORT-OFF: "function": "linear_train"
// REPORT-OFF-DAG: "logits_bytes_saved": 0
// REPORT-OFF-DAG: "loss_chunks": 0
func.func @linear(%x: tensor<8x4xf32>, %labels: tensor<8xi32>,
                  %w0: tensor<4x4xf32> {echo.param},
                  %w: tensor<6x4xf32> {echo.param},
                  %b: tensor<6xf32> {echo.param}) -> tensor<f32> {
  %a = echo.matmul %x, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = echo.tanh %a : tensor<8x4xf32>
  %z = echo.linear %h, %w, %b : (tensor<8x4xf32>, tensor<6x4xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  %l = echo.cross_entropy %z, %labels : (tensor<8x6xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// echo.matmul plus a broadcast bias: the broadcast is cloned per chunk;
// dW (matmul(h, dz) with transpose_a) sums over chunks of h and dz.
// CHECK-LABEL: func.func @matmul_bias_train
// CHECK-SAME: echo.chunked_loss = {chunk_rows = 4 : i64, chunks = 2 : i64
// CHECK: %[[H:.*]] = echo.tanh
// CHECK: %[[X0:.*]] = echo.slice %[[H]]
// CHECK: %[[M0:.*]] = echo.matmul %[[X0]], %{{.*}} : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK: %[[B0:.*]] = echo.broadcast %{{.*}} dims = [0] : (tensor<6xf32>) -> tensor<4x6xf32>
// CHECK: %[[Z0:.*]] = echo.add %[[B0]], %[[M0]] : tensor<4x6xf32>
// CHECK: echo.cross_entropy_terms %[[Z0]]
// CHECK: %[[DZ0:.*]] = echo.cross_entropy_grad %[[Z0]], {{.*}} {total_rows = 8 : i64}
// CHECK-DAG: echo.matmul %[[DZ0]], %{{.*}} {transpose_b = true} : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x4xf32>
// CHECK-DAG: %[[HS:.*]] = echo.slice %[[H]] {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 4>}
// CHECK-DAG: echo.matmul %[[HS]], %[[DZ0]] {transpose_a = true} : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-DAG: echo.reduce_sum %[[DZ0]] dims = [0]
// CHECK: echo.concat {{.*}} -> tensor<8x4xf32>
// OFF-LABEL: func.func @matmul_bias_train
// OFF-NOT: echo.cross_entropy_terms
func.func @matmul_bias(%x: tensor<8x4xf32>, %labels: tensor<8xi32>,
                       %w0: tensor<4x4xf32> {echo.param},
                       %w: tensor<4x6xf32> {echo.param},
                       %b: tensor<6xf32> {echo.param}) -> tensor<f32> {
  %a = echo.matmul %x, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %h = echo.tanh %a : tensor<8x4xf32>
  %m = echo.matmul %h, %w : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %bb = echo.broadcast %b dims = [0] : (tensor<6xf32>) -> tensor<8x6xf32>
  %z = echo.add %bb, %m : tensor<8x6xf32>
  %l = echo.cross_entropy %z, %labels : (tensor<8x6xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// What the PyTorch importer emits for nn.Linear(bias=False) as a module's
// output: echo.matmul with transpose_b, and a pair of reshapes [B·T, C] →
// [B, T, C] → [B·T, C] before the loss (looked through, forward and
// backward). dW = dzᵀ·h sums over chunks of both.
// CHECK-LABEL: func.func @imported_train
// CHECK-SAME: echo.chunked_loss = {chunk_rows = 4 : i64, chunks = 2 : i64
// CHECK-NOT: echo.reshape {{.*}} -> tensor<2x4x6xf32>
// CHECK: echo.matmul %{{.*}}, %{{.*}} {transpose_b = true} : (tensor<4x4xf32>, tensor<6x4xf32>) -> tensor<4x6xf32>
// CHECK: echo.cross_entropy_terms
// CHECK: %[[DZ0:.*]] = echo.cross_entropy_grad {{.*}} {total_rows = 8 : i64}
// CHECK-DAG: echo.matmul %[[DZ0]], %{{.*}} {transpose_a = true} : (tensor<4x6xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
// CHECK-NOT: echo.reshape {{.*}} -> tensor<2x4x6xf32>
// CHECK: return
// OFF-LABEL: func.func @imported_train
// OFF: echo.reshape {{.*}} -> tensor<2x4x6xf32>
func.func @imported(%x: tensor<2x4x4xf32>, %labels: tensor<8xi32>,
                    %w: tensor<6x4xf32> {echo.param}) -> tensor<f32> {
  %x2 = echo.reshape %x : (tensor<2x4x4xf32>) -> tensor<8x4xf32>
  %z = echo.matmul %x2, %w {transpose_b = true} : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
  %z3 = echo.reshape %z : (tensor<8x6xf32>) -> tensor<2x4x6xf32>
  %z2 = echo.reshape %z3 : (tensor<2x4x6xf32>) -> tensor<8x6xf32>
  %l = echo.cross_entropy %z2, %labels : (tensor<8x6xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Logits [64, 500] that set the estimated peak (267,288 B): chunks of 32
// rows or fewer would lower it, but auto gives a chunk at least 128 rows
// (kMinLossChunkRows, the chunk's GEMMs' M): 64 rows are not chunked.
// AUTO-LABEL: func.func @big_logits_train
// AUTO-NOT: echo.chunked_loss
// AUTO-SAME: echo.recompute_strategy = "echo"
// AUTO-NOT: echo.cross_entropy_terms
// OFF-LABEL: func.func @big_logits_train
// OFF-NOT: echo.chunked_loss
// OFF-NOT: echo.cross_entropy_terms
func.func @big_logits(%x: tensor<64x4xf32>, %labels: tensor<64xi32>,
                      %w: tensor<500x4xf32> {echo.param},
                      %b: tensor<500xf32> {echo.param}) -> tensor<f32> {
  %h = echo.tanh %x : tensor<64x4xf32>
  %z = echo.linear %h, %w, %b : (tensor<64x4xf32>, tensor<500x4xf32>, tensor<500xf32>) -> tensor<64x500xf32>
  %l = echo.cross_entropy %z, %labels : (tensor<64x500xf32>, tensor<64xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A decoder's output layer over its steps' outputs (a concatenation of
// equal row blocks), its backward reading each step's rows in turn, last
// step first: with a chunk per step (PLACED) each chunk's rows are the
// step's output (the concatenation goes) and its input gradient the step's
// own (no concatenation of them); the chunks are built last step first and
// each runs right before its step's backward reads it (the last step's
// chunk where the logits gradient was formed, marking the backward's
// start), the chunk of the step nothing reads (h0: x is data) after the
// others, and the loss where it is returned. With 2 chunks (not a step
// each) the chunks stay together and the input gradient is one
// concatenation (CHECK). auto does not chunk 8 rows (AUTO; @decoder_wide
// below has steps of 128 rows).
// CHECK-LABEL: func.func @decoder_train
// CHECK: echo.concat {{.*}} {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<8x4xf32>
// CHECK-COUNT-2: echo.cross_entropy_terms
// CHECK: echo.concat {{.*}} {axis = 0 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// PLACED-LABEL: func.func @decoder_train
// PLACED: %[[H0:.*]] = echo.tanh %arg0
// PLACED: %[[H1:.*]] = echo.tanh
// PLACED: %[[H2:.*]] = echo.tanh
// PLACED: %[[H3:.*]] = echo.tanh
// PLACED-NOT: echo.concat
// PLACED: echo.linear %[[H3]], {{.*}} {echo.backward_begin}
// PLACED: echo.slice %arg1 {offsets = array<i64: 6>
// PLACED: %[[DX3:.*]] = echo.matmul %{{.*}}, %arg3 :
// PLACED-NEXT: echo.tanh_grad %[[H3]], %[[DX3]]
// PLACED: echo.linear %[[H2]],
// PLACED: %[[DX2:.*]] = echo.matmul %{{.*}}, %arg3 :
// PLACED-NEXT: echo.add %[[DX2]],
// PLACED-NEXT: echo.tanh_grad %[[H2]]
// PLACED: echo.linear %[[H1]],
// PLACED: echo.tanh_grad %[[H1]]
// PLACED: echo.linear %[[H0]],
// PLACED: %[[TERMS:.*]] = echo.concat {{.*}} {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<8xf32>
// PLACED-NEXT: echo.reduce_sum %[[TERMS]]
// PLACED-NEXT: arith.constant dense<8.000000e+00>
// PLACED-NEXT: %[[LOSS:.*]] = echo.div
// PLACED-NEXT: return %[[LOSS]]
// AUTO-LABEL: func.func @decoder_train
// AUTO-NOT: echo.chunked_loss
// AUTO-SAME: echo.recompute_strategy = "echo"
func.func @decoder(%x: tensor<2x4xf32>, %labels: tensor<8xi32>,
                   %u: tensor<4x4xf32> {echo.param},
                   %w: tensor<6x4xf32> {echo.param},
                   %b: tensor<6xf32> {echo.param}) -> tensor<f32> {
  %h0 = echo.tanh %x : tensor<2x4xf32>
  %m1 = echo.matmul %h0, %u : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %h1 = echo.tanh %m1 : tensor<2x4xf32>
  %m2 = echo.matmul %h1, %u : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %h2 = echo.tanh %m2 : tensor<2x4xf32>
  %m3 = echo.matmul %h2, %u : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %h3 = echo.tanh %m3 : tensor<2x4xf32>
  %all = echo.concat %h0, %h1, %h2, %h3 {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<8x4xf32>
  %z = echo.linear %all, %w, %b : (tensor<8x4xf32>, tensor<6x4xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  %l = echo.cross_entropy %z, %labels : (tensor<8x6xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Logits [2048, 500] that set the estimated peak (8,242,968 B): auto takes
// the fewest chunks within 1% of the best saving of 2, 4, ... chunks of at
// least 128 rows (kMinLossChunkRows): 16 chunks of 128 rows (614,436 B).
// 32 and 64 chunks would save more (358,180 and 230,052 B at chunk-loss=32
// and 64) on GEMMs of 64 and 32 rows.
// AUTO-LABEL: func.func @big_rows_train
// AUTO-SAME: echo.chunked_loss = {chunk_rows = 128 : i64, chunks = 16 : i64, logits_bytes_saved = 3840000 : i64, rows = 2048 : i64}
// AUTO-COUNT-16: echo.cross_entropy_terms
// AUTO-NOT: echo.cross_entropy_terms
func.func @big_rows(%x: tensor<2048x4xf32>, %labels: tensor<2048xi32>,
                    %w: tensor<500x4xf32> {echo.param},
                    %b: tensor<500xf32> {echo.param}) -> tensor<f32> {
  %h = echo.tanh %x : tensor<2048x4xf32>
  %z = echo.linear %h, %w, %b : (tensor<2048x4xf32>, tensor<500x4xf32>, tensor<500xf32>) -> tensor<2048x500xf32>
  %l = echo.cross_entropy %z, %labels : (tensor<2048x500xf32>, tensor<2048xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The decoder above with steps of 128 rows: auto takes a chunk per step,
// each placed where its step's backward reads it, the last step's first
// (each chunk's rows are its step's output: the steps' outputs are not
// concatenated).
// AUTO-LABEL: func.func @decoder_wide_train
// AUTO-SAME: echo.chunked_loss = {chunk_rows = 128 : i64, chunks = 4 : i64
// AUTO-NOT: echo.concat {{.*}} -> tensor<512x4xf32>
// AUTO-COUNT-3: = echo.tanh
// AUTO: %[[H3:.*]] = echo.tanh
// AUTO: echo.linear %[[H3]], %arg3, %arg4 {echo.backward_begin} : (tensor<128x4xf32>
func.func @decoder_wide(%x: tensor<128x4xf32>, %labels: tensor<512xi32>,
                        %u: tensor<4x4xf32> {echo.param},
                        %w: tensor<64x4xf32> {echo.param},
                        %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %h0 = echo.tanh %x : tensor<128x4xf32>
  %m1 = echo.matmul %h0, %u : (tensor<128x4xf32>, tensor<4x4xf32>) -> tensor<128x4xf32>
  %h1 = echo.tanh %m1 : tensor<128x4xf32>
  %m2 = echo.matmul %h1, %u : (tensor<128x4xf32>, tensor<4x4xf32>) -> tensor<128x4xf32>
  %h2 = echo.tanh %m2 : tensor<128x4xf32>
  %m3 = echo.matmul %h2, %u : (tensor<128x4xf32>, tensor<4x4xf32>) -> tensor<128x4xf32>
  %h3 = echo.tanh %m3 : tensor<128x4xf32>
  %all = echo.concat %h0, %h1, %h2, %h3 {axis = 0 : i64} : (tensor<128x4xf32>, tensor<128x4xf32>, tensor<128x4xf32>, tensor<128x4xf32>) -> tensor<512x4xf32>
  %z = echo.linear %all, %w, %b : (tensor<512x4xf32>, tensor<64x4xf32>, tensor<64xf32>) -> tensor<512x64xf32>
  %l = echo.cross_entropy %z, %labels : (tensor<512x64xf32>, tensor<512xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
