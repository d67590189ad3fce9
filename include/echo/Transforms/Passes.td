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

#endif // ECHO_TRANSFORMS_PASSES_TD
