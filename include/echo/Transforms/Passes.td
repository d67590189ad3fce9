//===- Passes.td - Echo transformation passes --------------*- tablegen -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TRANSFORMS_PASSES_TD
#define ECHO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def EchoVerifyModel : Pass<"echo-verify-model", "::mlir::ModuleOp"> {
  let summary = "Check that models follow Echo's model convention";
  let description = [{
    A model is a `func.func` whose only result is the scalar loss
    `tensor<f32>`, with at least one argument marked `echo.param`, whose body
    consists of differentiable Echo ops and `arith.constant`s. Every function
    of the module with a body that is not a training step
    (`echo.train_step`) is checked, or only the functions named by
    `functions`. Each violation is reported at the offending function,
    argument or op; the pass fails if there is any.

    `echo-autodiff` applies the same check to the models it differentiates.
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "Check only the functions with these symbol names">,
  ];
  let statistics = [
    Statistic<"numModels", "models", "Number of functions checked">,
    Statistic<"numParams", "params", "Number of parameter arguments seen">,
  ];
  let dependentDialects = ["::mlir::echo::EchoDialect"];
}

def EchoAutodiff : Pass<"echo-autodiff", "::mlir::ModuleOp"> {
  let summary = "Build the training step of every model (reverse-mode AD)";
  let description = [{
    For each model `@f` of the module (see `echo-verify-model`), adds
    `@f_train` with the same arguments, marked `echo.train_step`, returning
    the loss followed by the gradient of every `echo.param` argument in
    argument order. `@f` is left unchanged.

    The backward pass is built in reverse op order through
    `DifferentiableOpInterface::buildGradient`, starting from an adjoint of
    1 for the loss; adjoints of values used more than once are accumulated
    with `echo.add`. Only ops on a path from a parameter to the loss are
    differentiated, so each gradient op reads only the forward values its
    mathematics needs. A parameter the loss does not depend on gets a zero
    gradient.

    With `optimizer=sgd`, the step returns the updated parameters
    `p - lr * dp` instead of the gradients.

    ```mlir
    func.func @f_train(%x: tensor<8x4xf32>, %w: tensor<2x4xf32> {echo.param})
        -> (tensor<f32>, tensor<2x4xf32>) attributes {echo.train_step}
    ```
  }];
  let options = [
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"none\"",
           "What the step returns for each parameter: 'none' (its gradient) "
           "or 'sgd' (the parameter after one SGD step)">,
    Option<"lr", "lr", "double", /*default=*/"0.01",
           "Learning rate of optimizer=sgd">,
  ];
  let statistics = [
    Statistic<"numSteps", "train-steps", "Number of training steps built">,
    Statistic<"numGradientOps", "gradient-ops",
              "Number of ops in the backward passes">,
  ];
  let dependentDialects = [
    "::mlir::echo::EchoDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
  ];
}

#endif // ECHO_TRANSFORMS_PASSES_TD
