// RUN: echo-opt %s -split-input-file | FileCheck %s
// RUN: echo-opt %s -split-input-file -mlir-print-op-generic | echo-opt -split-input-file | FileCheck %s

// The transfer ops round-trip, and their host copy is not a device value.

// CHECK-LABEL: func.func @offload
//       CHECK:   %[[H:.*]] = echo.offload %[[X:.*]] : tensor<4x8xf32>
//       CHECK:   echo.transfer_wait %[[X]] : tensor<4x8xf32>
//       CHECK:   %[[Y:.*]] = echo.fetch %[[H]] : tensor<4x8xf32>
//       CHECK:   echo.transfer_wait %[[Y]] : tensor<4x8xf32>
//       CHECK:   echo.tanh %[[Y]]
func.func @offload(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %h = echo.offload %x : tensor<4x8xf32>
  echo.transfer_wait %x : tensor<4x8xf32>
  %y = echo.fetch %h : tensor<4x8xf32>
  echo.transfer_wait %y : tensor<4x8xf32>
  %t = echo.tanh %y : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// -----

// An offload nobody fetches is still a valid op (and is not dead code: it
// writes the host pool).
// CHECK-LABEL: func.func @unfetched
//       CHECK:   echo.offload
func.func @unfetched(%x: tensor<2xbf16>) {
  %h = echo.offload %x : tensor<2xbf16>
  return
}
