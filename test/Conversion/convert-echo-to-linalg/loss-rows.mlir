// The per-row cross-entropy lowers as cross_entropy_terms does (one term
// per row, a parallel generic); its gradient is cross_entropy_grad's
// generic reading dloss per row (d0) instead of a scalar divided by the
// rows, with no division.
// RUN: echo-opt %s --convert-echo-to-linalg | FileCheck %s
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @rows
// CHECK: %[[TERMS:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel"]}
// CHECK: math.log
// CHECK: } -> tensor<4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NOT: arith.divf
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: } -> tensor<4x10xf32>
func.func @rows(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x10xf32>) {
  %t = echo.cross_entropy_rows %l, %y : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  %g = echo.cross_entropy_rows_grad %l, %y, %d : (tensor<4x10xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<4x10xf32>
  return %t, %g : tensor<4xf32>, tensor<4x10xf32>
}
