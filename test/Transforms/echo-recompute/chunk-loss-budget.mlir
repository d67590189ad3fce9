// The budget strategy and the chunked loss: under chunk-loss=auto it adds
// candidates with the loss in the chunks the estimate picks, ranked after
// every candidate with the loss whole, so the loss is chunked only where no
// such plan meets the budget.
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=0.5 budget-table=%t.half.json" | FileCheck %s --check-prefix=HALF
// RUN: FileCheck %s --input-file=%t.half.json --check-prefix=TABLE
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=1.0" | FileCheck %s --check-prefix=WHOLE
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=0.5 chunk-loss=off" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// A number of chunks chunks every candidate, none included: a share is of
// the chunked none's bytes.
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=0.5 chunk-loss=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORCED

// The logits [64, 500] set none's estimate (268,312 B); no plan with them
// whole gets below 267,288 B; 16 chunks estimate 38,612 B.
// HALF: func.func @big_logits_train
// HALF-SAME: echo.chunked_loss = {chunk_rows = 4 : i64, chunks = 16 : i64
// HALF-SAME: echo.recompute_strategy = "budget"
// TABLE: "budget_bytes": 134156
// TABLE: "name": "none"
// TABLE: "name": "echo heavy-budget=0"
// TABLE: "chosen": true,
// TABLE-NEXT: "estimated_bytes": 38612,
// TABLE-NEXT: "name": "chunked loss x16",
// WHOLE: func.func @big_logits_train
// WHOLE-NOT: echo.chunked_loss
// WHOLE-SAME: echo.recompute_strategy = "budget"
// OFF: error: echo-recompute: no plan of @big_logits_train fits the budget of 134156 bytes (0.5 of strategy none's 268312); the smallest estimated step found is 267288 bytes (echo heavy-budget=0, 1536 recompute FLOPs)
// FORCED: error: echo-recompute: no plan of @big_logits_train fits the budget of 43314 bytes (0.5 of strategy none's 86628)
func.func @big_logits(%x: tensor<64x4xf32>, %labels: tensor<64xi32>,
                      %w: tensor<500x4xf32> {echo.param},
                      %b: tensor<500xf32> {echo.param}) -> tensor<f32> {
  %h = echo.tanh %x : tensor<64x4xf32>
  %z = echo.linear %h, %w, %b : (tensor<64x4xf32>, tensor<500x4xf32>, tensor<500xf32>) -> tensor<64x500xf32>
  %l = echo.cross_entropy %z, %labels : (tensor<64x500xf32>, tensor<64xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
