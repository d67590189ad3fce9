// echo.triangle lowers to a linalg.generic without inputs that compares the
// linalg.index of the last two dims: no constant of the mask's size.
// RUN: echo-opt %s --split-input-file --convert-echo-to-linalg | FileCheck %s

// lower: j − i <= diagonal; an i1 result selects booleans.
// CHECK-LABEL: func.func @lower_bool
// CHECK-NOT: arith.constant dense
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x8x8xi1>)
// CHECK-DAG: %[[I:.*]] = linalg.index 2 : index
// CHECK-DAG: %[[J:.*]] = linalg.index 3 : index
// CHECK: %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CHECK: %[[IN:.*]] = arith.cmpi sle, %[[D]], %{{.*}} : index
// CHECK: arith.select %[[IN]], %false, %true : i1
// CHECK-NOT: echo.
func.func @lower_bool() -> tensor<1x2x8x8xi1> {
  %0 = echo.triangle lower diagonal 0 inside 0.0 outside 1.0 : tensor<1x2x8x8xi1>
  return %0 : tensor<1x2x8x8xi1>
}

// -----

// upper: j − i >= diagonal; a float result selects its values.
// CHECK-LABEL: func.func @upper_float
// CHECK: linalg.generic
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[IN:.*]] = arith.cmpi sge, %{{.*}}, %[[ONE]] : index
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.select %[[IN]], %[[NINF]], %[[ZERO]] : f32
func.func @upper_float() -> tensor<6x8xf32> {
  %0 = echo.triangle upper diagonal 1 inside 0xFFF0000000000000 outside 0.0 : tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}
