//===- EchoOptimizerOps.td - Echo optimizer update ops -----*- tablegen -*-===//
//
// Part of the Echo project.
//
// The parameter updates of the optimizers that run inside a training step
// (`echo-autodiff optimizer=momentum|adam|adamw`). Each reads a parameter,
// its final gradient, the optimizer's state for that parameter and the
// hyperparameters (0-d f32 tensors, so that a schedule changes nothing
// compiled), and returns the new parameter and state. The mathematics is
// PyTorch 1.13's torch.optim, step for step. The results replace operands
// (InPlaceUpdateOpInterface): the lowering writes them into the parameter's
// and the state's own buffers.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOOPTIMIZEROPS_TD
#define ECHO_DIALECT_ECHO_IR_ECHOOPTIMIZEROPS_TD

include "echo/Dialect/Echo/IR/EchoBase.td"

/// A hyperparameter: a 0-d f32 tensor (its type is implied in the custom
/// assembly).
def Echo_HyperTensor : Type<And<[
    CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getRank() == 0">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self)"
          ".getElementType().isF32()">]>,
    "0-d f32 tensor", "::mlir::RankedTensorType"> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getF32Type())";
}

/// An optimizer update: result i is the new value of operand
/// `updatedOperands[i]`. The verifier (EchoOptimizerOps.cpp) checks the
/// hyperparameters that are constants against PyTorch's ranges.
class Echo_OptimizerUpdateOp<string mnemonic, list<int> updatedOperands,
                             list<Trait> traits = []>
    : Echo_Op<mnemonic, !listconcat(traits, [Pure,
        Echo_InPlaceUpdateOpInterface])> {
  let hasVerifier = 1;
  let echoInterfaceDecls = [{
    //===------------------------------------------------------------------===//
    // InPlaceUpdateOpInterface
    //===------------------------------------------------------------------===//
    unsigned getUpdatedOperandIndex(unsigned resultIndex) {
      static constexpr unsigned updated[] = {}]
        # !interleave(updatedOperands, ", ") # [{};
      return updated[resultIndex];
    }
  }];
}

def Echo_MomentumUpdateOp : Echo_OptimizerUpdateOp<"momentum_update", [0, 2],
    [AllTypesMatch<["param", "grad", "velocity", "new_param",
                    "new_velocity"]>]> {
  let summary = "one step of SGD with momentum (torch.optim.SGD)";
  let description = [{
    PyTorch's `torch.optim.SGD(momentum=μ, dampening=0, nesterov=False,
    weight_decay=λ)` for one parameter, with the velocity (PyTorch's
    `momentum_buffer`) kept by the caller:

    ```
    d            = grad + λ · param           (L2 weight decay)
    new_velocity = μ · velocity + d
    new_param    = param − lr · new_velocity
    ```

    A velocity of zeros gives PyTorch's first step, which starts the buffer
    at `d`. `lr`, `momentum` and `weight_decay` are 0-d f32 tensors; where
    one is a constant, it must lie in PyTorch's range (not negative).

    ```mlir
    %p1, %v1 = echo.momentum_update %p, %g, %v, %lr, %mu, %wd
        : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$param, Echo_FloatTensor:$grad,
                       Echo_FloatTensor:$velocity, Echo_HyperTensor:$lr,
                       Echo_HyperTensor:$momentum,
                       Echo_HyperTensor:$weight_decay);
  let results = (outs Echo_FloatTensor:$new_param,
                      Echo_FloatTensor:$new_velocity);
  let assemblyFormat = [{
    $param `,` $grad `,` $velocity `,` $lr `,` $momentum `,` $weight_decay
    attr-dict `:` type($param)
  }];
  // Weight decay (2), the velocity (2), the parameter (2).
  let flopsPerElement = 6;
}

def Echo_AdamUpdateOp : Echo_OptimizerUpdateOp<"adam_update", [0, 2, 3],
    [AllTypesMatch<["param", "grad", "exp_avg", "exp_avg_sq", "new_param",
                    "new_exp_avg", "new_exp_avg_sq"]>]> {
  let summary = "one step of Adam or AdamW (torch.optim.Adam, AdamW)";
  let description = [{
    PyTorch's `torch.optim.Adam(betas=(β1, β2), eps=ε, weight_decay=λ)`
    (`amsgrad=False`) for one parameter, with the moments (`exp_avg` m,
    `exp_avg_sq` v) kept by the caller, at step `t` (1-based):

    ```
    Adam:   g = grad + λ · param                  (L2 weight decay)
    AdamW:  g = grad, param ← param · (1 − lr · λ)  (decoupled)
    m'        = β1 · m + (1 − β1) · g
    v'        = β2 · v + (1 − β2) · g · g
    bc1, bc2  = 1 − β1^t, 1 − β2^t
    new_param = param − (lr / bc1) · m' / (sqrt(v') / sqrt(bc2) + ε)
    ```

    `decoupled_weight_decay` selects AdamW. The scalar factors (1 − β,
    lr / bc1, sqrt(bc2), 1 − lr · λ) are computed once per step in f64 and
    rounded to f32, as PyTorch computes them in Python; the rest is f32
    elementwise arithmetic. The hyperparameters are 0-d f32 tensors; where
    one is a constant, it must lie in PyTorch's range (0 ≤ β < 1, lr, ε,
    λ ≥ 0, t ≥ 1).

    ```mlir
    %p1, %m1, %v1 = echo.adam_update %p, %g, %m, %v, %lr, %b1, %b2, %eps,
        %wd, %t {decoupled_weight_decay = true} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$param, Echo_FloatTensor:$grad,
                       Echo_FloatTensor:$exp_avg, Echo_FloatTensor:$exp_avg_sq,
                       Echo_HyperTensor:$lr, Echo_HyperTensor:$beta1,
                       Echo_HyperTensor:$beta2, Echo_HyperTensor:$eps,
                       Echo_HyperTensor:$weight_decay, Echo_HyperTensor:$step,
                       DefaultValuedAttr<BoolAttr, "false">:
                           $decoupled_weight_decay);
  let results = (outs Echo_FloatTensor:$new_param,
                      Echo_FloatTensor:$new_exp_avg,
                      Echo_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $lr `,` $beta1 `,`
    $beta2 `,` $eps `,` $weight_decay `,` $step attr-dict `:` type($param)
  }];
  // Weight decay (2), m (3), v (4), sqrt (4), the two divisions and the
  // epsilon (3), the parameter (2).
  let flopsPerElement = 18;
}

#endif // ECHO_DIALECT_ECHO_IR_ECHOOPTIMIZEROPS_TD
