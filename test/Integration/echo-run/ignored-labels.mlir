// A cross-entropy with ignore_index (PyTorch's -100): echo-run reads labels
// of that value from --inputs (their rows count for nothing) and refuses
// any other value outside [0, C) with the accepted range in the message;
// the loss's gradients with ignored rows and label smoothing pass
// --check-gradients, whole and chunked.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_index_ranges.py write %t/ignored 0 63 -100
// RUN: echo-run %s --inputs=%t/ignored --dump=%t/d | FileCheck %s
// CHECK: step 0 loss
// RUN: %python -c "import numpy as np; g = np.load('%t/d/out1.npy'); print('ignored row gradient zero: %%s, others not: %%s' %% (bool((g[63] == 0).all()), bool((g[:63] != 0).any())))" | FileCheck %s --check-prefix=ROWS
// ROWS: ignored row gradient zero: True, others not: True
// RUN: %python %S/Inputs/check_index_ranges.py write %t/minus-one 0 7 -1
// RUN: not echo-run %s --inputs=%t/minus-one 2>&1 | FileCheck %s --check-prefix=MINUS-ONE
// MINUS-ONE: (argument 0): value -1 at [7] is outside [0, 5), the range 'echo.cross_entropy' accepts
// RUN: echo-run %s --check-gradients --inputs=%t/ignored | FileCheck %s --check-prefix=GRADS
// RUN: echo-run %S/../Inputs/chunk-loss/ignore-smoothing.mlir --check-gradients | FileCheck %s --check-prefix=GRADS
// RUN: echo-run %S/../Inputs/chunk-loss/ignore-smoothing.mlir --check-gradients --chunk-loss=4 | FileCheck %s --check-prefix=GRADS
// GRADS: gradient check: param 0 {{.*}} rel err
// GRADS-NOT: FAILED

func.func @ignored(%labels: tensor<64xi32>,
                   %logits: tensor<64x5xf32> {echo.param}) -> tensor<f32> {
  %l = echo.cross_entropy %logits, %labels {ignore_index = -100 : i64, label_smoothing = 5.000000e-02 : f64} : (tensor<64x5xf32>, tensor<64xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
