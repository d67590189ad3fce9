// Stock mlir-opt with Echo's plugin adopts and plans a TOSA step: the
// plugin's dialect hook registers the external cost models (mirror keeps
// the GEMM's output and recomputes the cheap ops), and after
// echo-finalize-recompute the module parses without the plugin.
// REQUIRES: plugin
// RUN: mlir-opt %echo_src/examples/adopt/tosa_mlp_step.mlir --load-dialect-plugin=%echo_plugin --load-pass-plugin=%echo_plugin --pass-pipeline="builtin.module(echo-adopt-training-step{function=train_step loss=0},echo-recompute{strategy=mirror},echo-memory-report{output=-})" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: mlir-opt %echo_src/examples/adopt/tosa_mlp_step.mlir --load-dialect-plugin=%echo_plugin --load-pass-plugin=%echo_plugin --pass-pipeline="builtin.module(echo-adopt-training-step{function=train_step loss=0},echo-recompute{strategy=echo},echo-finalize-recompute)" -o %t.mlir
// RUN: mlir-opt %t.mlir | FileCheck %s
// The whole way to the LLVM dialect: echo-foreign-step-pipeline.
// RUN: mlir-opt %echo_src/examples/adopt/tosa_mlp_step.mlir --load-dialect-plugin=%echo_plugin --load-pass-plugin=%echo_plugin --pass-pipeline="builtin.module(echo-foreign-step-pipeline{function=train_step loss=0 strategy=mirror report=-})" | FileCheck %s --check-prefix=LOWERED

// REPORT: "feature_map_bytes": 68105,
// REPORT: "recomputed_ops": 3,
// CHECK-LABEL: func.func @train_step
// CHECK-NOT: echo.
// CHECK: return
// LOWERED: "feature_map_bytes": 68105,
// LOWERED: llvm.func @_mlir_ciface_train_step(
