// Refusals: one located diagnostic each, the module left unchanged.
// RUN: echo-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect --echo-adopt-training-step="function=f loss=0"

// A dynamic batch inside the body.
func.func @f(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @below {{echo-adopt-training-step: result #0 of 'tensor.cast' has type 'tensor<?x8xf32>'; only statically shaped tensors are adopted}}
  %t = tensor.cast %x : tensor<4x8xf32> to tensor<?x8xf32>
  return %e : tensor<8xf32>
}

// -----

// A dynamic batch in the arguments.
// expected-error @below {{argument #0 of @f has type 'tensor<?x8xf32>'}}
func.func @f(%x: tensor<?x8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

// An unregistered op in the forward pass.
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @below {{echo-adopt-training-step: unregistered op 'foo.bar' in the forward pass}}
  %a = "foo.bar"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = tosa.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %b, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// A side-effecting op in the forward pass.
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @below {{echo-adopt-training-step: side-effecting op 'bufferization.alloc_tensor' in the forward pass}}
  %a = bufferization.alloc_tensor() : tensor<4xf32>
  %b = tosa.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %b, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// The loss is an argument.
// expected-error @below {{echo-adopt-training-step: loss=0: result #0 of @f is not computed by its body}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Two blocks.
// expected-error @below {{echo-adopt-training-step: @f has 2 blocks; only a single-block body is adopted}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<4xf32>
}

// -----

// Nothing after the forward pass.
// expected-error @below {{echo-adopt-training-step: @f has no backward pass: nothing follows its forward pass}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// A training step already.
// expected-error @below {{echo-adopt-training-step: @f is a training step already}}
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {echo.train_step} {
  %t = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %c = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %t, %c : tensor<4xf32>, tensor<4xf32>
}
