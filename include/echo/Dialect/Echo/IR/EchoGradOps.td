//===- EchoGradOps.td - Echo gradient, recompute, mask ops -*- tablegen -*-===//
//
// Part of the Echo project.
//
// Gradient ops `echo.<op>_grad` exist only where the mathematics needs one;
// other adjoints are built from forward ops (the adjoint of `linear` is two
// `matmul`s and a `reduce_sum`). Operand convention: the forward values the
// gradient reads first, then the adjoint of the forward result.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOGRADOPS_TD
#define ECHO_DIALECT_ECHO_IR_ECHOGRADOPS_TD

include "echo/Dialect/Echo/IR/EchoBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Activation gradients
//===----------------------------------------------------------------------===//

/// `dx = dy · f'(x)` where f' is written in terms of the forward output `y`.
class Echo_OutputActivationGradOp<string mnemonic, string forward,
                                  string formula, int flops>
    : Echo_GradOp<mnemonic, [Elementwise, SameOperandsAndResultType]> {
  let summary = "gradient of echo." # forward # " from its output";
  let description = [{
    `dx = }] # formula # [{`, element by element, where `y` is the forward
    output of `echo.}] # forward # [{` and `dy` its adjoint. The forward
    input is not read.

    ```mlir
    %dx = echo.}] # mnemonic # [{ %y, %dy : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$y, Echo_FloatTensor:$dy);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$y `,` $dy attr-dict `:` type($result)";
  let flopsPerElement = flops;
}

def Echo_TanhGradOp
    : Echo_OutputActivationGradOp<"tanh_grad", "tanh", "dy · (1 − y²)", 3>;
def Echo_SigmoidGradOp
    : Echo_OutputActivationGradOp<"sigmoid_grad", "sigmoid", "dy · y · (1 − y)", 3>;

def Echo_ReluGradOp : Echo_GradOp<"relu_grad", [Elementwise,
    AllTypesMatch<["dy", "result"]>, AllShapesMatch<["x", "dy"]>]> {
  let summary = "gradient of echo.relu";
  let description = [{
    `dx = x > 0 ? dy : 0`. `x` is either the forward input or an `i1` mask of
    `x > 0` (e.g. unpacked from a 1-bit stash).

    ```mlir
    %dx = echo.relu_grad %x, %dy : tensor<4x8xf32>, tensor<4x8xf32>
    %dx2 = echo.relu_grad %m, %dy : tensor<4x8xi1>, tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Echo_FloatTensor, Echo_MaskTensor]>:$x,
                       Echo_FloatTensor:$dy);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$x `,` $dy attr-dict `:` type($x) `,` type($dy)";
  let hasVerifier = 1;
  let flopsPerElement = 1;
}

