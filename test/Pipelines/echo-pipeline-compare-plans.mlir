// echo in echo-pipeline decides on what the lowered step holds: its best
// estimated candidates are lowered with the pipeline's own bufferization
// phase and compared on step bytes (compare-plans, default 3); 0 decides on
// the tensor-level estimate (see Transforms/echo-recompute/plan-pipeline.mlir
// for the same model through the pass).
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-pipeline="report=-" -o /dev/null | FileCheck %s --check-prefix=PLAN
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-pipeline="compare-plans=0 report=-" -o /dev/null | FileCheck %s --check-prefix=ESTIMATE
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-pipeline="strategy=none report=-" -o /dev/null | FileCheck %s --check-prefix=NONE
// With plan-buffers=false there is no plan to compare: the estimate decides.
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-pipeline="plan-buffers=false report=-" -o /dev/null | FileCheck %s --check-prefix=NOPLAN
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-training-pipeline | FileCheck %s --check-prefix=TRAINING
// RUN: not echo-opt %echo_src/models/mlp.mlir --echo-pipeline="compare-plans=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// The estimate ties the plan recomputing both ReLUs with the one stashing
// their 1-bit masks; the tie goes to the fewer recompute seconds, which is
// also the plan with the fewer step bytes (the recomputing one took 64948).
// PLAN: "recomputed_ops": 0,
// PLAN: "step_bytes": 63028,
// ESTIMATE: "recomputed_ops": 0,
// ESTIMATE: "step_bytes": 63028,
// NONE: "step_bytes": 66996,
// NOPLAN: "recomputed_ops": 0,
// The training phase alone makes the same choice as the whole pipeline.
// TRAINING-NOT: echo.recompute (
// TRAINING: echo.pack_mask
// NEGATIVE: echo-pipeline: compare-plans must be 0 (decide on the estimate) or a number of candidate plans, got -1
