//===- EchoLossOps.td - Per-row losses --------------------*- tablegen -*-===//
//
// Part of the Echo project.
//
// The per-row softmax cross-entropy and its gradient: PyTorch's
// `reduction='none'`, from which the importer builds cross-entropies with
// class weights and per-token losses a user weights or masks by hand,
// holding no more than `echo.cross_entropy` holds (the logits and the
// labels). Included from EchoOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOLOSSOPS_TD
#define ECHO_DIALECT_ECHO_IR_ECHOLOSSOPS_TD

include "echo/Dialect/Echo/IR/EchoBase.td"

def Echo_CrossEntropyRowsOp : Echo_ForwardOp<"cross_entropy_rows",
    [DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface,
                               ["getIgnoredIndex"]>]> {
  let autocast = "Keep";
  let summary = "per-row softmax cross-entropy";
  let description = [{
    `result[n] = logsumexp(logits[n, :]) − logits[n, labels[n]]` for N×C
    `logits` and N `i32` labels in [0, C): `echo.cross_entropy`'s terms
    before their mean (PyTorch's `cross_entropy(..., reduction='none')`),
    with its `ignore_index` (an ignored row's term is 0, and the value is
    accepted in a caller's labels) and `label_smoothing` ε (each term
    `logsumexp − (1 − ε)·logits[n, label] − (ε / C)·Σ_c logits[n, c]`). The
    result has the logits' element type or is f32. Its gradient,
    `echo.cross_entropy_rows_grad`, reads the logits and the labels, as
    `echo.cross_entropy`'s does.

    ```mlir
    %t = echo.cross_entropy_rows %logits, %labels {ignore_index = -100 : i64}
        : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor2D:$logits, Echo_IndexTensor1D:$labels,
                       OptionalAttr<I64Attr>:$ignore_index,
                       OptionalAttr<F64Attr>:$label_smoothing);
  let results = (outs Echo_FloatTensor1D:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 5;
  let gradientReadsOperands = [0, 1];
}

def Echo_CrossEntropyRowsGradOp : Echo_GradOp<"cross_entropy_rows_grad",
    [AllTypesMatch<["logits", "result"]>,
     DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface,
                               ["getIgnoredIndex"]>]> {
  let summary = "gradient of echo.cross_entropy_rows";
  let description = [{
    `dlogits[n, :] = dloss[n] · (softmax(logits[n, :]) − target[n, :])`
    with `target` the one-hot label (with smoothing ε: `(1 − ε)·onehot +
    ε / C`); an ignored row's gradient is 0. `dloss` (N) has the logits'
    element type or is f32; f16/bf16 logits with an f32 `dloss` are
    computed in f32 and rounded once.

    ```mlir
    %dl = echo.cross_entropy_rows_grad %logits, %labels, %dloss
        : (tensor<4x10xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor2D:$logits, Echo_IndexTensor1D:$labels,
                       Echo_FloatTensor1D:$dloss,
                       OptionalAttr<I64Attr>:$ignore_index,
                       OptionalAttr<F64Attr>:$label_smoothing);
  let results = (outs Echo_FloatTensor2D:$result);
  let assemblyFormat = [{
    $logits `,` $labels `,` $dloss attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 6;
}

#endif // ECHO_DIALECT_ECHO_IR_ECHOLOSSOPS_TD
