// RUN: echo-opt %s --split-input-file --echo-autodiff --echo-recompute=strategy=echo | FileCheck %s
// RUN: echo-opt %s --split-input-file --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --split-input-file --echo-autodiff --echo-recompute=strategy=echo --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=ECHO

// Fig. 14d: the FC layer's gradient reads only its input, which the
// recompute path serves (tanh is re-run from the data); the FC itself is
// not re-run. Nothing is stashed.
// CHECK-LABEL: func.func @fig14_train
// CHECK: %[[R:.*]] = echo.recompute (%{{.*}}) : (tensor<4x64xf32>) -> tensor<4x64xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x64xf32>):
// CHECK-NEXT:   %[[T:.*]] = echo.tanh %[[A]]
// CHECK-NEXT:   echo.yield %[[T]]
// CHECK-NEXT: }
// CHECK: echo.matmul %{{.*}}, %[[R]] {transpose_a = true}
// NONE: "feature_map_bytes": 1024,
// ECHO: "feature_map_bytes": 0,
// ECHO: "recomputed_ops": 1,
func.func @fig14(%x: tensor<4x64xf32>, %w: tensor<64x64xf32> {echo.param},
                 %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %t = echo.tanh %x : tensor<4x64xf32>
  %f = echo.linear %t, %w, %b : (tensor<4x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %l = echo.reduce_sum %f dims = [0, 1] : (tensor<4x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Dropout masks are stashed 1-bit packed: 64x64 i1 = 4096 bytes become 512
// (8x smaller). The dropout output read by the next FC's gradient stays
// (16384 bytes): 20480 -> 16896.
// CHECK-LABEL: func.func @dropout_train
// CHECK: %[[Y:.*]], %[[M:.*]] = echo.dropout
// CHECK-NEXT: %[[P:.*]] = echo.pack_mask %[[M]] : (tensor<64x64xi1>) -> tensor<512xi8>
// CHECK: %[[U:.*]] = echo.unpack_mask %[[P]] : (tensor<512xi8>) -> tensor<64x64xi1>
// CHECK-NEXT: echo.dropout_grad %[[U]]
// NONE: "feature_map_bytes": 20480,
// ECHO: "feature_map_bytes": 16896,
func.func @dropout(%x: tensor<64x64xf32>, %w: tensor<64x64xf32> {echo.param},
                   %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %f = echo.linear %x, %w, %b : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %y, %m = echo.dropout %f {ratio = 5.000000e-01 : f64, seed = 1 : i64} : (tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xi1>)
  %g = echo.linear %y, %w, %b : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %l = echo.reduce_sum %g dims = [0, 1] : (tensor<64x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Fig. 6: an elementwise chain between two FC layers. The tanh output is
// stashed (recomputing it would stash its input instead: a tie, so it
// leaves the path); sigmoid and exp are recomputed from it: 3N -> N.
// CHECK-LABEL: func.func @chain_train
// CHECK: echo.recompute (%{{.*}}) : (tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: echo.sigmoid
// CHECK-NEXT: echo.exp
// NONE: "feature_map_bytes": 3072,
// ECHO: "feature_map_bytes": 1024,
// ECHO: "recomputed_ops": 2,
func.func @chain(%x: tensor<4x64xf32>, %w: tensor<64x64xf32> {echo.param},
                 %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %f = echo.linear %x, %w, %b : (tensor<4x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %t = echo.tanh %f : tensor<4x64xf32>
  %s = echo.sigmoid %t : tensor<4x64xf32>
  %e = echo.exp %s : tensor<4x64xf32>
  %g = echo.linear %e, %w, %b : (tensor<4x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %l = echo.reduce_sum %g dims = [0, 1] : (tensor<4x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Alg. 1 line 18: a dropout stays in the recompute path; only its mask is
// stashed, 1-bit packed. Attention-style dropout on softmax probabilities
// (kept anyway for the softmax gradient): the dropped probabilities the
// matmul gradient reads are recomputed from them (the same seed gives the
// same mask), and dropout_grad reads the unpacked mask.
// Stash: p + y + mask = 16384 + 16384 + 4096 = 36864 -> p + 512 = 16896.
// CHECK-LABEL: func.func @attention_dropout_train
// CHECK: %[[Y:.*]], %[[M:.*]] = echo.dropout %[[P:[^ ]*]]
// CHECK-NEXT: %[[PK:.*]] = echo.pack_mask %[[M]]
// CHECK: %[[R:.*]] = echo.recompute (%[[P]]) : (tensor<64x64xf32>) -> tensor<64x64xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<64x64xf32>):
// CHECK-NEXT:   %[[RY:.*]], %{{.*}} = echo.dropout %[[A]] {ratio = 1.000000e-01 : f64, seed = 3 : i64}
// CHECK-NEXT:   echo.yield %[[RY]] : tensor<64x64xf32>
// CHECK: echo.matmul %[[R]], %{{.*}} {transpose_a = true}
// CHECK: %[[U:.*]] = echo.unpack_mask %[[PK]]
// CHECK-NEXT: echo.dropout_grad %[[U]]
// NONE: "feature_map_bytes": 36864,
// ECHO: "feature_map_bytes": 16896,
// ECHO: "recomputed_ops": 1,
func.func @attention_dropout(%x: tensor<64x64xf32>, %w: tensor<64x64xf32> {echo.param},
                             %b: tensor<64xf32> {echo.param}, %v: tensor<64x64xf32> {echo.param}) -> tensor<f32> {
  %s = echo.linear %x, %w, %b : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %p = echo.softmax %s {axis = 1 : i64} : tensor<64x64xf32>
  %y, %m = echo.dropout %p {ratio = 1.000000e-01 : f64, seed = 3 : i64} : (tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xi1>)
  %o = echo.matmul %y, %v : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %l = echo.reduce_sum %o dims = [0, 1] : (tensor<64x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
