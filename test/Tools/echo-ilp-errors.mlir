// REQUIRES: ilp
// RUN: not echo-ilp %s 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: not echo-ilp %s --budget=lots 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not echo-ilp %s --budget=0.5 --time-limit=0 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: not echo-ilp %s --budget=0.5 --time-limit=inf 2>&1 | FileCheck %s --check-prefix=TIMEINF
// RUN: not echo-ilp %s --budget=0.5 --max-nonzeros=0 2>&1 | FileCheck %s --check-prefix=NONZEROS
// RUN: not echo-ilp %s --budget=0.5 --max-nonzeros=10 2>&1 | FileCheck %s --check-prefix=LARGE
// RUN: not echo-ilp %s --budget=0.5 --function=nope 2>&1 | FileCheck %s --check-prefix=FUNCTION
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=mirror | not echo-ilp - --budget=0.5 2>&1 | FileCheck %s --check-prefix=REWRITTEN
// RUN: echo "func.func @f(" | not echo-ilp - --budget=0.5 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: echo-ilp %s --budget=0.9 --function=tiny | FileCheck %s --check-prefix=TINY
// RUN: echo-ilp %s --budget=0.9 --min-peak 2>&1 >/dev/null | FileCheck %s --check-prefix=LOG
// RUN: echo-ilp --help | FileCheck %s --check-prefix=HELP
// RUN: echo-ilp --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: not echo-ilp %s --budget=0.9 -o %t/missing/dir/out.json 2>&1 | FileCheck %s --check-prefix=OUTPUT

// NOTHING: echo-ilp: nothing to solve: give --budget=<b> or --min-peak
// BUDGET: echo-ilp: --budget=lots: {{.+}}
// TIME: echo-ilp: --time-limit must be a positive number of seconds, got 0
// TIMEINF: echo-ilp: --time-limit must be a positive number of seconds, got inf
// NONZEROS: echo-ilp: --max-nonzeros must be positive, got 0
// LARGE: echo-ilp-errors.mlir:{{[0-9]+}}:1: error: echo-ilp: the program of @tiny_train has more than 10 nonzeros (--max-nonzeros; CBC needs about 300 bytes each): 4 ops may be recomputed at {{[0-9]+}} region points
// LARGE-NOT: {{.}}
// FUNCTION: echo-ilp: {{.*}} has no training step named nope
// REWRITTEN: error: echo-ilp: @tiny_train was already rewritten by a recompute strategy; give the step as echo-autodiff built it
// PARSE: error:
// TINY: @tiny_train: 13 ops, 4 may be recomputed; program of {{[0-9]+}} columns and {{[0-9]+}} rows; none's estimate 26628 bytes
// Nothing recomputed in two layers frees 10% of the peak.
// TINY: 23965 | infeasible
// OUTPUT: echo-ilp: {{.+}}
// What is solved and how, on stderr (the table is on stdout); the default
// time limit is 60 s per solve.
// LOG: echo-ilp: @tiny_train: {{[0-9]+}} variables, {{[0-9]+}} constraints, {{[0-9]+}} nonzeros, built in {{[0-9.]+}} s
// LOG-NEXT: echo-ilp: @tiny_train: solving for the smallest peak with a time limit of 60 s
// LOG-NEXT: echo-ilp: @tiny_train: optimal in {{[0-9.]+}} s (loaded in {{[0-9.]+}} s): objective 26628
// LOG-NEXT: echo-ilp: @tiny_train: solving at a budget of 23965 bytes with a time limit of 60 s
// LOG-NEXT: echo-ilp: @tiny_train: infeasible, proven in {{[0-9.]+}} s (loaded in {{[0-9.]+}} s)
// LOG-NEXT: echo-ilp: @tiny_train: solving at a budget of 26628 bytes with a time limit of 60 s
// LOG-NEXT: echo-ilp: @tiny_train: optimal in {{[0-9.]+}} s (loaded in {{[0-9.]+}} s): objective 0
// --help lists echo-ilp's options, not LLVM's; --help-hidden lists both.
// HELP: echo-ilp options:
// HELP: --max-nonzeros=<long> - Refuse a program of more nonzeros
// HELP: --time-limit=<number> - Seconds (wall clock) the solver may take per solve
// HELP-NOT: amdgpu
// HIDDEN: amdgpu

func.func @tiny(%x: tensor<64x16xf32>, %t: tensor<64x16xf32>,
                %w0: tensor<16x16xf32> {echo.param},
                %w1: tensor<16x16xf32> {echo.param}) -> tensor<f32> {
  %m0 = echo.matmul %x, %w0 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %y0 = echo.tanh %m0 : tensor<64x16xf32>
  %m1 = echo.matmul %y0, %w1 : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %y1 = echo.tanh %m1 : tensor<64x16xf32>
  %l = echo.mse_loss %y1, %t : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
