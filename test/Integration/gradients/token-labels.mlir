// A token-level loss as an importer writes it: [B,T,C] logits and [B,T]
// i32 labels, both flattened by echo.reshape (i32 labels are reshaped,
// never differentiated). Gradients match f64 finite differences, every
// strategy gives the same bits as none, and the step compiles for nvvm.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK: gradient check: param 0 {{.*}} rel err
// CHECK-NOT: FAILED
// RUN: rm -rf %t && mkdir -p %t
// RUN: for s in none mirror sublinear echo; do echo-run %s --strategy=$s --dump=%t/$s --quiet || exit 1; done
// RUN: for s in mirror sublinear echo; do cmp %t/none/out0.npy %t/$s/out0.npy && cmp %t/none/out1.npy %t/$s/out1.npy || exit 1; done
// RUN: echo-opt %s --echo-pipeline="target=nvvm" -o /dev/null

func.func @tokens(%x: tensor<2x3x4xf32>, %labels: tensor<2x3xi32>,
                  %w: tensor<4x5xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = echo.matmul %0, %w : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %2 = echo.tanh %1 : tensor<6x5xf32>
  %3 = echo.reshape %labels : (tensor<2x3xi32>) -> tensor<6xi32>
  %4 = echo.cross_entropy %2, %3 : (tensor<6x5xf32>, tensor<6xi32>) -> tensor<f32>
  return %4 : tensor<f32>
}
