// echo.one_hot's ignore_index: a caller's labels may hold it (-100, as a
// loss's ignored labels), its rows are zeros (the gradient w.r.t. w is the
// one-hot rows: zeros where the label is -100), and any other value
// outside [0, 3) is still refused before the step runs.
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %python -c "import numpy as np; np.save('%t/in/arg0.npy', np.array([0, 2, -100, 1, -100, 2], np.int32))"
// RUN: echo-run %s --inputs=%t/in --dump=%t/out | FileCheck %s
// CHECK: step 0 loss
// RUN: %python -c "import numpy as np; print(np.load('%t/out/out1.npy').tolist())" | FileCheck %s --check-prefix=ROWS
// ROWS: {{\[}}[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
// RUN: %python -c "import numpy as np; np.save('%t/in/arg0.npy', np.array([0, 2, -99, 1, -100, 2], np.int32))"
// RUN: not echo-run %s --inputs=%t/in 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// OUTSIDE: (argument 0): value -99 at [2] is outside [0, 3), the range 'echo.one_hot' accepts

func.func @ignored(%c: tensor<6xi32>, %w: tensor<6x3xf32> {echo.param})
    -> tensor<f32> {
  %h = echo.one_hot %c {ignore_index = -100 : i64}
      : (tensor<6xi32>) -> tensor<6x3xf32>
  %hw = echo.mul %h, %w : tensor<6x3xf32>
  %s = echo.reduce_sum %hw dims = [0, 1] : (tensor<6x3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
