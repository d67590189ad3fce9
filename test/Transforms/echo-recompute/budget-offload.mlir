// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=1851396 offload=all link-bandwidth=10000" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=RECOMPUTE
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=1500000 offload=all link-bandwidth=10000" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=OFFLOAD
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=1500000 offload=all link-bandwidth=10000" | FileCheck %s --check-prefix=IR
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=1.0 budget-table=- offload=all link-bandwidth=10000" -o /dev/null | FileCheck %s --check-prefix=TABLE
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=1000000 offload=all link-bandwidth=10000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALLEST
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=1500000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOOFFLOAD
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="strategy=budget budget=1500000 offload=heavy link-bandwidth=10000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOOFFLOAD

// strategy=budget with offload: candidates that move stashed values to the
// host follow every recompute-only one, so offload is used only where
// recompute alone cannot meet the budget. Six layers of a 1024x64 matmul
// (one shared 64x64 weight) and tanh; with a 10 TB/s link every copy hides
// behind a matmul under the bandwidth model.

// A budget recompute meets: no offload.
// RECOMPUTE: "peak_live_bytes": 1851396,
// RECOMPUTE: "recompute_flops": 17563648,
// RECOMPUTE-NOT: offloaded_values

// Below the smallest recompute-only step: five tanh outputs go to the host
// and nothing is recomputed.
// OFFLOAD: "host_peak_bytes": 1310720,
// OFFLOAD: "offloaded_values": 5,
// OFFLOAD: "peak_live_bytes": 1097732,
// OFFLOAD: "recompute_flops": 0,
// OFFLOAD: "strategy": "budget",
// IR-COUNT-5: echo.offload
// IR-COUNT-5: echo.fetch
// IR-NOT: echo.recompute (

// The ranked family: recompute candidates first, the offloading one last
// (offload=heavy finds no stashed matmul output here: no candidate),
// ranked by recompute seconds.
// TABLE: "name": "none"
// TABLE: "name": "peak-driven 1"
// TABLE: "name": "echo heavy-budget=0.1"
// TABLE: "name": "measured descent 3"
// TABLE: "name": "none + offload all"
// TABLE-NOT: "name":

// SMALLEST: error: echo-recompute: no plan of @deep_train fits the budget of 1000000 bytes; the smallest estimated step found is 1097732 bytes (none + offload all, 0 recompute FLOPs)
// (The measured descent, whose rounds take the unit that lowers the peak at
// the fewest seconds per byte, reaches 1605636 bytes; by FLOPs it stopped at
// 1851396.)
// NOOFFLOAD: error: echo-recompute: no plan of @deep_train fits the budget of 1500000 bytes; the smallest estimated step found is 1605636 bytes (measured descent 3, 26345472 recompute FLOPs)

func.func @deep(%x: tensor<1024x64xf32>, %w: tensor<64x64xf32> {echo.param}) -> tensor<f32> {
  %h1 = echo.matmul %x, %w : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
  %a1 = echo.tanh %h1 : tensor<1024x64xf32>
  %h2 = echo.matmul %a1, %w : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
  %a2 = echo.tanh %h2 : tensor<1024x64xf32>
  %h3 = echo.matmul %a2, %w : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
  %a3 = echo.tanh %h3 : tensor<1024x64xf32>
  %h4 = echo.matmul %a3, %w : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
  %a4 = echo.tanh %h4 : tensor<1024x64xf32>
  %h5 = echo.matmul %a4, %w : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
  %a5 = echo.tanh %h5 : tensor<1024x64xf32>
  %h6 = echo.matmul %a5, %w : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
  %a6 = echo.tanh %h6 : tensor<1024x64xf32>
  %l = echo.reduce_sum %a6 dims = [0, 1] : (tensor<1024x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
