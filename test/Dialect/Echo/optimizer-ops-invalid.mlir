// Verifier errors of the optimizer update ops: the types (traits) and the
// hyperparameters that are constants (PyTorch's ranges).
// RUN: echo-opt %s -split-input-file -verify-diagnostics

func.func @momentum_state_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<8xf32>, %h: tensor<f32>) {
  // expected-error @+1 {{failed to verify that all of {param, grad, velocity, new_param, new_velocity} have same type}}
  %p1, %v1 = "echo.momentum_update"(%p, %g, %v, %h, %h, %h) : (tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<8xf32>)
  return
}

// -----

func.func @momentum_hyper_shape(%p: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %h: tensor<f32>, %lr: tensor<1xf32>) {
  // expected-error @+1 {{operand #3 must be 0-d f32 tensor, but got 'tensor<1xf32>'}}
  %p1, %v1 = "echo.momentum_update"(%p, %g, %v, %lr, %h, %h) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @momentum_hyper_f16(%p: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %h: tensor<f32>, %mu: tensor<f16>) {
  // expected-error @+1 {{operand #4 must be 0-d f32 tensor, but got 'tensor<f16>'}}
  %p1, %v1 = "echo.momentum_update"(%p, %g, %v, %h, %mu, %h) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f16>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @momentum_integer_param(%p: tensor<4xi32>, %h: tensor<f32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %p1, %v1 = "echo.momentum_update"(%p, %p, %p, %h, %h, %h) : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xi32>, tensor<4xi32>)
  return
}

// -----

func.func @momentum_negative_lr(%p: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %h: tensor<f32>) {
  %lr = arith.constant dense<-0.1> : tensor<f32>
  // expected-error @+1 {{hyperparameter 'lr' is -0.1; it must be >= 0}}
  %p1, %v1 = echo.momentum_update %p, %g, %v, %lr, %h, %h : tensor<4xf32>
  return
}

// -----

func.func @momentum_negative_momentum(%p: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %h: tensor<f32>) {
  %mu = arith.constant dense<-0.5> : tensor<f32>
  // expected-error @+1 {{hyperparameter 'momentum' is -0.5; it must be >= 0}}
  %p1, %v1 = echo.momentum_update %p, %g, %v, %h, %mu, %h : tensor<4xf32>
  return
}

// -----

func.func @momentum_nan_decay(%p: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %h: tensor<f32>) {
  %wd = arith.constant dense<0x7FC00000> : tensor<f32>
  // expected-error @+1 {{hyperparameter 'weight_decay' is nan; it must be >= 0}}
  %p1, %v1 = echo.momentum_update %p, %g, %v, %h, %h, %wd : tensor<4xf32>
  return
}

// -----

func.func @adam_moment_type(%p: tensor<4xf32>, %m: tensor<4xf16>, %h: tensor<f32>) {
  // expected-error @+1 {{failed to verify that all of {param, grad, exp_avg, exp_avg_sq, new_param, new_exp_avg, new_exp_avg_sq} have same type}}
  %r:3 = "echo.adam_update"(%p, %p, %m, %p, %h, %h, %h, %h, %h, %h) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adam_beta_one(%p: tensor<4xf32>, %h: tensor<f32>) {
  %b1 = arith.constant dense<1.0> : tensor<f32>
  // expected-error @+1 {{hyperparameter 'beta1' is 1; it must be >= 0 and < 1}}
  %r:3 = echo.adam_update %p, %p, %p, %p, %h, %b1, %h, %h, %h, %h : tensor<4xf32>
  return
}

// -----

func.func @adam_beta2_negative(%p: tensor<4xf32>, %h: tensor<f32>) {
  %b2 = arith.constant dense<-1.0e-3> : tensor<f32>
  // expected-error @+1 {{hyperparameter 'beta2' is -0.001; it must be >= 0 and < 1}}
  %r:3 = echo.adam_update %p, %p, %p, %p, %h, %h, %b2, %h, %h, %h : tensor<4xf32>
  return
}

// -----

func.func @adam_negative_eps(%p: tensor<4xf32>, %h: tensor<f32>) {
  %eps = arith.constant dense<-1.0e-8> : tensor<f32>
  // expected-error @+1 {{hyperparameter 'eps' is -1e-08; it must be >= 0}}
  %r:3 = echo.adam_update %p, %p, %p, %p, %h, %h, %h, %eps, %h, %h : tensor<4xf32>
  return
}

// -----

func.func @adam_step_zero(%p: tensor<4xf32>, %h: tensor<f32>) {
  %t = arith.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{hyperparameter 'step' is 0; it must be an integer >= 1}}
  %r:3 = echo.adam_update %p, %p, %p, %p, %h, %h, %h, %h, %h, %t : tensor<4xf32>
  return
}

// -----

func.func @adam_step_fraction(%p: tensor<4xf32>, %h: tensor<f32>) {
  %t = arith.constant dense<1.5> : tensor<f32>
  // expected-error @+1 {{hyperparameter 'step' is 1.5; it must be an integer >= 1}}
  %r:3 = echo.adam_update %p, %p, %p, %p, %h, %h, %h, %h, %h, %t : tensor<4xf32>
  return
}

// -----

func.func @adam_flag_kind(%p: tensor<4xf32>, %h: tensor<f32>) {
  // expected-error @+1 {{attribute 'decoupled_weight_decay' failed to satisfy constraint: bool attribute}}
  %r:3 = "echo.adam_update"(%p, %p, %p, %p, %h, %h, %h, %h, %h, %h) {decoupled_weight_decay = 1 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// The argument markers of an optimizer step.
// expected-error @+1 {{'echo.optimizer_state' on argument 0 must be a unit attribute}}
func.func @state_not_unit(%m: tensor<4xf32> {echo.optimizer_state = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{optimizer state argument 0 must be a statically shaped floating-point tensor or memref}}
func.func @state_integer(%m: tensor<4xi32> {echo.optimizer_state}) {
  return
}

// -----

// expected-error @+1 {{argument 0 is marked both 'echo.param' and 'echo.optimizer_state'}}
func.func @state_and_param(%m: tensor<4xf32> {echo.param, echo.optimizer_state}) {
  return
}

// -----

// expected-error @+1 {{'echo.hyper' on argument 0 may only mark a 0-d f32 tensor or memref argument of a func.func}}
func.func @hyper_shape(%lr: tensor<1xf32> {echo.hyper = "lr"}) {
  return
}

// -----

// expected-error @+1 {{'echo.hyper' on argument 0 must be a non-empty string attribute}}
func.func @hyper_unnamed(%lr: tensor<f32> {echo.hyper}) {
  return
}

// -----

// expected-error @+1 {{'echo.updated_arguments' names argument 3, but the function has 1 (-1: no argument)}}
func.func @updated_out_of_range(%p: tensor<4xf32>) -> tensor<4xf32> attributes {echo.updated_arguments = array<i64: 3>} {
  return %p : tensor<4xf32>
}
