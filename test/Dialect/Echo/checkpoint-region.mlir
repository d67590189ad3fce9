// echo.checkpoint_region, the importer's hint that an op is computed inside
// a torch.utils.checkpoint call: verified, kept through echo-autodiff's
// clone of the forward pass (the strategies read it on the training step).
// RUN: echo-opt %s -split-input-file -verify-diagnostics
// RUN: echo-opt %s -split-input-file -verify-diagnostics -echo-autodiff | FileCheck %s

// CHECK-LABEL: func.func @regions_train
// CHECK: echo.linear {{.*}} {echo.checkpoint_region = 0 : i64}
// CHECK: echo.tanh {{.*}} {echo.checkpoint_region = 0 : i64}
// CHECK: echo.linear {{.*}} {echo.checkpoint_region = 1 : i64}
// CHECK: echo.mse_loss
// CHECK-NOT: checkpoint_region
// CHECK: return
func.func @regions(%x: tensor<2x8xf32>, %t: tensor<2x8xf32>,
                   %w0: tensor<8x8xf32> {echo.param}, %b0: tensor<8xf32> {echo.param},
                   %w1: tensor<8x8xf32> {echo.param}, %b1: tensor<8xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.linear %x, %w0, %b0 {echo.checkpoint_region = 0 : i64} : (tensor<2x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %1 = echo.tanh %0 {echo.checkpoint_region = 0 : i64} : tensor<2x8xf32>
  %2 = echo.linear %1, %w1, %b1 {echo.checkpoint_region = 1 : i64} : (tensor<2x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %l = echo.mse_loss %2, %t : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @checkpoint_region_value(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.checkpoint_region' must be a non-negative i64 attribute}}
  %0 = echo.tanh %x {echo.checkpoint_region = -1 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @checkpoint_region_op(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.checkpoint_region' may only mark an op of the echo dialect}}
  %0 = arith.addf %x, %x {echo.checkpoint_region = 0 : i64} : tensor<4x8xf32>
  return
}
