// Bad input gets a located diagnostic and exit status 1, never a crash
// (`not` fails on a crash).
// RUN: not echo-opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK: bad-input.mlir:[[@LINE+2]]:{{[0-9]+}}: error: unregistered operation 'echo.frobnicate'
func.func @unknown_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "echo.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: bad-input.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'echo.tanh' op operand #0 must be statically shaped tensor
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "echo.tanh"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK: bad-input.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'echo.dropout' op requires attribute 'seed'
func.func @missing_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0, %1 = "echo.dropout"(%x) {ratio = 5.000000e-01 : f64} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>)
  return %0 : tensor<4xf32>
}

// -----

// CHECK: bad-input.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'echo.dropout' op attribute 'seed' failed to satisfy constraint: 64-bit signless integer attribute
func.func @wrong_attr_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0, %1 = "echo.dropout"(%x) {ratio = 5.000000e-01 : f64, seed = 7 : i32} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>)
  return %0 : tensor<4xf32>
}

// -----

// CHECK: bad-input.mlir:[[@LINE+3]]:{{[0-9]+}}: error: expected ')'
func.func @malformed(%x: tensor<4xf32>) -> tensor<4xf32> {
  // Unbalanced parenthesis.
  %0 = "echo.tanh"(%x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
