// RUN: echo-opt %s --split-input-file --echo-autodiff --echo-recompute=strategy=echo | FileCheck %s
// RUN: echo-opt %s --split-input-file --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --split-input-file --echo-autodiff --echo-recompute=strategy=echo --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=ECHO
// RUN: echo-opt %s --split-input-file --echo-autodiff --echo-recompute=strategy=mirror | FileCheck %s --check-prefix=MIRROR

// ReLU's gradient needs only `x > 0` (isGradientReadBinarizable): echo
// computes that predicate in the forward pass and stashes it 1-bit packed
// instead of the FC output x: 64x64 f32 = 16384 bytes become 512 (32x).
// CHECK-LABEL: func.func @relu_train
// CHECK: %[[F:.*]] = echo.linear
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-NEXT: %[[M:.*]] = arith.cmpf ugt, %[[F]], %[[ZERO]] : tensor<64x64xf32>
// CHECK-NEXT: echo.relu %[[F]]
// CHECK-NEXT: %[[P:.*]] = echo.pack_mask %[[M]] : (tensor<64x64xi1>) -> tensor<512xi8>
// CHECK: %[[U:.*]] = echo.unpack_mask %[[P]] : (tensor<512xi8>) -> tensor<64x64xi1>
// CHECK-NEXT: echo.relu_grad %[[U]], %{{.*}} : tensor<64x64xi1>, tensor<64x64xf32>
// NONE: "feature_map_bytes": 16384,
// NONE: "peak_live_bytes": 82180,
// ECHO: "feature_map_bytes": 512,
// ECHO: "peak_live_bytes": 69892,
// The baseline keeps reading the input.
// MIRROR-LABEL: func.func @relu_train
// MIRROR-NOT: arith.cmpf
// MIRROR: echo.relu_grad %{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>
func.func @relu(%x: tensor<64x64xf32>, %w: tensor<64x64xf32> {echo.param},
                %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %f = echo.linear %x, %w, %b : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %r = echo.relu %f : tensor<64x64xf32>
  %l = echo.reduce_sum %r dims = [0, 1] : (tensor<64x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The input of the ReLU is also the next FC's input, whose gradient reads
// it: it stays, and no mask is made (it would only add bytes).
// CHECK-LABEL: func.func @shared_train
// CHECK-NOT: arith.cmpf
// CHECK-NOT: echo.pack_mask
// CHECK: return
func.func @shared(%x: tensor<64x64xf32>, %w: tensor<64x64xf32> {echo.param},
                  %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %f = echo.linear %x, %w, %b : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %r = echo.relu %f : tensor<64x64xf32>
  %g = echo.linear %f, %w, %b : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %s = echo.add %r, %g : tensor<64x64xf32>
  %l = echo.reduce_sum %s dims = [0, 1] : (tensor<64x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
