// RUN: echo-opt %s --split-input-file --convert-echo-to-linalg | FileCheck %s

// Comparisons are one elementwise generic each: floats ordered (ne
// unordered: NaN != x), 16-bit floats compared in f32, ids signed, masks
// unsigned (false < true).
// CHECK-LABEL: func.func @compare
// CHECK: linalg.generic
// CHECK:   arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: linalg.generic
// CHECK:   arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK:   arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK:   arith.cmpf oge, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK:   arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: linalg.generic
// CHECK:   arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
// CHECK-NOT: echo.
func.func @compare(%i: tensor<2x8xi32>, %x: tensor<2x8xf32>, %h: tensor<2x8xbf16>)
    -> (tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>) {
  %0 = echo.compare eq, %i, %i : tensor<2x8xi32>
  %1 = echo.compare ne, %x, %x : tensor<2x8xf32>
  %2 = echo.compare lt, %x, %x : tensor<2x8xf32>
  %3 = echo.compare ge, %h, %h : tensor<2x8xbf16>
  %4 = echo.compare lt, %i, %i : tensor<2x8xi32>
  %5 = echo.compare gt, %0, %1 : tensor<2x8xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>
}

// -----

// Logical ops are arith on i1; not is xor with true.
// CHECK-LABEL: func.func @logical
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: arith.xori %{{.*}}, %{{.*}} : i1
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: arith.xori %{{.*}}, %[[TRUE]] : i1
func.func @logical(%a: tensor<8xi1>, %b: tensor<8xi1>) -> tensor<8xi1> {
  %0 = echo.logical_and %a, %b : tensor<8xi1>
  %1 = echo.logical_or %0, %b : tensor<8xi1>
  %2 = echo.logical_xor %1, %a : tensor<8xi1>
  %3 = echo.logical_not %2 : tensor<8xi1>
  return %3 : tensor<8xi1>
}

// -----

// Conversions: a mask selects 1 or 0; ids convert through f32; a float is
// a mask where it is not 0 (NaN included) and an id rounded toward zero,
// saturated, NaN 0.
// CHECK-LABEL: func.func @convert
// CHECK: linalg.generic
// CHECK:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   arith.select %{{.*}}, %[[ONE]], %[[ZERO]] : f32
// CHECK: linalg.generic
// CHECK:   arith.extui %{{.*}} : i1 to i32
// CHECK: linalg.generic
// CHECK:   %[[F:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK:   arith.truncf %[[F]] : f32 to bf16
// CHECK: linalg.generic
// CHECK:   arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK: linalg.generic
// CHECK:   arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK:   arith.maximumf
// CHECK:   arith.minimumf
// CHECK:   arith.cmpf uno
// CHECK:   arith.select
// CHECK:   arith.fptosi %{{.*}} : f32 to i32
// CHECK-NOT: echo.
func.func @convert(%m: tensor<8xi1>, %i: tensor<8xi32>, %x: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xi32>, tensor<8xbf16>, tensor<8xi1>, tensor<8xi1>, tensor<8xi32>) {
  %0 = echo.convert %m : tensor<8xi1> to tensor<8xf32>
  %1 = echo.convert %m : tensor<8xi1> to tensor<8xi32>
  %2 = echo.convert %i : tensor<8xi32> to tensor<8xbf16>
  %3 = echo.convert %i : tensor<8xi32> to tensor<8xi1>
  %4 = echo.convert %x : tensor<8xf32> to tensor<8xi1>
  %5 = echo.convert %x : tensor<8xf32> to tensor<8xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<8xf32>, tensor<8xi32>, tensor<8xbf16>, tensor<8xi1>, tensor<8xi1>, tensor<8xi32>
}

// -----

// one_hot compares each id with the class index.
// CHECK-LABEL: func.func @one_hot
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<16x2xi32>) outs(%{{.*}} : tensor<16x2x8xf32>)
// CHECK:   %[[C:.*]] = linalg.index 2 : index
// CHECK:   %[[C32:.*]] = arith.index_cast %[[C]] : index to i32
// CHECK:   arith.cmpi eq, %{{.*}}, %[[C32]] : i32
func.func @one_hot(%i: tensor<16x2xi32>) -> tensor<16x2x8xf32> {
  %0 = echo.one_hot %i : (tensor<16x2xi32>) -> tensor<16x2x8xf32>
  return %0 : tensor<16x2x8xf32>
}

