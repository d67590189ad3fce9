// RUN: echo-opt %s --echo-approximate-math | FileCheck %s

// f32 tanh, exp and log become arithmetic (polynomials that vectorize);
// f64 (the gradient check's forward pass) and sqrt (an LLVM intrinsic)
// stay as they are.
// CHECK-LABEL: func.func @f32_math(
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: math.sqrt
// CHECK: return
func.func @f32_math(%x: f32) -> f32 {
  %0 = math.tanh %x : f32
  %1 = math.exp %0 : f32
  %2 = math.log %1 : f32
  %3 = math.sqrt %2 : f32
  return %3 : f32
}

// CHECK-LABEL: func.func @f64_math(
// CHECK: math.tanh %{{.*}} : f64
// CHECK: math.exp %{{.*}} : f64
func.func @f64_math(%x: f64) -> f64 {
  %0 = math.tanh %x : f64
  %1 = math.exp %0 : f64
  return %1 : f64
}

// Inside a linalg body too (what convert-echo-to-linalg emits).
// CHECK-LABEL: func.func @in_generic(
// CHECK: linalg.generic
// CHECK-NOT: math.tanh
// CHECK: linalg.yield
#id = affine_map<(d0) -> (d0)>
func.func @in_generic(%a: memref<8xf32>, %b: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = math.tanh %x : f32
    linalg.yield %0 : f32
  }
  return
}
