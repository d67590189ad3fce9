// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo | FileCheck %s
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=ECHO

// clamp's gradient (relu6, hardtanh) needs only `min < x < max`, as ReLU's
// needs `x > 0`: echo computes that predicate in the forward pass and
// stashes it 1-bit packed instead of the FC output x, 64x64 f32 = 16384
// bytes become 512.
// CHECK-LABEL: func.func @relu6_train
// CHECK: %[[F:.*]] = echo.linear
// CHECK: %[[LO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT: %[[A:.*]] = arith.cmpf ogt, %[[F]], %[[LO]] : tensor<64x64xf32>
// CHECK-NEXT: %[[HI:.*]] = arith.constant dense<6.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT: %[[B:.*]] = arith.cmpf olt, %[[F]], %[[HI]] : tensor<64x64xf32>
// CHECK-NEXT: %[[M:.*]] = arith.andi %[[A]], %[[B]] : tensor<64x64xi1>
// CHECK-NEXT: echo.clamp %[[F]]
// CHECK-NEXT: %[[P:.*]] = echo.pack_mask %[[M]] : (tensor<64x64xi1>) -> tensor<512xi8>
// CHECK: %[[U:.*]] = echo.unpack_mask %[[P]] : (tensor<512xi8>) -> tensor<64x64xi1>
// CHECK-NEXT: echo.clamp_grad %[[U]], %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<64x64xi1>, tensor<64x64xf32>
// NONE: "feature_map_bytes": 16384,
// ECHO: "feature_map_bytes": 512,
func.func @relu6(%x: tensor<64x64xf32>, %w: tensor<64x64xf32> {echo.param},
                 %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %f = echo.linear %x, %w, %b : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %r = echo.clamp %f {min = 0.0 : f64, max = 6.0 : f64} : tensor<64x64xf32>
  %l = echo.reduce_sum %r dims = [0, 1] : (tensor<64x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
