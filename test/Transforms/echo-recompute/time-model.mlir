// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=none peak-gflops=200 memory-gbps=25" | FileCheck %s --check-prefix=ATTR
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none | FileCheck %s --check-prefix=DEFAULT
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=mirror --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=mirror memory-gbps=10" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=SLOW
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=mirror peak-gflops=0.001" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=FLOPBOUND
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="peak-gflops=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="memory-gbps=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// The time model recomputation is priced in: a step planned with rates
// other than the defaults (100 GFLOP/s, 20 GB/s) records them.
// ATTR: func.func @f_train
// ATTR-SAME: echo.time_model = {memory_gbps = 2.500000e+01 : f64, peak_gflops = 2.000000e+02 : f64}
// DEFAULT-NOT: echo.time_model

// The report prices every op by max(FLOPs / peak, bytes / bandwidth).
// mirror recomputes the tanh [64, 256] (64 KiB in, 64 KiB out): memory
// bound, 131072 bytes / 20 GB/s = 6.5536 µs; at 10 GB/s twice that; at 1
// MFLOP/s its FLOPs decide: 16384 elements × 6 = 98304 FLOPs, 0.098304 s.
// REPORT: "recompute_flops": [[FLOPS:[0-9]+]],
// REPORT: "recompute_seconds": 6.5536{{0*[0-9]?}}e-06,
// SLOW: "recompute_seconds": 1.31072{{0*[0-9]?}}e-05,
// FLOPBOUND: "recompute_flops": 98304,
// FLOPBOUND: "recompute_seconds": 0.098304{{0*[0-9]?}},

// ZERO: error: echo-recompute: peak-gflops must be a positive rate below 1e9, got 0.000000e+00
// NEGATIVE: error: echo-recompute: memory-gbps must be a positive rate below 1e9, got -1.000000e+00
func.func @f(%x: tensor<64x256xf32>, %w: tensor<256x256xf32> {echo.param},
             %v: tensor<256x256xf32> {echo.param}) -> tensor<f32> {
  %h = echo.matmul %x, %w : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %t = echo.tanh %h : tensor<64x256xf32>
  %y = echo.matmul %t, %v : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %l = echo.reduce_sum %y dims = [0, 1] : (tensor<64x256xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
