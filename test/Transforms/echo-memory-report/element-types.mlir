// RUN: echo-opt %s --echo-memory-report -o /dev/null | FileCheck %s

// The memory model counts bytes by element type: a bf16 value is 2 bytes,
// f32 4. Arguments (2 × 4 bf16: 16 bytes) live throughout; %0 (8 bytes)
// from the mul to the tanh, %s (16 bytes, f32) from the cast to the sum,
// the loss (4 bytes) and %g (8 bytes) to the return. Live bytes per op:
// mul 24, cast 40, reduce_sum 44, tanh 36, return 28. The feature maps: %0,
// read after the loss, 8 bytes.
// CHECK: "feature_map_bytes": 8,
// CHECK: "function": "f_train",
// CHECK: "peak_live_bytes": 44,
// CHECK: "timeline": [
// CHECK-NEXT: 24,
// CHECK-NEXT: 40,
// CHECK-NEXT: 44,
// CHECK-NEXT: 36,
// CHECK-NEXT: 28
// CHECK-NEXT: ]
func.func @f_train(%x: tensor<4xbf16>, %w: tensor<4xbf16> {echo.param})
    -> (tensor<f32>, tensor<4xbf16>) attributes {echo.train_step} {
  %0 = echo.mul %x, %w : tensor<4xbf16>
  %s = echo.cast %0 : tensor<4xbf16> to tensor<4xf32>
  %l = echo.reduce_sum %s dims = [0] : (tensor<4xf32>) -> tensor<f32>
  %g = echo.tanh %0 : tensor<4xbf16>
  return %l, %g : tensor<f32>, tensor<4xbf16>
}
