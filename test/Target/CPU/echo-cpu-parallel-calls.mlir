// RUN: echo-opt %s --split-input-file --verify-diagnostics --echo-cpu-parallel-calls | FileCheck %s

// A call of a part (echo.parallel_part) on [lo, hi) becomes
// echo_cpu_parallel_for(body, context, lo, hi): its other arguments are
// stored in a struct on the caller's stack, and the body (one per part,
// shared by its calls) loads them and calls the part on its range.
// CHECK-LABEL: llvm.func @kernel(
// CHECK-SAME: %[[P:.*]]: !llvm.ptr, %[[N:.*]]: i64, %[[X:.*]]: f32)
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: %[[CTX:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, i64, f32)> : (i64) -> !llvm.ptr
// CHECK-DAG: %[[LO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG: %[[HI:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: %[[F0:.*]] = llvm.getelementptr %[[CTX]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64, f32)>
// CHECK: llvm.store %[[P]], %[[F0]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[F1:.*]] = llvm.getelementptr %[[CTX]][0, 1]
// CHECK: llvm.store %[[N]], %[[F1]] : i64, !llvm.ptr
// CHECK: %[[F2:.*]] = llvm.getelementptr %[[CTX]][0, 2]
// CHECK: llvm.store %[[X]], %[[F2]] : f32, !llvm.ptr
// CHECK: %[[BODY:.*]] = llvm.mlir.addressof @kernel_part_body : !llvm.ptr
// CHECK: llvm.call @echo_cpu_parallel_for(%[[BODY]], %[[CTX]], %[[LO]], %[[HI]]) : (!llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NOT: llvm.call @kernel_part(
// CHECK: llvm.return
// The context is allocated in the caller's entry block, once, wherever the
// call is (here in a loop).
// CHECK-LABEL: llvm.func @other(
// CHECK-NEXT: llvm.mlir.constant(1 : i64)
// CHECK-NEXT: llvm.alloca
// CHECK-NEXT: llvm.br
// CHECK: llvm.mlir.addressof @kernel_part_body
// CHECK: llvm.call @echo_cpu_parallel_for
// CHECK-LABEL: llvm.func @kernel_part(
// CHECK-LABEL: llvm.func internal @kernel_part_body(
// CHECK-SAME: %[[C:.*]]: !llvm.ptr, %[[BLO:.*]]: i64, %[[BHI:.*]]: i64)
// CHECK: %[[G0:.*]] = llvm.getelementptr %[[C]][0, 0]
// CHECK: %[[L0:.*]] = llvm.load %[[G0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[G1:.*]] = llvm.getelementptr %[[C]][0, 1]
// CHECK: %[[L1:.*]] = llvm.load %[[G1]] : !llvm.ptr -> i64
// CHECK: %[[G2:.*]] = llvm.getelementptr %[[C]][0, 2]
// CHECK: %[[L2:.*]] = llvm.load %[[G2]] : !llvm.ptr -> f32
// CHECK: llvm.call @kernel_part(%[[L0]], %[[L1]], %[[L2]], %[[BLO]], %[[BHI]])
// CHECK-NEXT: llvm.return
// CHECK-NOT: llvm.func internal @kernel_part_body
// Calls of unmarked functions stay.
// CHECK-LABEL: llvm.func @plain_caller(
// CHECK: llvm.call @plain(
// The runtime's entry point is declared once, at the end.
// CHECK: llvm.func @echo_cpu_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64)
llvm.func @kernel(%p: !llvm.ptr, %n: i64, %x: f32) {
  %lo = llvm.mlir.constant(0 : i64) : i64
  %hi = llvm.mlir.constant(64 : i64) : i64
  llvm.call @kernel_part(%p, %n, %x, %lo, %hi) : (!llvm.ptr, i64, f32, i64, i64) -> ()
  llvm.return
}
llvm.func @other(%p: !llvm.ptr, %n: i64, %x: f32, %lo: i64, %hi: i64) {
  llvm.br ^loop
^loop:
  llvm.call @kernel_part(%p, %n, %x, %lo, %hi) : (!llvm.ptr, i64, f32, i64, i64) -> ()
  %again = llvm.icmp "slt" %lo, %hi : i64
  llvm.cond_br %again, ^loop, ^done
^done:
  llvm.return
}
llvm.func @kernel_part(%p: !llvm.ptr, %n: i64, %x: f32, %lo: i64, %hi: i64) attributes {echo.parallel_part} {
  llvm.return
}
llvm.func @plain(%lo: i64, %hi: i64)
llvm.func @plain_caller(%lo: i64, %hi: i64) {
  llvm.call @plain(%lo, %hi) : (i64, i64) -> ()
  llvm.return
}

// -----

// A part must take its range last and return nothing.
llvm.func @bad_part(%p: !llvm.ptr, %lo: i32) attributes {echo.parallel_part} {
  llvm.return
}
llvm.func @caller(%p: !llvm.ptr, %lo: i32) {
  // expected-error @below {{echo-cpu-parallel-calls: @bad_part is marked 'echo.parallel_part' but does not end with (i64 lo, i64 hi), returns a value or is called outside an llvm.func}}
  llvm.call @bad_part(%p, %lo) : (!llvm.ptr, i32) -> ()
  llvm.return
}
