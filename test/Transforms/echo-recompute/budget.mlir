// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=239620" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=K0
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=223236" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=K1
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=206852" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=K2
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=190468" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=K3
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=174084" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=K4
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=141316" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=1.0" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=K0
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=75%" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=K4
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=171KiB" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=K4
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=170KiB" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=K5
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=0.5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HALF
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=200000" | FileCheck %s --check-prefix=IR
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=200000 budget-table=-" -o /dev/null | FileCheck %s --check-prefix=TABLE
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="strategy=mirror budget-table=-" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TABLE-MIRROR

// A chain of 10 layers y_i = tanh(x_{i-1} w_i), 256x16 f32 values (16384
// bytes each). `none` stashes every y_i (its estimated peak is 239620 bytes,
// just after the loss). Recomputing y_i (its matmul and tanh) from the
// stashed y_{i-1} frees 16384 bytes there, so a budget of none's bytes
// minus k * 16384 needs exactly k layers recomputed (2k ops, k matmuls of
// 131072 FLOPs and k tanh); the layers taken are not adjacent (each is
// recomputed from a stashed value). Five layers that fit must form chains
// (recomputed alone from stashed values, the fifth would be recomputed
// while the gradients of the last layers are live): the units ranked by
// FLOPs per byte do not reach them, the measured descent (each round tries
// the units across the estimated peak and keeps the one that lowers it
// most cheaply) does: a chain of three layers and two single ones, the
// optimum echo-ilp finds (test/Tools/echo-ilp.mlir).
// NONE: "peak_live_bytes": 239620,
// NONE: "recompute_flops": 0,
// K0: "peak_live_bytes": 239620,
// K0: "recompute_flops": 0,
// K0: "recomputed_ops": 0,
// K1: "peak_live_bytes": 223236,
// K1: "recompute_flops": 155648,
// K1: "recomputed_ops": 2,
// K2: "peak_live_bytes": 206852,
// K2: "recompute_flops": 311296,
// K2: "recomputed_ops": 4,
// K3: "peak_live_bytes": 190468,
// K3: "recompute_flops": 466944,
// K3: "recomputed_ops": 6,
// K4: "peak_live_bytes": 174084,
// K4: "recompute_flops": 622592,
// K4: "recomputed_ops": 8,
// K5: "peak_live_bytes": 157700,
// K5: "recompute_flops": 778240,
// K5: "recomputed_ops": 10,

// Nothing fits: the error says the least the candidates reach.
// INFEASIBLE: error: echo-recompute: no plan of @chain_train fits the budget of 141316 bytes; the smallest estimated step found is 157700 bytes ({{.*}}, 778240 recompute FLOPs)
// HALF: error: echo-recompute: no plan of @chain_train fits the budget of 119810 bytes (0.5 of strategy none's 239620); the smallest estimated step found is 157700 bytes

// 200000 bytes need three layers: y4, y2 and y0, each recomputed from the
// stashed value before it (backward order).
// IR-LABEL: func.func @chain_train({{.*}} attributes {echo.recompute_strategy = "budget", echo.train_step}
// IR: echo.recompute (%[[Y3:[0-9]+]], %arg6)
// IR: echo.recompute (%[[Y1:[0-9]+]], %arg4)
// IR: echo.recompute (%arg0, %arg2)
// IR-NOT: echo.recompute

// budget-table lists the candidates in the order they are tried (none
// first, then by recompute FLOPs; each estimated smaller than the one
// before), the resolved budget and the one chosen (without plan-pipeline
// there are no planned bytes).
// TABLE: "budget_bytes": 200000,
// TABLE: "estimated_bytes": 239620,
// TABLE-NEXT: "name": "none",
// TABLE-NEXT: "predicted_over_budget": false,
// TABLE-NEXT: "recompute_flops": 0,
// TABLE-NEXT: "step_bytes": null
// TABLE: "chosen": true,
// TABLE-NEXT: "estimated_bytes": 190468,
// TABLE: "recompute_flops": 466944,
// TABLE: "chosen": false,
// TABLE-NEXT: "estimated_bytes": 174084,
// TABLE: "measured": false,
// TABLE-NEXT: "none_bytes": 239620
// TABLE-MIRROR: error: echo-recompute: budget-table= is for strategy=budget and strategy=echo

func.func @chain(%x: tensor<256x16xf32>,
                 %t: tensor<256x16xf32>,
                 %w0: tensor<16x16xf32> {echo.param},
                 %w1: tensor<16x16xf32> {echo.param},
                 %w2: tensor<16x16xf32> {echo.param},
                 %w3: tensor<16x16xf32> {echo.param},
                 %w4: tensor<16x16xf32> {echo.param},
                 %w5: tensor<16x16xf32> {echo.param},
                 %w6: tensor<16x16xf32> {echo.param},
                 %w7: tensor<16x16xf32> {echo.param},
                 %w8: tensor<16x16xf32> {echo.param},
                 %w9: tensor<16x16xf32> {echo.param}) -> tensor<f32> {
  %m0 = echo.matmul %x, %w0 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y0 = echo.tanh %m0 : tensor<256x16xf32>
  %m1 = echo.matmul %y0, %w1 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y1 = echo.tanh %m1 : tensor<256x16xf32>
  %m2 = echo.matmul %y1, %w2 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y2 = echo.tanh %m2 : tensor<256x16xf32>
  %m3 = echo.matmul %y2, %w3 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y3 = echo.tanh %m3 : tensor<256x16xf32>
  %m4 = echo.matmul %y3, %w4 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y4 = echo.tanh %m4 : tensor<256x16xf32>
  %m5 = echo.matmul %y4, %w5 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y5 = echo.tanh %m5 : tensor<256x16xf32>
  %m6 = echo.matmul %y5, %w6 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y6 = echo.tanh %m6 : tensor<256x16xf32>
  %m7 = echo.matmul %y6, %w7 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y7 = echo.tanh %m7 : tensor<256x16xf32>
  %m8 = echo.matmul %y7, %w8 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y8 = echo.tanh %m8 : tensor<256x16xf32>
  %m9 = echo.matmul %y8, %w9 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %y9 = echo.tanh %m9 : tensor<256x16xf32>
  %l = echo.mse_loss %y9, %t : (tensor<256x16xf32>, tensor<256x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
