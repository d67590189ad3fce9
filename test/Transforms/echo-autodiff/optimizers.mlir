// optimizer=momentum|adam|adamw: the step takes the optimizer state (per
// parameter, in parameter order) and the hyperparameters after the model's
// arguments, returns (loss, new parameters, new states), and updates each
// parameter right after the last of its gradient's final accumulation and
// the last reader of the old value, before the next layer's backward ops.
// RUN: echo-opt %s -split-input-file -echo-autodiff="optimizer=adam" | FileCheck %s --check-prefix=ADAM
// RUN: echo-opt %s -split-input-file -echo-autodiff="optimizer=adamw" | FileCheck %s --check-prefix=ADAMW
// RUN: echo-opt %s -split-input-file -echo-autodiff="optimizer=momentum" | FileCheck %s --check-prefix=MOMENTUM
// The model itself is left alone, and so is the signature of sgd and none.
// RUN: echo-opt %s -split-input-file -echo-autodiff="optimizer=sgd" | FileCheck %s --check-prefix=SGD

// ADAM-LABEL: func.func @mlp(
// ADAM-SAME: -> tensor<f32>
// ADAM-LABEL: func.func @mlp_train(
// ADAM-SAME: %[[X:[^:]*]]: tensor<8x4xf32>, %{{[^:]*}}: tensor<8xi32>,
// ADAM-SAME: %[[W0:[^:]*]]: tensor<16x4xf32> {echo.param}, %[[B0:[^:]*]]: tensor<16xf32> {echo.param},
// ADAM-SAME: %[[W1:[^:]*]]: tensor<3x16xf32> {echo.param}, %[[B1:[^:]*]]: tensor<3xf32> {echo.param},
// ADAM-SAME: %[[U:[^:]*]]: tensor<5xf32> {echo.param},
// ADAM-SAME: %[[MW0:[^:]*]]: tensor<16x4xf32> {echo.optimizer_state}, %[[VW0:[^:]*]]: tensor<16x4xf32> {echo.optimizer_state},
// ADAM-SAME: %[[MB0:[^:]*]]: tensor<16xf32> {echo.optimizer_state}, %[[VB0:[^:]*]]: tensor<16xf32> {echo.optimizer_state},
// ADAM-SAME: %[[MW1:[^:]*]]: tensor<3x16xf32> {echo.optimizer_state}, %[[VW1:[^:]*]]: tensor<3x16xf32> {echo.optimizer_state},
// ADAM-SAME: %[[MB1:[^:]*]]: tensor<3xf32> {echo.optimizer_state}, %[[VB1:[^:]*]]: tensor<3xf32> {echo.optimizer_state},
// ADAM-SAME: %[[MU:[^:]*]]: tensor<5xf32> {echo.optimizer_state}, %[[VU:[^:]*]]: tensor<5xf32> {echo.optimizer_state},
// ADAM-SAME: %[[LR:[^:]*]]: tensor<f32> {echo.hyper = "lr"}, %[[BETA1:[^:]*]]: tensor<f32> {echo.hyper = "beta1"},
// ADAM-SAME: %[[BETA2:[^:]*]]: tensor<f32> {echo.hyper = "beta2"}, %[[EPS:[^:]*]]: tensor<f32> {echo.hyper = "eps"},
// ADAM-SAME: %[[WD:[^:]*]]: tensor<f32> {echo.hyper = "weight_decay"}, %[[T:[^:]*]]: tensor<f32> {echo.hyper = "step"})
// ADAM-SAME: -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>, tensor<5xf32>,
// ADAM-SAME: tensor<16x4xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3x16xf32>, tensor<3xf32>, tensor<3xf32>, tensor<5xf32>, tensor<5xf32>)
// ADAM-SAME: echo.updated_arguments = array<i64: -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16>
// The last layer: its input gradient reads W1, then W1's gradient; W1 is
// updated right after both, then b1 right after its gradient, and only then
// the first layer's backward pass begins.
// ADAM: %[[DY:.*]] = echo.cross_entropy_grad
// ADAM-NEXT: %[[DA:.*]] = echo.matmul %[[DY]], %[[W1]] :
// ADAM-NEXT: %[[DW1:.*]] = echo.matmul %[[DY]], %{{.*}} {transpose_a = true}
// ADAM-NEXT: %[[NW1:[^,]*]], %[[NMW1:[^,]*]], %[[NVW1:[^ ]*]] = echo.adam_update %[[W1]], %[[DW1]], %[[MW1]], %[[VW1]], %[[LR]], %[[BETA1]], %[[BETA2]], %[[EPS]], %[[WD]], %[[T]] : tensor<3x16xf32>
// ADAM-NEXT: %[[DB1:.*]] = echo.reduce_sum %[[DY]]
// ADAM-NEXT: %[[NB1:[^,]*]], %[[NMB1:[^,]*]], %[[NVB1:[^ ]*]] = echo.adam_update %[[B1]], %[[DB1]], %[[MB1]], %[[VB1]],
// ADAM-NEXT: %[[DH:.*]] = echo.tanh_grad %{{.*}}, %[[DA]]
// ADAM-NEXT: %[[DW0:.*]] = echo.matmul %[[DH]], %[[X]] {transpose_a = true}
// ADAM-NEXT: %[[NW0:[^,]*]], %[[NMW0:[^,]*]], %[[NVW0:[^ ]*]] = echo.adam_update %[[W0]], %[[DW0]], %[[MW0]], %[[VW0]],
// ADAM-NEXT: %[[DB0:.*]] = echo.reduce_sum %[[DH]]
// ADAM-NEXT: %[[NB0:[^,]*]], %[[NMB0:[^,]*]], %[[NVB0:[^ ]*]] = echo.adam_update %[[B0]], %[[DB0]], %[[MB0]], %[[VB0]],
// A parameter the loss does not read is updated with a zero gradient.
// ADAM-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<5xf32>
// ADAM-NEXT: %[[NU:[^,]*]], %[[NMU:[^,]*]], %[[NVU:[^ ]*]] = echo.adam_update %[[U]], %[[ZERO]], %[[MU]], %[[VU]],
// ADAM-NEXT: return %{{.*}}, %[[NW0]], %[[NB0]], %[[NW1]], %[[NB1]], %[[NU]], %[[NMW0]], %[[NVW0]], %[[NMB0]], %[[NVB0]], %[[NMW1]], %[[NVW1]], %[[NMB1]], %[[NVB1]], %[[NMU]], %[[NVU]] :

