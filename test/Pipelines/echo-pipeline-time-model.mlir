// The time model's options of echo-pipeline reach echo-recompute (each
// phase takes them too); the report prices the step in seconds.
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-training-pipeline="peak-gflops=200 memory-gbps=25" | FileCheck %s --check-prefix=TRAINING
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-pipeline="memory-gbps=10 report=-" -o /dev/null | FileCheck %s --check-prefix=SLOW
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-pipeline="report=-" -o /dev/null | FileCheck %s --check-prefix=DEFAULT
// RUN: not echo-opt %echo_src/models/mlp.mlir --echo-pipeline="peak-gflops=0" 2>&1 | FileCheck %s --check-prefix=ZERO

// TRAINING: echo.time_model = {memory_gbps = 2.500000e+01 : f64, peak_gflops = 2.000000e+02 : f64}
// The MLP's forward ops are bandwidth-bound: 10 GB/s doubles their seconds.
// DEFAULT: "forward_seconds": 2.3462{{[0-9]*}}e-06,
// SLOW: "forward_seconds": 4.6924{{[0-9]*}}e-06,
// ZERO: error: echo-recompute: peak-gflops must be a positive rate below 1e9, got 0.000000e+00
