// RUN: echo-opt %s --echo-memory-report -o /dev/null | FileCheck %s
// RUN: echo-opt %s --echo-memory-report=output=%t.json -o /dev/null && FileCheck %s < %t.json
// RUN: not echo-opt %s --echo-memory-report=output=%t.missing/dir/r.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: echo-opt %s --echo-strip-markers --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NOSTEP --implicit-check-not=function

// Arguments (32 bytes) live throughout; %0 (16 bytes) lives from the mul to
// the tanh, the loss (4 bytes) and %g (16 bytes) to the return. Live bytes
// per op: mul 48, reduce_sum 52, tanh 68, return 52. The forward pass ends
// at the loss; %0 is read after it: 16 bytes of feature maps.
// CHECK: "feature_map_bytes": 16,
// CHECK: "function": "f_train",
// CHECK: "peak_live_bytes": 68,
// CHECK: "planned_bytes": null,
// CHECK: "recompute_flops": 0,
// CHECK: "recomputed_ops": 0,
// CHECK: "strategy": "none",
// CHECK: "timeline": [
// CHECK-NEXT: 48,
// CHECK-NEXT: 52,
// CHECK-NEXT: 68,
// CHECK-NEXT: 52
// CHECK-NEXT: ]
// BAD: error: echo-memory-report: cannot write '{{.*}}r.json'
// Only training steps are reported.
// NOSTEP: []

func.func @f_train(%x: tensor<4xf32>, %w: tensor<4xf32> {echo.param})
    -> (tensor<f32>, tensor<4xf32>) attributes {echo.train_step} {
  %0 = echo.mul %x, %w : tensor<4xf32>
  %l = echo.reduce_sum %0 dims = [0] : (tensor<4xf32>) -> tensor<f32>
  %g = echo.tanh %0 : tensor<4xf32>
  return %l, %g : tensor<f32>, tensor<4xf32>
}
