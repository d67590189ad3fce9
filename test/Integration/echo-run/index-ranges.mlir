// echo-run draws integer data inside the range its uses accept
// (IndexOperandOpInterface): embedding ids in [0, V), labels in [0, C). The
// gradients reveal the draws: row v of d(table) counts the ids equal to v,
// and the one negative entry of each row of d(logits) sits at its label.
// RUN: rm -rf %t && echo-run %s --dump=%t | FileCheck %s
// CHECK: step 0 loss
// RUN: %python %S/Inputs/check_index_ranges.py %t

// Ids and labels read with --inputs are checked against the same bounds
// before the step runs (an id of V or 2^31-1 would read outside the table).
// RUN: %python %S/Inputs/check_index_ranges.py write %t/id-v 0 17 3
// RUN: not echo-run %s --inputs=%t/id-v 2>&1 | FileCheck %s --check-prefix=ID-V
// ID-V: echo-run: {{.*}}id-v/arg0.npy (argument 0): value 3 at [17] is outside [0, 3), the range 'echo.embedding' accepts
// RUN: %python %S/Inputs/check_index_ranges.py write %t/id-max 0 5 2147483647
// RUN: not echo-run %s --inputs=%t/id-max 2>&1 | FileCheck %s --check-prefix=ID-MAX
// ID-MAX: (argument 0): value 2147483647 at [5] is outside [0, 3)
// RUN: %python %S/Inputs/check_index_ranges.py write %t/label-neg 1 63 -1
// RUN: not echo-run %s --inputs=%t/label-neg 2>&1 | FileCheck %s --check-prefix=LABEL-NEG
// LABEL-NEG: (argument 1): value -1 at [63] is outside [0, 5), the range 'echo.cross_entropy' accepts
// RUN: %python %S/Inputs/check_index_ranges.py write %t/label-c 1 0 5
// RUN: not echo-run %s --inputs=%t/label-c 2>&1 | FileCheck %s --check-prefix=LABEL-C
// LABEL-C: (argument 1): value 5 at [0] is outside [0, 5)
// In range at the bounds' edges, they run.
// RUN: %python %S/Inputs/check_index_ranges.py write %t/edge 0 3 2
// RUN: echo-run %s --inputs=%t/edge | FileCheck %s
// --inputs must name a directory.
// RUN: not echo-run %s --inputs=%t/missing 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: not echo-run %s --inputs=%s 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: echo-run: --inputs={{.*}}: not a directory (it holds argN.npy files)

func.func @ranges(%ids: tensor<64xi32>, %labels: tensor<64xi32>,
                  %table: tensor<3x1xf32> {echo.param},
                  %logits: tensor<64x5xf32> {echo.param}) -> tensor<f32> {
  %e = echo.embedding %ids, %table : (tensor<64xi32>, tensor<3x1xf32>) -> tensor<64x1xf32>
  %s = echo.reduce_sum %e dims = [0, 1] : (tensor<64x1xf32>) -> tensor<f32>
  %ce = echo.cross_entropy %logits, %labels : (tensor<64x5xf32>, tensor<64xi32>) -> tensor<f32>
  %l = echo.add %s, %ce : tensor<f32>
  return %l : tensor<f32>
}
