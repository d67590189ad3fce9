// Gradient check of embedding (embedding_grad, ids of rank 2),
// cross_entropy (cross_entropy_grad) and mse_loss (mse_loss_grad, including
// the target's adjoint).
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// CHECK-COUNT-3: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @losses(%ids: tensor<3x2xi32>, %labels: tensor<6xi32>,
                  %table: tensor<7x5xf32> {echo.param},
                  %w: tensor<4x5xf32> {echo.param},
                  %t: tensor<6x4xf32> {echo.param}) -> tensor<f32> {
  %e = echo.embedding %ids, %table : (tensor<3x2xi32>, tensor<7x5xf32>) -> tensor<3x2x5xf32>
  %f = echo.reshape %e : (tensor<3x2x5xf32>) -> tensor<6x5xf32>
  %logits = echo.matmul %f, %w {transpose_b = true} : (tensor<6x5xf32>, tensor<4x5xf32>) -> tensor<6x4xf32>
  %ce = echo.cross_entropy %logits, %labels : (tensor<6x4xf32>, tensor<6xi32>) -> tensor<f32>
  %mse = echo.mse_loss %logits, %t : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<f32>
  %loss = echo.add %ce, %mse : tensor<f32>
  return %loss : tensor<f32>
}
