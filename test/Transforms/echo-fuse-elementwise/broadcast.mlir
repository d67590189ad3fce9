// RUN: echo-opt %s --convert-echo-to-linalg --echo-fuse-elementwise | FileCheck %s

// An attention's query broadcast over the keys, added and squashed: one
// generic reading the query without the key dim; the [4, 3, 8] broadcast
// is never a tensor.
// CHECK-DAG: #[[DROP:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @attention_scores
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[DROP]], #{{.*}}]
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @attention_scores(%q: tensor<4x8xf32>, %k: tensor<4x3x8xf32>) -> tensor<4x3x8xf32> {
  %b = echo.broadcast %q dims = [1] : (tensor<4x8xf32>) -> tensor<4x3x8xf32>
  %s = echo.add %k, %b : tensor<4x3x8xf32>
  %t = echo.tanh %s : tensor<4x3x8xf32>
  return %t : tensor<4x3x8xf32>
}
