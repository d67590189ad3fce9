// The ops of EchoMaskOps.td: round trip of the custom and the generic
// forms, the cost of echo.triangle, and that it gives nothing a gradient.
// RUN: echo-opt %s -split-input-file | echo-opt -split-input-file | FileCheck %s --check-prefix=ROUND
// RUN: echo-opt %s -split-input-file -echo-test-cost -verify-diagnostics -o /dev/null

// ROUND-LABEL: func.func @triangle
// ROUND: echo.triangle lower diagonal 0 inside 0.000000e+00 outside 1.000000e+00 : tensor<1x1x8x8xi1>
// ROUND: echo.triangle upper diagonal 1 inside 0xFFF0000000000000 outside 0.000000e+00 : tensor<8x8xf32>
// ROUND: echo.triangle lower diagonal -2 inside 1.000000e+00 outside 0.000000e+00 : tensor<2x3x4x6xbf16>
func.func @triangle() -> (tensor<1x1x8x8xi1>, tensor<8x8xf32>, tensor<2x3x4x6xbf16>) {
  // A comparison and a select per element.
  // expected-remark @+1 {{flops = 128}}
  %0 = echo.triangle lower diagonal 0 inside 0.0 outside 1.0 : tensor<1x1x8x8xi1>
  // expected-remark @+1 {{flops = 128}}
  %1 = echo.triangle upper diagonal 1 inside 0xFFF0000000000000 outside 0.0 : tensor<8x8xf32>
  // expected-remark @+1 {{flops = 288}}
  %2 = "echo.triangle"() {kind = 0 : i64, diagonal = -2 : i64, inside = 1.0 : f64, outside = 0.0 : f64} : () -> tensor<2x3x4x6xbf16>
  return %0, %1, %2 : tensor<1x1x8x8xi1>, tensor<8x8xf32>, tensor<2x3x4x6xbf16>
}
