// The optimizer update ops round-trip through the custom and the generic
// form (their cost: optimizer-ops-cost.mlir).
// RUN: echo-opt %s | echo-opt | FileCheck %s
// RUN: echo-opt %s --mlir-print-op-generic | echo-opt | FileCheck %s
// RUN: echo-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @momentum
// CHECK-SAME: (%[[P:[^:]*]]: tensor<4x8xf32>, %[[G:[^:]*]]: tensor<4x8xf32>, %[[V:[^:]*]]: tensor<4x8xf32>, %[[LR:[^:]*]]: tensor<f32>, %[[MU:[^:]*]]: tensor<f32>, %[[WD:[^:]*]]: tensor<f32>)
// CHECK: = echo.momentum_update %[[P]], %[[G]], %[[V]], %[[LR]], %[[MU]], %[[WD]] : tensor<4x8xf32>
// GENERIC-LABEL: sym_name = "momentum"
// GENERIC: "echo.momentum_update"(%{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
func.func @momentum(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %v: tensor<4x8xf32>,
                    %lr: tensor<f32>, %mu: tensor<f32>, %wd: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %p1, %v1 = echo.momentum_update %p, %g, %v, %lr, %mu, %wd : tensor<4x8xf32>
  return %p1, %v1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @adam
// CHECK: = echo.adam_update %{{[^{]*}} : tensor<16xbf16>
// CHECK: = echo.adam_update %{{[^{]*}} {decoupled_weight_decay = true} : tensor<16xbf16>
// GENERIC-LABEL: sym_name = "adam"
// GENERIC: "echo.adam_update"(%{{.*}}) <{decoupled_weight_decay = false}>
// GENERIC: "echo.adam_update"(%{{.*}}) <{decoupled_weight_decay = true}>
func.func @adam(%p: tensor<16xbf16>, %g: tensor<16xbf16>, %m: tensor<16xbf16>,
                %v: tensor<16xbf16>, %lr: tensor<f32>, %b1: tensor<f32>,
                %b2: tensor<f32>, %eps: tensor<f32>, %wd: tensor<f32>,
                %t: tensor<f32>) -> (tensor<16xbf16>, tensor<16xbf16>) {
  %p1, %m1, %v1 = echo.adam_update %p, %g, %m, %v, %lr, %b1, %b2, %eps, %wd, %t : tensor<16xbf16>
  %p2, %m2, %v2 = echo.adam_update %p1, %g, %m1, %v1, %lr, %b1, %b2, %eps, %wd, %t {decoupled_weight_decay = true} : tensor<16xbf16>
  return %p2, %m2 : tensor<16xbf16>, tensor<16xbf16>
}

// Constants in range are accepted.
// CHECK-LABEL: func.func @constant_hypers
func.func @constant_hypers(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %lr = arith.constant dense<1.0e-3> : tensor<f32>
  %b1 = arith.constant dense<0.9> : tensor<f32>
  %b2 = arith.constant dense<0.999> : tensor<f32>
  %eps = arith.constant dense<1.0e-8> : tensor<f32>
  %wd = arith.constant dense<0.0> : tensor<f32>
  %t = arith.constant dense<3.0> : tensor<f32>
  %p1, %m1, %v1 = echo.adam_update %p, %g, %m, %v, %lr, %b1, %b2, %eps, %wd, %t : tensor<4xf32>
  return %p1 : tensor<4xf32>
}
