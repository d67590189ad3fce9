// REQUIRES: ilp
// RUN: echo-ilp %s --budget=239620 --budget=223236 --budget=206852 --budget=190468 --budget=174084 --budget=157700 --budget=141316 --min-peak -o %t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: echo-ilp %echo_src/models/resnet.mlir --budget=0.9 | FileCheck %s --check-prefix=RELU

// echo-ilp solves the recompute integer program (RecomputeILP.h) with CBC
// and puts the budget strategy beside each solution, at the bytes the
// solution's plan is estimated at after echo's rewrite.
//
// The chain of budget.mlir: 10 layers y_i = tanh(x_{i-1} w_i) of 16384
// bytes each, none's estimated peak 239620 bytes. Within none - k * 16384
// bytes the optimum recomputes k layers (k * 155648 FLOPs), the model's
// peak is the estimate of the rewritten step, and the budget strategy
// matches it for every k <= 5 (for k = 5 both recompute layers in chains:
// the budget strategy's peak-driven search, its units ranked by recompute
// seconds per byte freed, finds them; ranked by FLOPs per byte it needed
// six layers, and the measured descent found them). The smallest peak possible is
// 147460 bytes, below the budget strategy's smallest step (157700). The budgets are the exact
// steps, which CBC proves optimal in about a second; between them it takes
// far longer (bench/ilp.py), too long for a test.
// CHECK: @chain_train: 53 ops, 20 may be recomputed; program of {{[0-9]+}} columns and {{[0-9]+}} rows; none's estimate 239620 bytes
// CHECK-NEXT: smallest peak in the model: 147460
// CHECK: 239620 | optimal {{[0-9.]+}} 0 239620 | 0 239620 1.000 none
// CHECK-NEXT: 223236 | optimal {{[0-9.]+}} 155648 223236 | 155648 223236 1.000
// CHECK-NEXT: 206852 | optimal {{[0-9.]+}} 311296 206852 | 311296 206852 1.000
// CHECK-NEXT: 190468 | optimal {{[0-9.]+}} 466944 190468 | 466944 190468 1.000
// CHECK-NEXT: 174084 | optimal {{[0-9.]+}} 622592 174084 | 622592 174084 1.000
// CHECK-NEXT: 157700 | optimal {{[0-9.]+}} 778240 157700 | 778240 157700 1.000 peak-driven 6, pruned
// CHECK-NEXT: 141316 | infeasible {{[0-9.]+}}{{ *}}
// CHECK-NEXT: 147460 | optimal {{[0-9.]+}} 933888 147460 | does not fit

// JSON: "candidates": 20,
// JSON: "min_peak": {
// JSON-NEXT: "model_peak_bytes": 147460,
// JSON-NEXT: "solve_seconds":
// JSON-NEXT: "status": "optimal"
// JSON: "none_bytes": 239620,
// JSON: "budget_bytes": 157700,
// JSON: "budget_at_ilp_bytes": {
// JSON-NEXT: "budget_bytes": 157700,
// JSON-NEXT: "candidate": "peak-driven 6, pruned",
// JSON-NEXT: "estimated_bytes": 157700,
// JSON-NEXT: "recompute_flops": 778240,
// JSON-NEXT: "recomputed_ops": 10
// JSON: "ilp": {
// JSON-NEXT: "best_bound":
// JSON-NEXT: "estimated_bytes": 157700,
// JSON-NEXT: "model_peak_bytes": 157700,
// JSON-NEXT: "model_recompute_flops": 778240,
// JSON-NEXT: "recompute_flops": 778240,
// JSON-NEXT: "recomputed_ops": 10,
// JSON-NEXT: "solve_seconds":
// JSON-NEXT: "status": "optimal"
// JSON: "ratio": 1{{$}}
// JSON: "budget_bytes": 141316,
// JSON: "ilp": {
// JSON-NEXT: "solve_seconds":
// JSON-NEXT: "status": "infeasible"

// ReLU reads stashed as 1-bit masks cost no recompute: at 90% of none's
// bytes ResNet needs nothing else.
// RELU: 177634 | optimal {{[0-9.]+}} 0 165628 | 0 165628 1.000 packed masks, ReLU reads binarized
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
