// RUN: echo-opt %s -split-input-file -echo-transfer-calls | FileCheck %s

// An offload, its wait, the fetch and its wait become calls with slot 0:
// the buffers as unranked memrefs (the runtime reads rank and strides),
// the fetched value a fresh allocation.
// CHECK-DAG: func.func private @echo_offload_f32(memref<*xf32>, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @echo_fetch_f32(i64, memref<*xf32>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @echo_transfer_wait_f32(i64, memref<*xf32>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @round_trip
//  CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
//       CHECK:   %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<4x8xf32> to memref<4x8xf32, strided<[?, ?], offset: ?>>
//       CHECK:   %[[XU:.*]] = memref.cast %[[XB]] {{.*}} to memref<*xf32>
//       CHECK:   %[[S0:.*]] = arith.constant 0 : i64
//       CHECK:   call @echo_offload_f32(%[[XU]], %[[S0]])
//       CHECK:   call @echo_transfer_wait_f32(%{{.*}}, %{{.*}}) : (i64, memref<*xf32>) -> ()
//       CHECK:   %[[OUT:.*]] = memref.alloc() : memref<4x8xf32>
//       CHECK:   %[[OU:.*]] = memref.cast %[[OUT]] : memref<4x8xf32> to memref<*xf32>
//       CHECK:   call @echo_fetch_f32(%{{.*}}, %[[OU]])
//       CHECK:   %[[Y:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
//       CHECK:   %[[YB:.*]] = bufferization.to_buffer %[[Y]] read_only
//       CHECK:   %[[YU:.*]] = memref.cast %[[YB]]
//       CHECK:   call @echo_transfer_wait_f32(%{{.*}}, %[[YU]])
//       CHECK:   echo.tanh %[[Y]]
//   CHECK-NOT:   echo.offload
//   CHECK-NOT:   echo.fetch
func.func @round_trip(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %h = echo.offload %x : tensor<4x8xf32>
  echo.transfer_wait %x : tensor<4x8xf32>
  %y = echo.fetch %h : tensor<4x8xf32>
  echo.transfer_wait %y : tensor<4x8xf32>
  %t = echo.tanh %y : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// -----

// Slots number the offloads of a function in order; each wait gets the
// slot of the transfer it waits for; the callee's suffix is the element
// type.
// CHECK-LABEL: func.func @two_slots
//       CHECK:   %[[A:.*]] = arith.constant 0 : i64
//       CHECK:   call @echo_offload_f16(%{{.*}}, %[[A]])
//       CHECK:   %[[B:.*]] = arith.constant 1 : i64
//       CHECK:   call @echo_offload_f16(%{{.*}}, %[[B]])
//       CHECK:   %[[W:.*]] = arith.constant 0 : i64
//       CHECK:   call @echo_transfer_wait_f16(%[[W]],
//       CHECK:   %[[F:.*]] = arith.constant 1 : i64
//       CHECK:   call @echo_fetch_f16(%[[F]],
func.func @two_slots(%x: tensor<2xf16>, %z: tensor<2xf16>) -> tensor<2xf16> {
  %h = echo.offload %x : tensor<2xf16>
  %g = echo.offload %z : tensor<2xf16>
  echo.transfer_wait %x : tensor<2xf16>
  %y = echo.fetch %g : tensor<2xf16>
  return %y : tensor<2xf16>
}
