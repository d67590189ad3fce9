// RUN: echo-opt %s --echo-cpu-bare-pointer-calls | FileCheck %s
// RUN: echo-opt %s --echo-cpu-bare-pointer-calls --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// A private function whose memrefs have static shapes and layouts (a
// static offset and strides too), called directly: marked.
// CHECK-LABEL: func.func private @kernel(
// CHECK-SAME: attributes {llvm.bareptr}
// Lowered, it takes one pointer a memref and rebuilds the descriptor from
// the pointer and the type's constants.
// LLVM-LABEL: llvm.func @kernel(
// LLVM-SAME: %[[P:.*]]: !llvm.ptr, %[[Q:.*]]: !llvm.ptr, %{{.*}}: f32)
// LLVM: %[[D:.*]] = llvm.insertvalue %[[Q]], %{{.*}}[0]
// LLVM: %[[D1:.*]] = llvm.insertvalue %[[Q]], %[[D]][1]
// LLVM: %[[OFF:.*]] = llvm.mlir.constant(3 : index) : i64
// LLVM: llvm.insertvalue %[[OFF]], %[[D1]][2]
func.func private @kernel(%a: memref<4x8xf32>,
                          %b: memref<4xf32, strided<[2], offset: 3>>,
                          %x: f32) {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0, %c0] : memref<4x8xf32>
  %w = arith.addf %v, %x : f32
  memref.store %w, %b[%c0] : memref<4xf32, strided<[2], offset: 3>>
  return
}

// Memref results too.
// CHECK-LABEL: func.func private @segment(
// CHECK-SAME: attributes {llvm.bareptr}
// LLVM-LABEL: llvm.func @segment(
// LLVM-SAME: %{{.*}}: !llvm.ptr) -> !llvm.ptr
func.func private @segment(%a: memref<16xi8>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %v = memref.view %a[%c0][] : memref<16xi8> to memref<4xf32>
  return %v : memref<4xf32>
}

// A dynamic size, a dynamic offset, an unranked memref: the descriptor.
// CHECK-LABEL: func.func private @dynamic_size(
// CHECK-NOT: llvm.bareptr
// CHECK-SAME: {
func.func private @dynamic_size(%a: memref<?xf32>) {
  return
}
// CHECK-LABEL: func.func private @dynamic_offset(
// CHECK-NOT: llvm.bareptr
// CHECK-SAME: {
func.func private @dynamic_offset(%a: memref<4xf32, strided<[1], offset: ?>>) {
  return
}
// CHECK-LABEL: func.func private @dynamic_result(
// CHECK-NOT: llvm.bareptr
// CHECK-SAME: {
func.func private @dynamic_result(%a: memref<4xf32>) -> memref<*xf32> {
  %u = memref.cast %a : memref<4xf32> to memref<*xf32>
  return %u : memref<*xf32>
}

// Its address taken: the descriptor, whoever calls it.
// CHECK-LABEL: func.func private @escapes(
// CHECK-NOT: llvm.bareptr
// CHECK-SAME: {
func.func private @escapes(%a: memref<4xf32>) {
  return
}

// A declaration (a runtime entry point: its C ABI takes descriptors), a
// public function, one that asked for a C interface: unmarked.
// CHECK-LABEL: func.func private @runtime_call(memref<4xf32>)
// CHECK-NOT: llvm.bareptr
func.func private @runtime_call(memref<4xf32>)
// CHECK-LABEL: func.func @public(
// CHECK-NOT: llvm.bareptr
// CHECK-SAME: {
func.func @public(%a: memref<4xf32>) {
  return
}
// CHECK-LABEL: func.func private @c_interface(
// CHECK-NOT: llvm.bareptr
// CHECK-SAME: llvm.emit_c_interface
func.func private @c_interface(%a: memref<4xf32>)
    attributes {llvm.emit_c_interface} {
  return
}

// The step: its calls of the marked functions pass one pointer a memref.
// CHECK-LABEL: func.func @step(
// LLVM-LABEL: llvm.func @step(
func.func @step(%a: memref<4x8xf32>, %arena: memref<16xi8>,
                %d: memref<?xf32>) {
  %x = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %b = memref.reinterpret_cast %a to offset: [3], sizes: [4], strides: [2]
      : memref<4x8xf32> to memref<4xf32, strided<[2], offset: 3>>
  // LLVM: llvm.call @kernel(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, f32) -> ()
  call @kernel(%a, %b, %x) : (memref<4x8xf32>, memref<4xf32, strided<[2], offset: 3>>, f32) -> ()
  // LLVM: %[[V:.*]] = llvm.call @segment(%{{.*}}) : (!llvm.ptr) -> !llvm.ptr
  %v = call @segment(%arena) : (memref<16xi8>) -> memref<4xf32>
  // An unmarked callee still takes the descriptor's fields.
  // LLVM: llvm.call @escapes(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
  call @escapes(%v) : (memref<4xf32>) -> ()
  call @dynamic_size(%d) : (memref<?xf32>) -> ()
  %o = memref.cast %v : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
  call @dynamic_offset(%o) : (memref<4xf32, strided<[1], offset: ?>>) -> ()
  %u = call @dynamic_result(%v) : (memref<4xf32>) -> memref<*xf32>
  call @runtime_call(%v) : (memref<4xf32>) -> ()
  call @public(%v) : (memref<4xf32>) -> ()
  call @c_interface(%v) : (memref<4xf32>) -> ()
  %f = func.constant @escapes : (memref<4xf32>) -> ()
  return
}
