//===- EchoMoreOps.td - Ops of models PyTorch users write --*- tablegen -*-===//
//
// Part of the Echo project.
//
// Forward ops and their gradients for idioms of current PyTorch models that
// the importer maps one to one: stop-gradients (`detach`, `torch.no_grad()`
// targets), the sinusoids of timestep and rotary embeddings, transposed
// convolution (decoders and generators) and nearest/bilinear upsampling
// (`F.interpolate`). Included from EchoOps.td, whose op families they reuse.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOMOREOPS_TD
#define ECHO_DIALECT_ECHO_IR_ECHOMOREOPS_TD

include "echo/Dialect/Echo/IR/EchoBase.td"

//===----------------------------------------------------------------------===//
// Stop-gradient
//===----------------------------------------------------------------------===//

def Echo_StopGradientOp : Echo_ForwardOp<"stop_gradient",
    [SameOperandsAndResultType, Echo_ViewResult]> {
  let autocast = "Follow";
  let summary = "identity whose operand receives no gradient";
  let description = [{
    `result = x`; the adjoint of `x` gets nothing from the result: what is
    computed from the result is differentiated as if it were computed from
    a constant of `x`'s value. PyTorch's `x.detach()` and values computed
    under `torch.no_grad()` (the targets of EMA, BYOL and DINO). The op is
    pure and free (the lowering returns `x` itself), so recomputing it costs
    nothing; it is never folded away before `echo-autodiff`.

    ```mlir
    %t = echo.stop_gradient %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  // The result is `x`'s buffer.
  let bytesAccessed = "0";
  let echoExtraDecls = [{
    /// `x` receives no gradient (DifferentiableOpInterface): echo-autodiff
    /// does not propagate activity through the op.
    bool isDifferentiableOperand(unsigned) { return false; }
  }];
}

//===----------------------------------------------------------------------===//
// Sinusoids
//===----------------------------------------------------------------------===//

// The gradients read `x` (dy·cos(x), −dy·sin(x)) and are built from the
// forward ops; FLOPs count the function as exp's.
def Echo_SinOp : Echo_UnaryElementwiseOp<"sin", "sin(x)", [0], [], 4> {
  let details = [{ Sinusoidal timestep embeddings and
    rotary tables computed in the forward pass; the gradient is
    `dy · cos(x)`.}];
}
def Echo_CosOp : Echo_UnaryElementwiseOp<"cos", "cos(x)", [0], [], 4> {
  let details = " The gradient is `−dy · sin(x)`.";
}

//===----------------------------------------------------------------------===//
// Transposed convolution
//===----------------------------------------------------------------------===//

def Echo_ConvTranspose2DOp : Echo_ComputeHeavyOp<"conv_transpose2d",
    [AllElementTypesMatch<["x", "w", "result"]>]> {
  // The transposed convolution is conv2d_grad_input's computation with `x`
  // in the place of `dy`: cuDNN's and oneDNN's backward data. The output
  // buffer's extent carries `output_padding`.
  let libraryCall = "::mlir::echo::runtime::kConv2DBackwardData";
  let libraryCall16Bit = 1;
  let libraryCallInputs = ["W", "X"];
  let libraryCallScalars = Echo_ConvLibraryCallScalars;
  let summary = "2-D transposed convolution, NCHW";
  let description = [{
    PyTorch's `conv_transpose2d` (`nn.ConvTranspose2d`, dilation 1): `x`
    [N, C, H, W], `w` [C, F/groups, KH, KW] (the layout of
    `ConvTranspose2d.weight`: input channels first), result [N, F, OH, OW]
    with OH = (H − 1)·strides[0] − 2·padding[0] + KH + output_padding[0]
    (OW likewise). It is the gradient of `echo.conv2d` with respect to its
    input (`echo.conv2d_grad_input` with `x` as `dy`): every input pixel
    scatters its channels through the filter into a KH×KW window of the
    output, windows `strides` apart, and `padding` rows and columns are
    cropped from each side. `output_padding` (absent: 0; each smaller than
    its stride) adds rows and columns at the bottom and right. With
    `groups`, output channel f of group g reads the input channels of g
    only. Its gradients are a convolution of `dy` with `w` (for `x`) and
    the filter gradient of that convolution (for `w`); they read `x` and
    `w`, never the result.

    ```mlir
    %y = echo.conv_transpose2d %x, %w {padding = array<i64: 1, 1>,
        strides = array<i64: 2, 2>, output_padding = array<i64: 1, 1>}
        : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x8x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor4D:$x, Echo_FloatTensor4D:$w,
                       Echo_PositivePair:$strides,
                       Echo_NonNegativePair:$padding,
                       OptionalAttr<Echo_NonNegativePair>:$output_padding,
                       DefaultValuedAttr<Echo_PositiveI64, "1">:$groups);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$x `,` $w attr-dict `:` functional-type(operands, results)";
  let echoExtraDecls = [{
    /// `output_padding`, [0, 0] when absent.
    ::llvm::SmallVector<int64_t, 2> getOutputPaddingOrZero() {
      if (auto padding = getOutputPadding())
        return ::llvm::SmallVector<int64_t, 2>(*padding);
      return {0, 0};
    }
  }];
}

//===----------------------------------------------------------------------===//
// Upsampling
//===----------------------------------------------------------------------===//

/// The attributes both upsampling ops and their gradients take: PyTorch's
/// scale factors (`F.interpolate(scale_factor=...)`), which set the source
/// coordinate of an output position instead of the ratio of the extents.
defvar Echo_UpsampleScaleArguments = (ins OptionalAttr<F64Attr>:$scales_h,
                                          OptionalAttr<F64Attr>:$scales_w);

defvar Echo_UpsampleScaleDescription = [{
    An output index `i` of OH reads the source coordinate `i · r` (nearest)
    or `(i + 0.5) · r − 0.5`, clamped at 0 (bilinear), with the ratio
    r = H / OH, or 1 / `scales_h` when it is given (PyTorch's
    `scale_factor`, which `F.interpolate` passes on), computed in f32 as
    PyTorch's CPU kernels compute it; OH = H copies rows, and nearest's
    OH = 2·H takes row i / 2, whatever `scales_h` says. Columns likewise
    with W, OW and `scales_w`.
}];

/// `echo.upsample_nearest2d`, `echo.upsample_bilinear2d` over NCHW: the
/// result type gives the output extents. A fixed linear map: the gradient
/// (`<mnemonic>_grad`) reads no forward value.
class Echo_Upsample2DOp<string mnemonic, string method, string details,
                        dag extraArguments = (ins), int flops = 1>
    : Echo_ForwardOp<mnemonic, [AllElementTypesMatch<["x", "result"]>]> {
  let autocast = "Follow";
  let summary = "2-D " # method # " upsampling, NCHW";
  let description = [{
    Resizes the spatial dims of `x` [N, C, H, W] to those of the result
    [N, C, OH, OW] by }] # method # [{ interpolation, as PyTorch's
    `F.interpolate(mode=...)` (OH may be below H).}] # details
    # Echo_UpsampleScaleDescription # [{
    The gradient is `echo.}] # mnemonic # [{_grad`, which reads no
    forward value.

    ```mlir
    %y = echo.}] # mnemonic # [{ %x
        : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
    %z = echo.}] # mnemonic # [{ %x {scales_h = 1.7 : f64, scales_w = 1.7 : f64}
        : (tensor<2x3x5x5xf32>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = !con((ins Echo_FloatTensor4D:$x),
                       Echo_UpsampleScaleArguments, extraArguments);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let flopsPerElement = flops;
}

// One read per output element.
def Echo_UpsampleNearest2DOp : Echo_Upsample2DOp<"upsample_nearest2d",
    "nearest-neighbour", [{ Output row i reads input row
    min(floor(i · r), H − 1) (PyTorch's `mode='nearest'`).}]>;
// Four products and three sums per output element.
def Echo_UpsampleBilinear2DOp : Echo_Upsample2DOp<"upsample_bilinear2d",
    "bilinear", [{ Output row i mixes input rows
    h0 = floor(s) and min(h0 + 1, H − 1) with weights 1 − (s − h0) and
    s − h0 for the source coordinate s. With `align_corners` (absent:
    false) s = i · (H − 1) / (OH − 1) (0 for OH = 1), the corners of input
    and output aligned; `scales_h`/`scales_w` are then not allowed.}],
    (ins DefaultValuedAttr<BoolAttr, "false">:$align_corners), 7>;

/// The gradients of the upsampling ops: every element of `dy` goes back to
/// the input positions its output read, with the weight it read them with;
/// the result type is the forward input's.
class Echo_Upsample2DGradOp<string mnemonic, string forward,
                            dag extraArguments = (ins), int flops = 1>
    : Echo_GradOp<mnemonic, [AllElementTypesMatch<["dy", "result"]>]> {
  let summary = "gradient of echo." # forward;
  let description = [{
    Scatters each element of `dy` [N, C, OH, OW] to the input positions
    `echo.}] # forward # [{` read it from, times the weights it read them
    with, into the forward input's type [N, C, H, W]; the attributes are the
    forward op's. Reads no forward value. Each input position sums, in
    output order, the elements of `dy` that read it (PyTorch's backward
    kernel adds them in that order).

    ```mlir
    %dx = echo.}] # mnemonic # [{ %dy
        : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
    ```
  }];
  let arguments = !con((ins Echo_FloatTensor4D:$dy),
                       Echo_UpsampleScaleArguments, extraArguments);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$dy attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let flopsPerElement = flops;
}

def Echo_UpsampleNearest2DGradOp
    : Echo_Upsample2DGradOp<"upsample_nearest2d_grad", "upsample_nearest2d">;
def Echo_UpsampleBilinear2DGradOp
    : Echo_Upsample2DGradOp<"upsample_bilinear2d_grad", "upsample_bilinear2d",
        (ins DefaultValuedAttr<BoolAttr, "false">:$align_corners), 7>;

#endif // ECHO_DIALECT_ECHO_IR_ECHOMOREOPS_TD
