// The `functions` option restricts the check to the named functions.
// RUN: echo-opt %s -echo-verify-model="functions=good" 2>&1 | FileCheck %s
// RUN: not echo-opt %s -echo-verify-model 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not echo-opt %s -echo-verify-model="functions=good,missing" 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK-NOT: error
// CHECK: func.func @good
// CHECK: func.func @bad

// ALL: error: model @bad has no argument marked 'echo.param'
// ALL-NOT: error

// MISSING: error: no function @missing to check

func.func @good(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %l = "echo.reduce_sum"(%w) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @bad(%x: tensor<4xf32>) -> tensor<f32> {
  %l = "echo.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