// -----

// With ignore_index, the ignored id's row is zeros as well.
// CHECK-LABEL: func.func @one_hot_ignored
// CHECK:   %[[HIT:.*]] = arith.cmpi eq, %[[ID:.*]], %{{.*}} : i32
// CHECK:   %[[IGN:.*]] = arith.constant -100 : i32
// CHECK:   %[[KEPT:.*]] = arith.cmpi ne, %[[ID]], %[[IGN]] : i32
// CHECK:   arith.andi %[[HIT]], %[[KEPT]] : i1
func.func @one_hot_ignored(%i: tensor<16xi32>) -> tensor<16x8xf32> {
  %0 = echo.one_hot %i {ignore_index = -100 : i64} : (tensor<16xi32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// gather reads x at the clamped index with tensor.extract.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<16x8x4xf32>, %[[I:.*]]: tensor<16x2x4xi32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[I]] : tensor<16x2x4xi32>)
// CHECK:   %[[D0:.*]] = linalg.index 0 : index
// CHECK:   arith.maxsi
// CHECK:   arith.minsi %{{.*}}, %c7_i32 : i32
// CHECK:   %[[ROW:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:   %[[D2:.*]] = linalg.index 2 : index
// CHECK:   tensor.extract %[[X]][%[[D0]], %[[ROW]], %[[D2]]] : tensor<16x8x4xf32>
func.func @gather(%x: tensor<16x8x4xf32>, %i: tensor<16x2x4xi32>) -> tensor<16x2x4xf32> {
  %0 = echo.gather %x, %i {axis = 1 : i64} : (tensor<16x8x4xf32>, tensor<16x2x4xi32>) -> tensor<16x2x4xf32>
  return %0 : tensor<16x2x4xf32>
}

// -----

// scatter and scatter_add: a generic over the result and the M entries
// along the axis (a reduction), from x (a fill where x is a splat
// constant): each element takes the entries whose index is its position.
// CHECK-DAG: #[[ENTRY:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @scatter
// CHECK-SAME: (%[[X:.*]]: tensor<16x8xf32>, %[[I:.*]]: tensor<16x2xi32>, %[[S:.*]]: tensor<16x2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ENTRY]], #[[ENTRY]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[I]], %[[S]] : tensor<16x2xi32>, tensor<16x2xf32>) outs(%[[X]] : tensor<16x8xf32>)
// CHECK:   %[[P:.*]] = linalg.index 1 : index
// CHECK:   %[[P32:.*]] = arith.index_cast %[[P]] : index to i32
// CHECK:   %[[HIT:.*]] = arith.cmpi eq, %{{.*}}, %[[P32]] : i32
// CHECK:   arith.select %[[HIT]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[ZERO]] : tensor<16x8xf32>)
// CHECK:   %[[SUM:.*]] = arith.addf
// CHECK:   arith.select %{{.*}}, %[[SUM]], %{{.*}} : f32
func.func @scatter(%x: tensor<16x8xf32>, %i: tensor<16x2xi32>, %s: tensor<16x2xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %0 = echo.scatter %x, %i, %s {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>, tensor<16x2xf32>) -> tensor<16x8xf32>
  %z = arith.constant dense<0.0> : tensor<16x8xf32>
  %1 = echo.scatter_add %z, %i, %s {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>, tensor<16x2xf32>) -> tensor<16x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// topk: ranks (a reduction over the row of i32 counts), the position ranked
// k (a reduction over the row), then the values gathered there.
// CHECK-LABEL: func.func @topk
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<16x8xi32>)
// CHECK:   arith.cmpf ogt
// CHECK:   arith.cmpi ult
// CHECK:   arith.addi
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}} : tensor<16x8xi32>) outs(%{{.*}} : tensor<16x2xi32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<16x2xi32>) outs(%{{.*}} : tensor<16x2xf32>)
// CHECK:   tensor.extract
// With smallest, entries compare the other way.
// CHECK: linalg.generic
// CHECK:   arith.cmpf olt
func.func @topk(%x: tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>, tensor<16x1xf32>) {
  %v, %i = echo.topk %x : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
  %w, %j = echo.topk %x {smallest = true} : (tensor<16x8xf32>) -> (tensor<16x1xf32>, tensor<16x1xi32>)
  return %v, %i, %w : tensor<16x2xf32>, tensor<16x2xi32>, tensor<16x1xf32>
}
