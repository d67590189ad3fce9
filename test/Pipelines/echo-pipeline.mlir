// RUN: echo-opt %s --echo-pipeline | FileCheck %s
// RUN: echo-opt %s --echo-pipeline="strategy=none target=cpu optimizer=sgd lr=0.5" | FileCheck %s --check-prefix=SGD
// Vector transfers are fully unrolled: no stack temporaries (an alloca in a
// loop body overflowed the stack on 512x512 GEMMs).
// RUN: echo-opt %s --echo-pipeline | FileCheck %s --check-prefix=NOALLOCA --implicit-check-not=llvm.alloca
// NOALLOCA: llvm.func @_mlir_ciface_f_train
// RUN: echo-opt %s --echo-pipeline="autodiff=false" | FileCheck %s --check-prefix=NOAD
// RUN: not echo-opt %s --echo-pipeline="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not echo-opt %s --echo-pipeline="strategy=bogus" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not echo-opt %s --echo-pipeline="optimizer=adam" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: echo-opt %s --echo-pipeline="strategy=mirror report=-" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: echo-opt %s --echo-pipeline="plan-buffers=false report=-" -o /dev/null | FileCheck %s --check-prefix=NOPLAN
// RUN: echo-opt %s --echo-pipeline="plan-buffers=false" | FileCheck %s --check-prefix=NOPLAN-IR
// RUN: echo-opt %s --echo-pipeline | FileCheck %s --check-prefix=PLANNED

// The model becomes LLVM-dialect IR with a C interface for the training
// step; every result is an out-parameter (4 arguments + loss + 2 gradients),
// and the matmul was vectorized.
// CHECK-NOT: echo.
// CHECK: llvm.func @f(
// CHECK: llvm.func @_mlir_ciface_f(
// CHECK: llvm.func @f_train(
// CHECK: llvm.intr.vector.reduce.fadd
// CHECK: llvm.func @_mlir_ciface_f_train(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: llvm.store %{{.*}}, %arg0 : !llvm.struct

// With sgd the step computes p - 0.5 * dp (lr is a splat constant).
// SGD: llvm.mlir.global private constant @{{.*}}(dense<5.000000e-01> : tensor<64x64xf32>)
// SGD: llvm.func @f_train(

// NOAD-NOT: f_train
// NOAD: llvm.func @_mlir_ciface_f(

// TARGET: for the --target option: Cannot find option named 'tpu'!
// STRATEGY: for the --strategy option: Cannot find option named 'bogus'!
// OPT: for the --optimizer option: Cannot find option named 'adam'!
// The footprint is measured on the tensor-level step; the report is written
// once the buffers are planned. The arena (5 buffers of 16x64xf32 at its
// peak) reaches the planner's lower bound.
// REPORT: "function": "f_train",
// REPORT: "peak_live_bytes": 41540,
// REPORT: "plan": {
// REPORT-NEXT: "alignment": 64,
// REPORT-NEXT: "arena_bytes": 20480,
// REPORT-NEXT: "buffers": 13,
// REPORT-NEXT: "heuristic": "breadth/best-fit",
// REPORT-NEXT: "in_place": 3,
// REPORT-NEXT: "lower_bound_bytes": 20480
// REPORT: "planned_bytes": 20480,
// REPORT: "strategy": "mirror",

// NOPLAN: "planned_bytes": null,
// NOPLAN-NOT: "plan"
// Without planning the step makes 12 heap allocations; with it, one: the
// arena.
// NOPLAN-IR: llvm.func @f_train(
// NOPLAN-IR-COUNT-12: llvm.call @malloc
// NOPLAN-IR-NOT: llvm.call @malloc
// NOPLAN-IR: llvm.return
// PLANNED: llvm.func @f_train(
// PLANNED: llvm.call @malloc
// PLANNED-NOT: llvm.call @malloc
// PLANNED: llvm.call @free
// PLANNED-NOT: llvm.call @malloc
// PLANNED: llvm.return

func.func @f(%x: tensor<16x64xf32>, %l: tensor<16xi32>,
             %w: tensor<64x64xf32> {echo.param},
             %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %y = echo.linear %x, %w, %b : (tensor<16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %t = echo.tanh %y : tensor<16x64xf32>
  %loss = echo.cross_entropy %t, %l : (tensor<16x64xf32>, tensor<16xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
