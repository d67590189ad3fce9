// The optimizer state is its own class in the report
// (`optimizer_state_bytes`: the arguments marked echo.optimizer_state), and
// like every argument it is live throughout (peak_live_bytes counts it). An
// update written over its arguments in place adds no bytes.
// RUN: echo-opt %s --echo-memory-report -o /dev/null | FileCheck %s
// RUN: echo-opt %s --echo-memory-report=attach | FileCheck %s --check-prefix=ATTACH

// Arguments: w, m, v (16 bytes each) and six hyperparameters (4 each): 72.
// Live bytes per op: tanh 88, reduce_sum 92, mul 108 (%t, the loss and %g),
// adam_update 92 (%g's last use; its results are w, m and v themselves),
// return 76.
// CHECK: "function": "f_train",
// CHECK: "optimizer_state_bytes": 32,
// CHECK: "peak_live_bytes": 108,
// CHECK: "timeline": [
// CHECK-NEXT: 88,
// CHECK-NEXT: 92,
// CHECK-NEXT: 108,
// CHECK-NEXT: 92,
// CHECK-NEXT: 76
// CHECK-NEXT: ]
// ATTACH: echo.memory_stats = {{{.*}}optimizer_state_bytes = 32 : i64, peak_live_bytes = 108 : i64

func.func @f_train(%w: tensor<4xf32> {echo.param},
                   %m: tensor<4xf32> {echo.optimizer_state},
                   %v: tensor<4xf32> {echo.optimizer_state},
                   %lr: tensor<f32> {echo.hyper = "lr"},
                   %b1: tensor<f32> {echo.hyper = "beta1"},
                   %b2: tensor<f32> {echo.hyper = "beta2"},
                   %eps: tensor<f32> {echo.hyper = "eps"},
                   %wd: tensor<f32> {echo.hyper = "weight_decay"},
                   %t: tensor<f32> {echo.hyper = "step"})
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
    attributes {echo.train_step} {
  %h = echo.tanh %w : tensor<4xf32>
  %l = echo.reduce_sum %h dims = [0] : (tensor<4xf32>) -> tensor<f32>
  %g = echo.mul %h, %h : tensor<4xf32>
  %w1, %m1, %v1 = echo.adam_update %w, %g, %m, %v, %lr, %b1, %b2, %eps, %wd, %t : tensor<4xf32>
  return %l, %w1, %m1, %v1 : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
