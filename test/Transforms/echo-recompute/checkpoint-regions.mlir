// The budget strategy's candidates made of the importer's checkpoint hints
// (echo.checkpoint_region): the model's regions recomputed from their
// inputs, each region's outputs (what ops outside it read) stashed. On this
// step (two checkpointed tanh blocks of 256x16 activations), they fit a
// budget of 0.8 of strategy none's bytes that no candidate of the step
// without the hints fits; the chosen plan recomputes the linear and first
// tanh of each region, never the tanh the next region reads.
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=0.8 budget-table=-" -o /dev/null | FileCheck %s --check-prefix=TABLE
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=0.8" | FileCheck %s --check-prefix=PLAN
// RUN: sed 's/ {echo.checkpoint_region = [0-9] : i64}//' %s > %t.mlir
// RUN: not echo-opt %t.mlir --echo-autodiff --echo-recompute="strategy=budget budget=0.8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNHINTED

// TABLE: "chosen": true,
// TABLE-NEXT: "estimated_bytes": 102660,
// TABLE-NEXT: "name": "checkpoint regions",

// PLAN-LABEL: func.func @regions_train
// PLAN: = echo.recompute (
// PLAN-NEXT: ^bb0
// PLAN-NEXT: echo.linear {{.*}} {echo.checkpoint_region = 1 : i64}
// PLAN-NEXT: echo.tanh {{.*}} {echo.checkpoint_region = 1 : i64}
// PLAN-NEXT: echo.yield
// PLAN: = echo.recompute (
// PLAN-NEXT: ^bb0
// PLAN-NEXT: echo.linear {{.*}} {echo.checkpoint_region = 0 : i64}
// PLAN-NEXT: echo.tanh {{.*}} {echo.checkpoint_region = 0 : i64}
// PLAN-NEXT: echo.yield
// PLAN-NOT: = echo.recompute (

// UNHINTED: error: echo-recompute: no plan of @regions_train fits the budget of 108342 bytes
func.func @regions(%x: tensor<256x16xf32>, %t: tensor<256x16xf32>,
                   %w0: tensor<16x16xf32> {echo.param}, %b0: tensor<16xf32> {echo.param},
                   %w1: tensor<16x16xf32> {echo.param}, %b1: tensor<16xf32> {echo.param},
                   %w2: tensor<16x16xf32> {echo.param}, %b2: tensor<16xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.linear %x, %w0, %b0 {echo.checkpoint_region = 0 : i64} : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %1 = echo.tanh %0 {echo.checkpoint_region = 0 : i64} : tensor<256x16xf32>
  %2 = echo.tanh %1 {echo.checkpoint_region = 0 : i64} : tensor<256x16xf32>
  %3 = echo.linear %2, %w1, %b1 {echo.checkpoint_region = 1 : i64} : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %4 = echo.tanh %3 {echo.checkpoint_region = 1 : i64} : tensor<256x16xf32>
  %5 = echo.tanh %4 {echo.checkpoint_region = 1 : i64} : tensor<256x16xf32>
  %6 = echo.linear %5, %w2, %b2 : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %l = echo.mse_loss %6, %t : (tensor<256x16xf32>, tensor<256x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