// ADAMW-LABEL: func.func @mlp_train(
// ADAMW-COUNT-5: echo.adam_update {{.*}} {decoupled_weight_decay = true}

// MOMENTUM-LABEL: func.func @mlp_train(
// MOMENTUM-SAME: %{{[^:]*}}: tensor<16xf32> {echo.param}, %[[W1:[^:]*]]: tensor<3x16xf32> {echo.param}
// MOMENTUM-SAME: %[[VW0:[^:]*]]: tensor<16x4xf32> {echo.optimizer_state}, %[[VB0:[^:]*]]: tensor<16xf32> {echo.optimizer_state},
// MOMENTUM-SAME: %[[VW1:[^:]*]]: tensor<3x16xf32> {echo.optimizer_state}, %[[VB1:[^:]*]]: tensor<3xf32> {echo.optimizer_state},
// MOMENTUM-SAME: %[[VU:[^:]*]]: tensor<5xf32> {echo.optimizer_state},
// MOMENTUM-SAME: %[[LR:[^:]*]]: tensor<f32> {echo.hyper = "lr"}, %[[MOM:[^:]*]]: tensor<f32> {echo.hyper = "momentum"}, %[[WD:[^:]*]]: tensor<f32> {echo.hyper = "weight_decay"})
// MOMENTUM-SAME: echo.updated_arguments = array<i64: -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>
// MOMENTUM: %[[DW1:.*]] = echo.matmul %{{.*}}, %{{.*}} {transpose_a = true}
// MOMENTUM-NEXT: %{{.*}}, %{{.*}} = echo.momentum_update %[[W1]], %[[DW1]], %[[VW1]], %[[LR]], %[[MOM]], %[[WD]] : tensor<3x16xf32>
// MOMENTUM-NEXT: echo.reduce_sum
// MOMENTUM-NEXT: echo.momentum_update
// MOMENTUM-NEXT: echo.tanh_grad

// SGD-LABEL: func.func @mlp_train(
// SGD-SAME: %{{[^:]*}}: tensor<5xf32> {echo.param}) -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>, tensor<5xf32>) attributes {echo.train_step} {
// SGD-NOT: echo.optimizer_state
func.func @mlp(%x: tensor<8x4xf32>, %labels: tensor<8xi32>,
               %w0: tensor<16x4xf32> {echo.param}, %b0: tensor<16xf32> {echo.param},
               %w1: tensor<3x16xf32> {echo.param}, %b1: tensor<3xf32> {echo.param},
               %unused: tensor<5xf32> {echo.param}) -> tensor<f32> {
  %h = "echo.linear"(%x, %w0, %b0) : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %a = "echo.tanh"(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = "echo.linear"(%a, %w1, %b1) : (tensor<8x16xf32>, tensor<3x16xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %l = "echo.cross_entropy"(%y, %labels) : (tensor<8x3xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A weight used twice: its update follows the final accumulation of its
// gradient (the echo.add of both uses' contributions), after the second
// use's input gradient, which reads W.
// ADAM-LABEL: func.func @tied_train(
// ADAM-SAME: %[[X:[^:]*]]: tensor<2x4xf32>, %{{[^:]*}}: tensor<2x4xf32>, %[[W:[^:]*]]: tensor<4x4xf32> {echo.param}
// ADAM: %[[DX2:.*]] = echo.matmul %{{.*}}, %[[W]] :
// ADAM-NEXT: %[[DW2:.*]] = echo.matmul %{{.*}} {transpose_a = true}
// ADAM-NEXT: %[[DW1:.*]] = echo.matmul %[[DX2]], %[[X]] {transpose_a = true}
// ADAM-NEXT: %[[DW:.*]] = echo.add %[[DW2]], %[[DW1]]
// ADAM-NEXT: echo.adam_update %[[W]], %[[DW]],
// ADAM-NEXT: return
func.func @tied(%x: tensor<2x4xf32>, %t: tensor<2x4xf32>, %w: tensor<4x4xf32> {echo.param}) -> tensor<f32> {
  %h = "echo.matmul"(%x, %w) {transpose_b = true} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %y = "echo.matmul"(%h, %w) {transpose_b = true} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %l = "echo.mse_loss"(%y, %t) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
