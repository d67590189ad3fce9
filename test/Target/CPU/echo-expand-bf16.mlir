// RUN: echo-opt %s --echo-expand-bf16 | FileCheck %s
// What the pass leaves for LLVM is integer arithmetic and f32/f64
// conversions: no bf16 extf/truncf, which an AVX2 CPU's code generation
// turns into calls to compiler-rt's __truncsfbf2.
// RUN: echo-opt %s --echo-expand-bf16 | FileCheck %s --check-prefix=NONE
// NONE-NOT: {{arith.truncf .* to .*bf16|arith.extf .* : .*bf16.* to}}

// f32 → bf16: round to nearest even on the bits, the upper half kept.
// CHECK-LABEL: func.func @trunc_f32(
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @trunc_f32(%x: f32) -> bf16 {
  %0 = arith.truncf %x : f32 to bf16
  return %0 : bf16
}

// bf16 → f32: a shift.
// CHECK-LABEL: func.func @ext_f32(
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: arith.shli
// CHECK: arith.bitcast %{{.*}} : i32 to f32
func.func @ext_f32(%x: bf16) -> f32 {
  %0 = arith.extf %x : bf16 to f32
  return %0 : f32
}

// Vectors (what the loop vectorizer and echo-vectorize-contractions see).
// CHECK-LABEL: func.func @vectors(
// CHECK: arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.bitcast %{{.*}} : vector<8xbf16> to vector<8xi16>
func.func @vectors(%x: vector<8xf32>, %y: vector<8xbf16>) -> (vector<8xbf16>, vector<8xf32>) {
  %0 = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  %1 = arith.extf %y : vector<8xbf16> to vector<8xf32>
  return %0, %1 : vector<8xbf16>, vector<8xf32>
}

// f64 → bf16: first to f32 rounded to odd (toward zero, the last bit set
// when inexact), then rounded to nearest even.
// CHECK-LABEL: func.func @trunc_f64(
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[B:.*]] = arith.extf %[[T]] : f32 to f64
// CHECK: arith.cmpf one, %[[B]]
// CHECK: arith.cmpf ogt
// CHECK: arith.ori
// CHECK: arith.trunci %{{.*}} : i32 to i16
func.func @trunc_f64(%x: f64) -> bf16 {
  %0 = arith.truncf %x : f64 to bf16
  return %0 : bf16
}

// bf16 → f64: through f32, both exact.
// CHECK-LABEL: func.func @ext_f64(
// CHECK: arith.shli
// CHECK: arith.extf %{{.*}} : f32 to f64
func.func @ext_f64(%x: bf16) -> f64 {
  %0 = arith.extf %x : bf16 to f64
  return %0 : f64
}

// Other conversions stay.
// CHECK-LABEL: func.func @others(
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.extf %{{.*}} : f32 to f64
func.func @others(%x: f32) -> (f16, f64) {
  %0 = arith.truncf %x : f32 to f16
  %1 = arith.extf %x : f32 to f64
  return %0, %1 : f16, f64
}
