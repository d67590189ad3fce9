// RUN: echo-opt %s --echo-pipeline | FileCheck %s
// RUN: echo-opt %s --echo-pipeline="strategy=none target=cpu optimizer=sgd lr=0.5" | FileCheck %s --check-prefix=SGD
// Generated contractions' vector transfers are fully unrolled: no stack
// temporaries (an alloca in a loop body overflowed the stack on 512x512
// GEMMs). (Library calls pass their descriptors through entry-block allocas
// of the C-interface wrappers.)
// RUN: echo-opt %s --echo-pipeline="library-calls=false" | FileCheck %s --check-prefix=NOALLOCA --implicit-check-not=llvm.alloca
// NOALLOCA: llvm.func @_mlir_ciface_f_train
// RUN: echo-opt %s --echo-pipeline="autodiff=false" | FileCheck %s --check-prefix=NOAD
// RUN: not echo-opt %s --echo-pipeline="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not echo-opt %s --echo-pipeline="strategy=bogus" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not echo-opt %s --echo-pipeline="optimizer=lamb" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: echo-opt %s --echo-pipeline="strategy=mirror report=-" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: echo-opt %s --echo-pipeline="plan-buffers=false report=-" -o /dev/null | FileCheck %s --check-prefix=NOPLAN
// RUN: echo-opt %s --echo-pipeline="plan-buffers=false" | FileCheck %s --check-prefix=NOPLAN-IR
// RUN: echo-opt %s --echo-pipeline | FileCheck %s --check-prefix=PLANNED
// RUN: echo-opt %s --echo-pipeline="library-calls=false" | FileCheck %s --check-prefix=GENERATED
// RUN: not echo-opt %s --echo-pipeline="target=nvvm library-calls=false" 2>&1 | FileCheck %s --check-prefix=NVVM-CALLS

// The model becomes LLVM-dialect IR with a C interface for the training
// step; every result is an out-parameter (4 arguments + loss + 2 gradients),
// and the GEMMs are calls into the CPU runtime (OpenBLAS): no vector code.
// CHECK-NOT: echo.
// CHECK: llvm.func @_mlir_ciface_echo_gemm(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64)
// CHECK: llvm.func @f(
// CHECK: llvm.func @_mlir_ciface_f(
// CHECK: llvm.func @f_train(
// CHECK-NOT: llvm.intr.vector.reduce.fadd
// CHECK: llvm.call @echo_gemm(
// CHECK: llvm.func @_mlir_ciface_f_train(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: llvm.store %{{.*}}, %arg0 : !llvm.struct

// Without library calls, the matmuls are tiled and vectorized instead.
// GENERATED-NOT: echo_gemm
// GENERATED: llvm.func @f_train(
// GENERATED: llvm.intr.vector.reduce.fadd
// NVVM-CALLS: echo-pipeline: target=nvvm needs library-calls=true

// With sgd the step computes p - 0.5 * dp (the lr splat fuses into the
// update's loop as a scalar).
// SGD: llvm.func @f_train(
// SGD: llvm.mlir.constant(5.000000e-01 : f32) : f32

// NOAD-NOT: f_train
// NOAD: llvm.func @_mlir_ciface_f(

// TARGET: for the --target option: Cannot find option named 'tpu'!
// STRATEGY: for the --strategy option: Cannot find option named 'bogus'!
// OPT: for the --optimizer option: Cannot find option named 'lamb'!
// The footprint is measured on the tensor-level step; the report is written
// once the buffers are planned. The arena (fused elementwise chains, GEMM
// outputs) reaches the planner's lower bound.
// REPORT: "function": "f_train",
// REPORT: "peak_live_bytes": 41540,
// REPORT: "plan": {
// REPORT-NEXT: "alignment": 64,
// REPORT-NEXT: "arena_bytes": 8448,
// REPORT-NEXT: "argument_bytes": 37444,
// REPORT-NEXT: "buffers": 14,
// REPORT-NEXT: "heuristic": "breadth/best-fit",
// REPORT-NEXT: "in_place": 3,
// REPORT-NEXT: "lower_bound_bytes": 8448,
// REPORT-NEXT: "unplanned_bytes": 0
// REPORT: "planned_bytes": 8448,
// The arena and the arguments: x, labels, w, b and the results (loss, dw,
// db) as out-parameters.
// REPORT: "step_bytes": 45892,
// REPORT: "strategy": "mirror",

// NOPLAN: "planned_bytes": null,
// NOPLAN: "step_bytes": null,
// NOPLAN-NOT: "plan"
// Without planning the step makes 13 heap allocations (three of them the f64
// accumulators of long sums); with it, one: the
// arena. They call MLIR's generic allocation functions, which echo-run and
// echo-step define with the allocator that measures the step.
// NOPLAN-IR: llvm.func @f_train(
// NOPLAN-IR-COUNT-13: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// NOPLAN-IR-NOT: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// NOPLAN-IR: llvm.return
// PLANNED-NOT: llvm.call @malloc
// PLANNED: llvm.func @f_train(
// PLANNED: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// PLANNED-NOT: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// PLANNED: llvm.call @_mlir_memref_to_llvm_free
// PLANNED-NOT: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// PLANNED: llvm.return

func.func @f(%x: tensor<16x64xf32>, %l: tensor<16xi32>,
             %w: tensor<64x64xf32> {echo.param},
             %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %y = echo.linear %x, %w, %b : (tensor<16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %t = echo.tanh %y : tensor<16x64xf32>
  %loss = echo.cross_entropy %t, %l : (tensor<16x64xf32>, tensor<16xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
