// echo-recompute lowers candidate steps through echo-pipeline's own
// bufferization phase to compare their buffer plans; the phase itself
// (echo-reuse-lowered-steps) takes the chosen step from those lowerings and
// lowers only the rest of the module. Two models here, each with a constant
// of the same type and another value: each step, lowered on its own, names
// its constant alike, and the second is renamed as it joins the module.
// RUN: echo-opt %s --echo-pipeline=strategy=echo --mlir-print-ir-after=echo-tag-memory-categories --mlir-print-ir-after=echo-reuse-lowered-steps -o /dev/null 2> %t.dump
// RUN: FileCheck %s < %t.dump
// Every function reads the constant of its own model's value.
// RUN: %python -c "import re,sys; t=sys.stdin.read().split('IR Dump After EchoReuseLoweredSteps')[1]; g=dict(re.findall(r'memref.global .*@(\w+) : memref<4x8xf32> = dense<([0-9.e+]+)>', t)); u=[(f, g[c]) for f, c in re.findall(r'func.func @(\w+)\((?:.|\n)*?memref.get_global @(\w+)', t)]; print(u); sys.exit(u != [('a', '1.500000e+00'), ('a_train', '1.500000e+00'), ('b', '2.500000e+00'), ('b_train', '2.500000e+00')] or len(g) < 3)" < %t.dump
// The same with the memory report, whose attribute the steps carry over.
// RUN: echo-opt %s --echo-pipeline="strategy=echo report=%t.json" --mlir-print-ir-after=echo-reuse-lowered-steps -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// From the command line there is no cache: the pass is its pipeline (on a
// module of one model: with two, upstream's bufferization names their
// constants in an order that differs from run to run).
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-training-pipeline=strategy=echo -o %t.train.mlir
// RUN: echo-opt %t.train.mlir --echo-bufferization-pipeline -o %t.phase.mlir
// RUN: echo-opt %t.train.mlir --echo-reuse-lowered-steps="pipeline=echo-bufferization-pipeline" -o %t.reuse.mlir
// RUN: diff %t.phase.mlir %t.reuse.mlir
// RUN: not echo-opt %t.train.mlir --echo-reuse-lowered-steps="pipeline=no-such-pass" 2>&1 | FileCheck %s --check-prefix=BAD

// The candidates are lowered inside echo-recompute, each step in a module
// of its own.
// CHECK: IR Dump After EchoTagMemoryCategories
// CHECK: func.func @a_train(
// CHECK: IR Dump After EchoTagMemoryCategories
// CHECK: func.func @b_train(
// The pipeline's own phase lowers the models' functions, not the steps.
// CHECK: IR Dump After EchoTagMemoryCategories
// CHECK-NOT: _train(
// CHECK: IR Dump After EchoReuseLoweredSteps
// The steps go back where they were, lowered.
// CHECK: func.func @a(
// CHECK: func.func @a_train({{.*}}memref<4x8xf32>
// CHECK-SAME: echo.recompute_strategy = "echo"
// CHECK: func.func @b(
// CHECK: func.func @b_train({{.*}}memref<4x8xf32>

// REPORT: IR Dump After EchoReuseLoweredSteps
// REPORT: func.func @a_train({{.*}}echo.memory_stats = {
// JSON: "function": "a_train"
// JSON: "planned_bytes":
// JSON: "function": "b_train"

// BAD: echo-reuse-lowered-steps: cannot parse pipeline 'no-such-pass'

func.func @a(%x: tensor<4x8xf32>, %labels: tensor<4xi32>, %w: tensor<8x8xf32> {echo.param}) -> tensor<f32> {
  %c = arith.constant dense<1.5> : tensor<4x8xf32>
  %h = "echo.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = "echo.add"(%h, %c) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = "echo.tanh"(%s) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = "echo.cross_entropy"(%r, %labels) : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @b(%x: tensor<4x8xf32>, %labels: tensor<4xi32>, %w: tensor<8x8xf32> {echo.param}) -> tensor<f32> {
  %c = arith.constant dense<2.5> : tensor<4x8xf32>
  %h = "echo.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = "echo.add"(%h, %c) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = "echo.tanh"(%s) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = "echo.cross_entropy"(%r, %labels) : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
