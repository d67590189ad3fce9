// The per-row cross-entropy (EchoLossOps.td): round trip of the custom and
// the contract's generic forms, cost, which forward values its gradient
// reads and the gradient it builds.
// RUN: echo-opt %s | echo-opt | FileCheck %s --check-prefix=ROUND
// RUN: echo-opt %s -mlir-print-op-generic | echo-opt | FileCheck %s --check-prefix=ROUND
// RUN: echo-opt %s -echo-test-cost -verify-diagnostics -o /dev/null
// RUN: echo-opt %s -echo-test-gradient-reads -o /dev/null 2>&1 | FileCheck %s --check-prefix=READS
// RUN: echo-opt %s -echo-test-vjp | FileCheck %s --check-prefix=VJP

// ROUND-LABEL: func.func @rows
// ROUND: echo.cross_entropy_rows %{{.*}}, %{{.*}} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
// ROUND: echo.cross_entropy_rows %{{.*}}, %{{.*}} {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64} : (tensor<4x10xbf16>, tensor<4xi32>) -> tensor<4xf32>
// ROUND: echo.cross_entropy_rows_grad %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = 0 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<4x10xf32>
// VJP-LABEL: func.func @rows
// VJP-SAME: (%[[L:.*]]: tensor<4x10xf32>, %[[Y:.*]]: tensor<4xi32>
// VJP: %[[D:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64} : tensor<4xf32>
// VJP-NEXT: echo.cross_entropy_rows_grad %[[L]], %[[Y]], %[[D]] {ignore_index = -100 : i64, test.adjoint_of = 0 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<4x10xf32>
func.func @rows(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %h: tensor<4x10xbf16>,
                %d: tensor<4xf32>) {
  // Five per logit, as echo.cross_entropy; the gradient reads the logits
  // and the labels.
  // expected-remark @+2 {{flops = 200}}
  // READS: remark: gradient reads operands [0, 1] results []
  %0 = echo.cross_entropy_rows %l, %y {ignore_index = -100 : i64} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  // expected-remark @+1 {{flops = 200}}
  %1 = "echo.cross_entropy_rows"(%h, %y) {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (tensor<4x10xbf16>, tensor<4xi32>) -> tensor<4xf32>
  // expected-remark @+1 {{flops = 240}}
  %2 = echo.cross_entropy_rows_grad %l, %y, %d {ignore_index = 0 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<4x10xf32>
  return
}