/// `dx = dy · f'(x)` where f' is written in terms of the forward input `x`:
/// the activations whose output does not give their derivative. As in
/// Echo_UnaryElementwiseOp, ops with attributes set `arguments` and
/// `exampleAttributes`, and `details` adds to the description; an op that
/// also takes a mask for `x` relaxes `typeTraits`.
class Echo_InputActivationGradOp<string mnemonic, string forward,
    string formula, int flops = 1,
    list<Trait> typeTraits = [SameOperandsAndResultType]>
    : Echo_GradOp<mnemonic, !listconcat([Elementwise], typeTraits)> {
  string exampleAttributes = "";
  string details = "";

  let summary = "gradient of echo." # forward # " from its input";
  let description = [{
    `dx = }] # formula # [{`, element by element, where `x` is the forward
    input of `echo.}] # forward # [{` and `dy` the adjoint of its
    result.}] # details # [{

    ```mlir
    %dx = echo.}] # mnemonic # [{ %x, %dy}] # exampleAttributes
      # [{ : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x, Echo_FloatTensor:$dy);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$x `,` $dy attr-dict `:` type($result)";
  let flopsPerElement = flops;
}

// FLOPs as for the forward ops (EchoOps.td): exp and log1p 4, tanh and erf
// 6, every other arithmetic op and comparison 1; a select is free, as in
// relu_grad.
def Echo_ErfGradOp : Echo_InputActivationGradOp<"erf_grad", "erf",
    "dy · 2/√π · exp(−x²)", 8>;
def Echo_SiluGradOp : Echo_InputActivationGradOp<"silu_grad", "silu",
    "dy · s · (1 + x · (1 − s))", 9> {
  let details = " Here `s = sigmoid(x)`.";
}
def Echo_HardswishGradOp : Echo_InputActivationGradOp<"hardswish_grad",
    "hardswish", "x < −3 ? 0 : (x >= 3 ? dy : dy · (2x + 3) / 6)", 5> {
  let details = [{ The boundaries are those of
    PyTorch's vectorized CPU kernel: `x = −3` gives `−dy / 2`, `x = 3` gives
    `dy`, and a NaN `x` gives NaN.}];
}
def Echo_HardsigmoidGradOp : Echo_InputActivationGradOp<"hardsigmoid_grad",
    "hardsigmoid", "−3 < x < 3 ? dy / 6 : 0", 3> {
  let details = " A NaN `x` gives 0, as in PyTorch.";
}
// t and 1 − t² come from w = exp(−2·softplus(x)) (see the lowering):
// softplus 12, w 5, t and 1 − t² 7, sigmoid 4, the rest 4.
def Echo_MishGradOp : Echo_InputActivationGradOp<"mish_grad", "mish",
    "dy · (t + x · sigmoid(x) · (1 − t²))", 32> {
  let details = " Here `t = tanh(softplus(x))`.";
}
// FLOPs: GeluGradOp::estimateFlops, since the two forms differ.
def Echo_GeluGradOp : Echo_InputActivationGradOp<"gelu_grad", "gelu",
    "dy · (Φ(x) + x · φ(x))"> {
  let details = [{ Here `Φ(x) = (1 + erf(x / √2)) / 2`
    and `φ(x) = exp(−x² / 2) / √(2π)`. With `tanh_approximation` set, it is
    the derivative of the tanh form instead (PyTorch's
    `gelu_backward(approximate='tanh')`).}];
  let exampleAttributes = " {tanh_approximation = true}";
  let arguments = (ins Echo_FloatTensor:$x, Echo_FloatTensor:$dy,
                       DefaultValuedAttr<BoolAttr, "false">:$tanh_approximation);
  let hasCustomFlops = 1;
}
def Echo_ClampGradOp : Echo_InputActivationGradOp<"clamp_grad", "clamp",
    "min < x < max ? dy : 0", 2,
    [AllTypesMatch<["dy", "result"]>, AllShapesMatch<["x", "dy"]>]> {
  let details = [{ This is PyTorch's
    `hardtanh_backward`: zero at the bounds, and a NaN `x` gives 0. `x` is
    either the forward input or an `i1` mask of `min < x < max` (e.g.
    unpacked from a 1-bit stash), as for `echo.relu_grad`.}];
  let description = [{
    `dx = min < x < max ? dy : 0`, element by element, where `x` is the
    forward input of `echo.clamp` and `dy` the adjoint of its result.}]
    # details # [{

    ```mlir
    %dx = echo.clamp_grad %x, %dy {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
        : tensor<4x8xf32>, tensor<4x8xf32>
    %dx2 = echo.clamp_grad %m, %dy {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
        : tensor<4x8xi1>, tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Echo_FloatTensor, Echo_MaskTensor]>:$x,
                       Echo_FloatTensor:$dy, F64Attr:$min, F64Attr:$max);
  let assemblyFormat = "$x `,` $dy attr-dict `:` type($x) `,` type($dy)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reduction, shape and loss gradients
//===----------------------------------------------------------------------===//

def Echo_ReduceMaxGradOp : Echo_GradOp<"reduce_max_grad",
    [AllTypesMatch<["x", "result"]>, AllTypesMatch<["y", "dy"]>,
     AllElementTypesMatch<["x", "y"]>]> {
  let summary = "gradient of echo.reduce_max";
  let description = [{
    Routes `dy` to the elements of `x` equal to the maximum `y` (to the first
    one in row-major order when several are); zero elsewhere.

    ```mlir
    %dx = echo.reduce_max_grad %x, %y, %dy dims = [1]
        : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x, Echo_FloatTensor:$y,
                       Echo_FloatTensor:$dy, DenseI64ArrayAttr:$dimensions);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $y `,` $dy `dims` `=` $dimensions attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 2;
}

def Echo_SliceGradOp : Echo_GradOp<"slice_grad",
    [AllElementTypesMatch<["dy", "result"]>]> {
  let summary = "gradient of echo.slice";
  let description = [{
    Places `dy` at `offsets` in a zero tensor of the result type (the type of
    the forward input).

    ```mlir
    %dx = echo.slice_grad %dy {offsets = array<i64: 0, 4>}
        : (tensor<2x4xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$dy, DenseI64ArrayAttr:$offsets);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Echo_SoftmaxGradOp : Echo_GradOp<"softmax_grad",
    [SameOperandsAndResultType]> {
  let summary = "gradient of echo.softmax from its output";
  let description = [{
    `dx = y · (dy − sum_axis(dy · y))`.

    ```mlir
    %dx = echo.softmax_grad %y, %dy {axis = 1 : i64} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$y, Echo_FloatTensor:$dy, I64Attr:$axis);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$y `,` $dy attr-dict `:` type($result)";
  let hasVerifier = 1;
  let flopsPerElement = 4;
}

def Echo_DropoutGradOp : Echo_GradOp<"dropout_grad",
    [AllTypesMatch<["dy", "result"]>, AllShapesMatch<["mask", "dy"]>]> {
  let summary = "gradient of echo.dropout from its mask";
  let description = [{
    `dx = dy · mask / (1 − ratio)`.

    ```mlir
    %dx = echo.dropout_grad %m, %dy {ratio = 5.000000e-01 : f64}
        : (tensor<4x8xi1>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_MaskTensor:$mask, Echo_FloatTensor:$dy,
                       F64Attr:$ratio);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$mask `,` $dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let flopsPerElement = 2;
}

def Echo_EmbeddingGradOp : Echo_GradOp<"embedding_grad",
    [AllElementTypesMatch<["dy", "result"]>,
     DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface>]> {
  let summary = "gradient of echo.embedding with respect to the table";
  let description = [{
    Scatter-adds each row `dy[i..., :]` into row `ids[i...]` of a zero V×H
    table (the result type).

    ```mlir
    %dt = echo.embedding_grad %ids, %dy
        : (tensor<4x6xi32>, tensor<4x6x16xf32>) -> tensor<100x16xf32>
    ```
  }];
  let arguments = (ins Echo_IndexTensor:$ids, Echo_FloatTensor:$dy);
  let results = (outs Echo_FloatTensor2D:$result);
  let assemblyFormat = "$ids `,` $dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let flopsPerElement = 1;
}

def Echo_CrossEntropyGradOp : Echo_GradOp<"cross_entropy_grad",
    [AllTypesMatch<["logits", "result"]>,
     DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface,
                               ["getIgnoredIndex"]>]> {
  let summary = "gradient of echo.cross_entropy with respect to the logits";
  let description = [{
    `dlogits = dloss · (softmax(logits) − onehot(labels)) / N`, where N is
    `count` when given (a 0-d float: the rows that count in the whole loss
    of which `logits` is a chunk, known at run time: `echo.label_count` of
    a loss with `ignore_index`), else `total_rows` when given (the rows of
    the whole loss, of which `logits` is a chunk: `echo-recompute
    chunk-loss=`), else the rows of `logits` (with `ignore_index`: the rows
    whose label is not ignored).
    `dloss` has the logits' element type or is f32; f16/bf16 logits with an
    f32 `dloss` are computed in f32 and rounded once. `ignore_index` and
    `label_smoothing` are the loss's (`echo.cross_entropy`): an ignored
    row's gradient is 0, and smoothing ε makes the target
    `(1 − ε)·onehot + ε / C`.

    ```mlir
    %dl = echo.cross_entropy_grad %logits, %labels, %dloss
        : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
    %dc = echo.cross_entropy_grad %chunk, %chunk_labels, %dloss
        {total_rows = 8 : i64}
        : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
    %di = echo.cross_entropy_grad %chunk, %chunk_labels, %dloss, %count
        {ignore_index = -100 : i64}
        : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>, tensor<f32>)
        -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor2D:$logits, Echo_IndexTensor1D:$labels,
                       Echo_FloatTensor0D:$dloss,
                       Optional<Echo_FloatTensor0D>:$count,
                       OptionalAttr<Echo_PositiveI64>:$total_rows,
                       OptionalAttr<I64Attr>:$ignore_index,
                       OptionalAttr<F64Attr>:$label_smoothing);
  let results = (outs Echo_FloatTensor2D:$result);
  let assemblyFormat = [{
    $logits `,` $labels `,` $dloss (`,` $count^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 6;
}

def Echo_MseLossGradOp : Echo_GradOp<"mse_loss_grad",
    [AllTypesMatch<["pred", "target", "result"]>,
     AllElementTypesMatch<["pred", "dloss"]>]> {
  let summary = "gradient of echo.mse_loss with respect to the prediction";
  let description = [{
    `dpred = dloss · 2 · (pred − target) / numel`; the target's adjoint is
    its negation.

    ```mlir
    %dp = echo.mse_loss_grad %p, %t, %dloss
        : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$pred, Echo_FloatTensor:$target,
                       Echo_FloatTensor0D:$dloss);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = [{
    $pred `,` $target `,` $dloss attr-dict `:` functional-type(operands, results)
  }];
  let flopsPerElement = 3;
}

//===----------------------------------------------------------------------===//
// Convolution, pooling and normalization gradients
//===----------------------------------------------------------------------===//

def Echo_Conv2DGradInputOp : Echo_GradOp<"conv2d_grad_input",
    [Echo_LibraryCallOpInterface,
     AllElementTypesMatch<["w", "dy", "result"]>]> {
  let libraryCall = "::mlir::echo::runtime::kConv2DBackwardData";
  let libraryCall16Bit = 1;
  let libraryCallInputs = ["W", "Dy"];
  let libraryCallScalars = Echo_ConvLibraryCallScalars;
  let libraryCallPackedDims = [4, 3, 3];
  let summary = "gradient of echo.conv2d with respect to its input";
  let description = [{
    The transposed convolution of `dy` (N×F×OH×OW) with the filter `w`
    (F×(C/groups)×KH×KW) into the forward input's type (cuDNN's backward
    data); `groups` as in `echo.conv2d`.

    ```mlir
    %dx = echo.conv2d_grad_input %w, %dy {padding = array<i64: 1, 1>,
        strides = array<i64: 1, 1>}
        : (tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor4D:$w, Echo_FloatTensor4D:$dy,
                       Echo_PositivePair:$strides,
                       Echo_NonNegativePair:$padding,
                       DefaultValuedAttr<Echo_PositiveI64, "1">:$groups);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$w `,` $dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let computeHeavy = 1;
  let hasCustomFlops = 1;
}

def Echo_Conv2DGradFilterOp : Echo_GradOp<"conv2d_grad_filter",
    [Echo_LibraryCallOpInterface,
     AllElementTypesMatch<["x", "dy", "result"]>]> {
  let libraryCall = "::mlir::echo::runtime::kConv2DBackwardFilter";
  let libraryCall16Bit = 1;
  let libraryCallInputs = ["X", "Dy"];
  let libraryCallScalars = Echo_ConvLibraryCallScalars;
  let libraryCallPackedDims = [3, 3, 4];
  let summary = "gradient of echo.conv2d with respect to its filter";
  let description = [{
    Correlates the forward input `x` with `dy` into the filter's type
    (cuDNN's backward filter); `groups` as in `echo.conv2d`.

    ```mlir
    %dw = echo.conv2d_grad_filter %x, %dy {padding = array<i64: 1, 1>,
        strides = array<i64: 1, 1>}
        : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor4D:$x, Echo_FloatTensor4D:$dy,
                       Echo_PositivePair:$strides,
                       Echo_NonNegativePair:$padding,
                       DefaultValuedAttr<Echo_PositiveI64, "1">:$groups);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$x `,` $dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let computeHeavy = 1;
  let hasCustomFlops = 1;
}

def Echo_MaxPool2DGradOp : Echo_GradOp<"max_pool2d_grad",
    [AllTypesMatch<["x", "result"]>, AllElementTypesMatch<["x", "dy"]>]> {
  let summary = "gradient of echo.max_pool2d";
  let description = [{
    Routes each element of `dy` to the first maximum of its window in `x`
    (row-major within the window); overlapping windows accumulate.
    `ceil_mode` as in `echo.max_pool2d`.

    ```mlir
    %dx = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>,
        padding = array<i64: 0, 0>, strides = array<i64: 2, 2>}
        : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor4D:$x, Echo_FloatTensor4D:$dy,
                       Echo_PositivePair:$kernel, Echo_PositivePair:$strides,
                       Echo_NonNegativePair:$padding,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$x `,` $dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCustomFlops = 1;
}

def Echo_AvgPool2DGradOp : Echo_GradOp<"avg_pool2d_grad",
    [AllElementTypesMatch<["dy", "result"]>]> {
  let summary = "gradient of echo.avg_pool2d";
  let description = [{
    Spreads each element of `dy` evenly over the positions its window
    counts, into the forward input's type: its input positions get
    `dy / count`, with the count of `echo.avg_pool2d` (`ceil_mode`,
    `count_include_pad` as there). Reads no forward value.

    ```mlir
    %dx = echo.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>,
        padding = array<i64: 0, 0>, strides = array<i64: 2, 2>}
        : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor4D:$dy, Echo_PositivePair:$kernel,
                       Echo_PositivePair:$strides,
                       Echo_NonNegativePair:$padding,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCustomFlops = 1;
}

def Echo_AdaptiveAvgPool2DGradOp : Echo_GradOp<"adaptive_avg_pool2d_grad",
    [AllElementTypesMatch<["dy", "result"]>]> {
  let summary = "gradient of echo.adaptive_avg_pool2d";
  let description = [{
    Spreads each element of `dy` (N×C×OH×OW) evenly over its window of the
    forward input, into the result type (N×C×H×W, the input's); windows of
    `echo.adaptive_avg_pool2d` (the output size is `dy`'s). Overlapping
    windows accumulate. Reads no forward value.

    ```mlir
    %dx = echo.adaptive_avg_pool2d_grad %dy
        : (tensor<2x3x3x3xf32>) -> tensor<2x3x7x7xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor4D:$dy);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCustomFlops = 1;
}

/// `echo.batch_norm_grad`, `echo.layer_norm_grad`: the statistics are
/// recomputed from `x`, so only `x` and `gamma` are read.
class Echo_NormGradOp<string mnemonic, string forward>
    : Echo_GradOp<mnemonic, [AllTypesMatch<["x", "dy", "dx"]>,
        AllTypesMatch<["gamma", "dgamma", "dbeta"]>,
        AllElementTypesMatch<["x", "gamma"]>]> {
  let summary = "gradient of echo." # forward;
  let description = [{
    Returns the adjoints of `x`, `gamma` and `beta` of `echo.}] # forward # [{`;
    the normalization statistics are recomputed from `x`.

    ```mlir
    %dx, %dg, %db = echo.}] # mnemonic # [{ %x, %g, %dy {epsilon = 1.000000e-05 : f64}
        : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>)
        -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x, Echo_FloatTensor1D:$gamma,
                       Echo_FloatTensor:$dy, F64Attr:$epsilon);
  let results = (outs Echo_FloatTensor:$dx, Echo_FloatTensor1D:$dgamma,
                      Echo_FloatTensor1D:$dbeta);
  let assemblyFormat = [{
    $x `,` $gamma `,` $dy attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 12;
}

def Echo_BatchNormGradOp : Echo_NormGradOp<"batch_norm_grad", "batch_norm">;
def Echo_LayerNormGradOp : Echo_NormGradOp<"layer_norm_grad", "layer_norm">;

//===----------------------------------------------------------------------===//
// Recomputation and masks
//===----------------------------------------------------------------------===//

def Echo_RecomputeOp : Echo_Op<"recompute", [IsolatedFromAbove,
    SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "re-executes a piece of the forward graph in the backward pass";
  let description = [{
    The body is a clone of forward ops that recomputes values the backward
    pass needs from the values passed as `inputs` (stashed feature maps,
    parameters, data). It is isolated from above: everything it reads comes
    in through its block arguments, which match `inputs` one to one. The
    values yielded are the op's results. `echo-recompute` places one such
    region right before the first backward use of its results, shared by all
    gradient ops that need them.

    ```mlir
    %h = echo.recompute (%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
      %m = echo.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %t = echo.tanh %m : tensor<4x8xf32>
      echo.yield %t : tensor<4x8xf32>
    }
    ```
  }];
  // Any statically shaped tensor: an adopted step (echo-adopt-training-step)
  // recomputes its producer's ops on its producer's element types.
  let arguments = (ins Variadic<Echo_AnyStaticTensor>:$inputs);
  let results = (outs Variadic<Echo_AnyStaticTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCustomFlops = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs)>
  ];
  let echoExtraDecls = [{
    /// The single block of the body.
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The terminator of the body.
    YieldOp getYield();
    /// The bytes its body's ops read and write (CostOpInterface).
    int64_t estimateBytesAccessed();
  }];
}

def Echo_YieldOp : Echo_Op<"yield", [Pure, ReturnLike, Terminator,
    HasParent<"RecomputeOp">]> {
  let summary = "yields the recomputed values of an echo.recompute region";
  let description = [{
    Terminates the body of `echo.recompute`; its operands become the
    results of the enclosing op.

    ```mlir
    echo.yield %t : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Echo_AnyStaticTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let bytesAccessed = "0";
}

def Echo_PackMaskOp : Echo_Op<"pack_mask", [Pure]> {
  let summary = "packs an i1 mask into bits, 8 per byte";
  let description = [{
    Element `i` of the row-major flattened mask becomes bit `i % 8` of byte
    `i / 8`; the result has ceil(numel / 8) bytes, unused bits are zero.

    ```mlir
    %p = echo.pack_mask %m : (tensor<4x8xi1>) -> tensor<4xi8>
    ```
  }];
  let arguments = (ins Echo_MaskTensor:$mask);
  let results = (outs Echo_PackedMaskTensor:$result);
  let assemblyFormat = "$mask attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let flopsPerElement = 1;
}

def Echo_UnpackMaskOp : Echo_Op<"unpack_mask", [Pure]> {
  let summary = "unpacks bits into an i1 mask of the result shape";
  let description = [{
    The inverse of `echo.pack_mask`; the result type gives the mask shape.

    ```mlir
    %m = echo.unpack_mask %p : (tensor<4xi8>) -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Echo_PackedMaskTensor:$packed);
  let results = (outs Echo_MaskTensor:$result);
  let assemblyFormat = "$packed attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let flopsPerElement = 1;
}

//===----------------------------------------------------------------------===//
// Host offload (SuperNeurons' unified tensor pool)
//===----------------------------------------------------------------------===//

/// The results of the op live in host memory: the device's live bytes
/// (MemoryAnalysis, the arena plan) do not count them; the report counts
/// them as host bytes.
def Echo_HostResults : NativeOpTrait<"HostResults"> {
  let cppNamespace = "::mlir::echo";
}

/// The host pool and the copy stream: orders the transfer ops among
/// themselves.
def Echo_TransferResource : Resource<"::mlir::echo::TransferResource">;

def Echo_OffloadOp : Echo_Op<"offload", [Echo_HostResults,
    DeclareOpInterfaceMethods<Echo_MemoryCategoryOpInterface>,
    SameOperandsAndResultType,
    MemoryEffects<[MemRead<Echo_TransferResource>,
                   MemWrite<Echo_TransferResource>]>]> {
  let summary = "copies a stashed value to host memory";
  let description = [{
    Starts copying `value` from the device to the host pool (on the copy
    stream, after the ops before it). The result is the host copy: only
    `echo.fetch` reads it. The device buffer of `value` must stay alive
    until the copy is done: an `echo.transfer_wait` of `value` after the
    offload marks that point (`echo-recompute` places it where the bandwidth
    model says the copy ends).

    ```mlir
    %h = echo.offload %x : tensor<4x8xf32>
    echo.transfer_wait %x : tensor<4x8xf32>
    ...
    %y = echo.fetch %h : tensor<4x8xf32>
    echo.transfer_wait %y : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$value);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Echo_FetchOp : Echo_Op<"fetch", [SameOperandsAndResultType,
    DeclareOpInterfaceMethods<Echo_MemoryCategoryOpInterface>,
    MemoryEffects<[MemRead<Echo_TransferResource>,
                   MemWrite<Echo_TransferResource>]>]> {
  let summary = "copies an offloaded value back to the device";
  let description = [{
    Starts copying the host copy made by `echo.offload` into a new device
    buffer (on the copy stream). The result may be read only after an
    `echo.transfer_wait` of it; the host copy is released there.

    ```mlir
    %y = echo.fetch %h : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$host);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$host attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Echo_TransferWaitOp : Echo_Op<"transfer_wait", [
    MemoryEffects<[MemRead<Echo_TransferResource>,
                   MemWrite<Echo_TransferResource>]>]> {
  let summary = "waits for the transfer of a value";
  let description = [{
    The ops after it run after the transfer of `value` is done: the copy
    to the host of an `echo.offload`'s operand (after which its device
    bytes may be reused), or the copy back of an `echo.fetch`'s result
    (after which it may be read). Reading `value` keeps it alive to here.

    ```mlir
    echo.transfer_wait %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
  let hasVerifier = 1;
  let echoExtraDecls = [{
    /// The offload or fetch whose transfer this waits for: the fetch that
    /// defines the value, or the last offload of it before this op in its
    /// block (null when the IR does not verify).
    ::mlir::Operation *getTransfer();
  }];
}

#endif // ECHO_DIALECT_ECHO_IR_ECHOGRADOPS_TD
