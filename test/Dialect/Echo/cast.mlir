// echo.cast: round trip, the generic form of the contract, its cost, the
// folding of a cast to the type it has, and its gradient (the cast back).
// RUN: echo-opt %s -split-input-file | echo-opt | FileCheck %s --check-prefix=ROUND
// RUN: echo-opt %s -split-input-file -echo-test-cost -verify-diagnostics -o /dev/null
// RUN: echo-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=FOLD
// RUN: echo-opt %s -split-input-file -echo-test-vjp | FileCheck %s --check-prefix=VJP

// ROUND-LABEL: func.func @casts
// ROUND: echo.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xbf16>
// ROUND: echo.cast %{{.*}} : tensor<4x8xbf16> to tensor<4x8xf16>
// ROUND: echo.cast %{{.*}} : tensor<4x8xf16> to tensor<4x8xf32>
// FOLD-LABEL: func.func @casts
// VJP-LABEL: func.func @casts
// VJP-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @casts(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // One conversion per element.
  // expected-remark @+1 {{flops = 32}}
  %0 = "echo.cast"(%x) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  // The gradient of a cast is the cast back, and reads no forward value.
  // VJP: %[[B:.*]] = echo.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
  // VJP-NEXT: %[[DB:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64} : tensor<4x8xbf16>
  // VJP-NEXT: echo.cast %[[DB]] {test.adjoint_of = 0 : i64} : tensor<4x8xbf16> to tensor<4x8xf32>
  // expected-remark @+1 {{flops = 32}}
  %1 = echo.cast %0 : tensor<4x8xbf16> to tensor<4x8xf16>
  // expected-remark @+1 {{flops = 32}}
  %2 = echo.cast %1 : tensor<4x8xf16> to tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A cast to the type the value has is the value.
// FOLD-LABEL: func.func @identity
// FOLD-SAME: (%[[X:.*]]: tensor<4xbf16>)
// FOLD-NEXT: return %[[X]]
func.func @identity(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-remark @+1 {{flops = 4}}
  %0 = echo.cast %x : tensor<4xbf16> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Two casts in a row through f32 fold to one (bf16 → f32 → bf16 is the
// identity); a narrowing middle rounds and stays.
// FOLD-LABEL: func.func @chains
// FOLD-SAME: (%[[X:.*]]: tensor<4xbf16>, %[[Y:.*]]: tensor<4xf32>)
// FOLD: %[[N:.*]] = echo.cast %[[Y]] : tensor<4xf32> to tensor<4xbf16>
// FOLD: %[[W:.*]] = echo.cast %[[N]] : tensor<4xbf16> to tensor<4xf32>
// FOLD: return %[[X]], %[[W]]
func.func @chains(%x: tensor<4xbf16>, %y: tensor<4xf32>) -> (tensor<4xbf16>, tensor<4xf32>) {
  // expected-remark @+1 {{flops = 4}}
  %0 = echo.cast %x : tensor<4xbf16> to tensor<4xf32>
  // expected-remark @+1 {{flops = 4}}
  %1 = echo.cast %0 : tensor<4xf32> to tensor<4xbf16>
  // expected-remark @+1 {{flops = 4}}
  %2 = echo.cast %y : tensor<4xf32> to tensor<4xbf16>
  // expected-remark @+1 {{flops = 4}}
  %3 = echo.cast %2 : tensor<4xbf16> to tensor<4xf32>
  return %1, %3 : tensor<4xbf16>, tensor<4xf32>
}
