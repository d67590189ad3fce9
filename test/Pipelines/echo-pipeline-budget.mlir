// strategy=budget in echo-pipeline and echo-run: the budget bounds the
// planned step bytes (each candidate is lowered by the pipeline's own
// bufferization phase); compare-plans=0 decides on the estimate. The
// candidates and the sweep are tested in Transforms/echo-recompute/budget.mlir
// and Integration/budget.test.
// RUN: echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget budget=70000 report=-" -o /dev/null | FileCheck %s --check-prefix=FIT
// RUN: echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget budget=1.0 report=-" -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget budget=100% compare-plans=0 report=-" -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: not echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget budget=58000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// RUN: not echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=echo budget=0.5" 2>&1 | FileCheck %s --check-prefix=NOTBUDGET
// RUN: not echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget budget=1.5" 2>&1 | FileCheck %s --check-prefix=FRACTION
// RUN: not echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget budget=12XB" 2>&1 | FileCheck %s --check-prefix=UNIT
// RUN: not echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget budget=0%" 2>&1 | FileCheck %s --check-prefix=PERCENT
// RUN: not echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget budget=lots" 2>&1 | FileCheck %s --check-prefix=WORD
// echo-run: --budget implies strategy budget; with another strategy it is an
// error.
// RUN: echo-run %echo_src/models/transformer.mlir --budget=70000 --report=- | FileCheck %s --check-prefix=TOOL
// RUN: not echo-run %echo_src/models/transformer.mlir --strategy=echo --budget=70000 2>&1 | FileCheck %s --check-prefix=TOOL-STRATEGY

// FIT: "recompute_flops": {{[1-9][0-9]*}},
// FIT: "step_bytes": 6{{[0-9][0-9][0-9][0-9]}},
// FIT: "strategy": "budget"
// NONE: "recompute_flops": 0,
// NONE: "step_bytes": 76580,
// INFEASIBLE: error: echo-recompute: no plan of @transformer_train fits the budget of 58000 bytes; the smallest planned step found is 58404 bytes (sublinear segments x2, 172096 recompute FLOPs)
// MISSING: echo-pipeline: strategy=budget needs budget= (bytes, or a share of none's: 0.5, 50%)
// NOTBUDGET: echo-pipeline: budget= is for strategy=budget, not strategy=echo
// FRACTION: echo-pipeline: budget '1.5' is not a fraction in (0, 1]; expected bytes (1073741824, 512MiB, 1.5GiB, 800MB), a fraction of none's bytes with a point (0.5) or a percentage (50%)
// UNIT: budget '12XB' has an unknown unit 'XB'
// PERCENT: budget '0%' is not a percentage in (0, 100]
// WORD: budget 'lots' does not start with a number
// TOOL: "step_bytes": 6{{[0-9][0-9][0-9][0-9]}},
// TOOL: "strategy": "budget"
// TOOL-STRATEGY: budget= is for strategy=budget, not strategy=echo

// budget-reserve: bytes outside the plan (echo-run passes the libraries'
// measured workspace) count against the budget, for every candidate and for
// none's bytes under a share.
// RUN: not echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=budget budget=66000 budget-reserve=8000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RESERVE
// RUN: not echo-opt %echo_src/models/transformer.mlir --echo-pipeline="strategy=echo budget-reserve=8000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RESERVE-ECHO
// RESERVE: fits the budget of 66000 bytes with 8000 bytes of library workspace; the smallest planned step found is 66404 bytes
// RESERVE-ECHO: echo-pipeline: budget-reserve must be a byte count >= 0 with strategy=budget, got 8000
