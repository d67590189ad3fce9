// The optimizer updates become one elementwise linalg.generic whose outs are
// the parameter and state tensors themselves (destination-passing: one-shot
// bufferization writes into their buffers); the hyperparameters are 0-d
// inputs. Adam's per-step factors are computed once, in f64, by a 0-d
// generic before it. fma where PyTorch's kernels fuse.
// RUN: echo-opt %s --split-input-file --convert-echo-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @momentum
// CHECK-SAME: (%[[P:[^:]*]]: tensor<4x8xf32>, %[[G:[^:]*]]: tensor<4x8xf32>, %[[V:[^:]*]]: tensor<4x8xf32>, %[[LR:[^:]*]]: tensor<f32>, %[[MU:[^:]*]]: tensor<f32>, %[[WD:[^:]*]]: tensor<f32>)
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[SCALAR]], #[[SCALAR]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[G]], %[[LR]], %[[MU]], %[[WD]] : {{.*}}) outs(%[[P]], %[[V]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[g:.*]]: f32, %[[lr:.*]]: f32, %[[mu:.*]]: f32, %[[wd:.*]]: f32, %[[p:.*]]: f32, %[[v:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = math.fma %[[p]], %[[wd]], %[[g]] : f32
// CHECK-NEXT: %[[MV:.*]] = arith.mulf %[[v]], %[[mu]] : f32
// CHECK-NEXT: %[[V1:.*]] = arith.addf %[[MV]], %[[D]] : f32
// CHECK-NEXT: %[[NLR:.*]] = arith.negf %[[lr]] : f32
// CHECK-NEXT: %[[P1:.*]] = math.fma %[[V1]], %[[NLR]], %[[p]] : f32
// CHECK-NEXT: linalg.yield %[[P1]], %[[V1]] : f32, f32
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @momentum(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %v: tensor<4x8xf32>,
                    %lr: tensor<f32>, %mu: tensor<f32>, %wd: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %p1, %v1 = echo.momentum_update %p, %g, %v, %lr, %mu, %wd : tensor<4x8xf32>
  return %p1, %v1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @adam
// CHECK-SAME: (%[[P:[^:]*]]: tensor<16xf32>, %[[G:[^:]*]]: tensor<16xf32>, %[[M:[^:]*]]: tensor<16xf32>, %[[V:[^:]*]]: tensor<16xf32>,
// The factors: 1 - beta1, 1 - beta2, lr / (1 - beta1^t), sqrt(1 - beta2^t),
// 1 - lr * wd, in f64, rounded to f32 once.
// CHECK: %[[F:.*]]:5 = linalg.generic {indexing_maps = [{{.*}}], iterator_types = []}
// CHECK-COUNT-2: math.powf {{.*}} : f64
// CHECK: math.sqrt {{.*}} : f64
// CHECK-COUNT-5: arith.truncf {{.*}} : f64 to f32
// CHECK: %[[R:.*]]:3 = linalg.generic
// CHECK-SAME: ins(%[[G]], {{.*}}, %[[F]]#0, %[[F]]#1, %[[F]]#2, %[[F]]#3, %[[F]]#4 : {{.*}}) outs(%[[P]], %[[M]], %[[V]] : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
// Adam: L2 weight decay on the gradient.
// CHECK: %[[GD:.*]] = math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: math.sqrt {{.*}} : f32
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @adam(%p: tensor<16xf32>, %g: tensor<16xf32>, %m: tensor<16xf32>,
                %v: tensor<16xf32>, %lr: tensor<f32>, %b1: tensor<f32>,
                %b2: tensor<f32>, %eps: tensor<f32>, %wd: tensor<f32>,
                %t: tensor<f32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %p1, %m1, %v1 = echo.adam_update %p, %g, %m, %v, %lr, %b1, %b2, %eps, %wd, %t : tensor<16xf32>
  return %p1, %m1, %v1 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// AdamW: the parameter is decayed first (param * (1 - lr * wd)); the
// gradient is not.
// CHECK-LABEL: func.func @adamw
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[g:[^:]*]]: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32, %[[decay:[^:]*]]: f32, %[[p:[^:]*]]: f32,
// CHECK-NEXT: arith.mulf %[[p]], %[[decay]] : f32
// CHECK-NOT: math.fma %[[p]]
// CHECK: linalg.yield
func.func @adamw(%p: tensor<16xf32>, %g: tensor<16xf32>, %m: tensor<16xf32>,
                 %v: tensor<16xf32>, %h: tensor<f32>) -> tensor<16xf32> {
  %p1, %m1, %v1 = echo.adam_update %p, %g, %m, %v, %h, %h, %h, %h, %h, %h {decoupled_weight_decay = true} : tensor<16xf32>
  return %p1 : tensor<16xf32>
}

// -----

// bf16 parameters are updated in f32 and rounded.
// CHECK-LABEL: func.func @bf16
// CHECK: linalg.generic
// CHECK: arith.extf {{.*}} : bf16 to f32
// CHECK: arith.truncf {{.*}} : f32 to bf16
func.func @bf16(%p: tensor<16xbf16>, %h: tensor<f32>) -> tensor<16xbf16> {
  %p1, %v1 = echo.momentum_update %p, %p, %p, %h, %h, %h : tensor<16xbf16>
  return %p1 : tensor<16xbf16>
}
