// Stock mlir-opt (linked against the same libMLIR.so) loads Echo as a dialect
// and pass plugin.
// REQUIRES: plugin
// RUN: mlir-opt %s --load-dialect-plugin=%echo_plugin | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%echo_plugin --load-pass-plugin=%echo_plugin --pass-pipeline="builtin.module(echo-verify-model)" | FileCheck %s
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// NOPLUGIN: unregistered dialect

// CHECK-LABEL: func.func @model
// CHECK: echo.linear
// CHECK: echo.cross_entropy
func.func @model(%x: tensor<8x4xf32>, %w: tensor<2x4xf32> {echo.param},
                 %b: tensor<2xf32> {echo.param}, %y: tensor<8xi32>) -> tensor<f32> {
  %h = "echo.linear"(%x, %w, %b) : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %l = "echo.cross_entropy"(%h, %y) : (tensor<8x2xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
