// Adjoints of values used more than once are accumulated with echo.add;
// parameters the loss does not depend on get a zero gradient; ops that do
// not depend on a parameter are not differentiated.
// RUN: echo-opt %s -echo-autodiff | FileCheck %s

// CHECK-LABEL: func.func @fanout_train(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4xf32>, %[[W:[^:]*]]: tensor<4xf32> {echo.param}, %[[U:[^:]*]]: tensor<4xf32> {echo.param})
// CHECK: %[[E:.*]] = echo.exp %[[X]]
// CHECK: %[[S:.*]] = echo.sigmoid %[[W]]
// CHECK: %[[P:.*]] = echo.mul %[[S]], %[[S]]
// CHECK: %[[Q:.*]] = echo.mul %[[P]], %[[E]]
// CHECK: %[[L:.*]] = echo.reduce_sum %[[Q]]
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DQ:.*]] = echo.broadcast %[[ONE]] dims = [0]
// CHECK: %[[DP:.*]] = echo.mul %[[DQ]], %[[E]]
// The data branch (exp of X) gets no adjoint.
// CHECK-NOT: echo.mul %[[DQ]], %[[P]]
// Both uses of S contribute: S * dP and dP * S, summed.
// CHECK: %[[G1:.*]] = echo.mul %[[DP]], %[[S]]
// CHECK: %[[G2:.*]] = echo.mul %[[DP]], %[[S]]
// CHECK: %[[DS:.*]] = echo.add %[[G1]], %[[G2]]
// CHECK: %[[DW:.*]] = echo.sigmoid_grad %[[S]], %[[DS]]
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: return %[[L]], %[[DW]], %[[ZERO]]
func.func @fanout(%x: tensor<4xf32>, %w: tensor<4xf32> {echo.param}, %unused: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %e = "echo.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = "echo.sigmoid"(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %p = "echo.mul"(%s, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = "echo.mul"(%p, %e) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = "echo.reduce_sum"(%q) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
