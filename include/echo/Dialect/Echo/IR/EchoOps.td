//===- EchoOps.td - Echo forward ops -----------------------*- tablegen -*-===//
//
// Part of the Echo project.
//
// The forward ops of a training graph. Names, operand order and attribute
// names and kinds are fixed by the external contract (shared/SPEC.md).
// Gradient, recompute and mask ops are in EchoGradOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOOPS_TD
#define ECHO_DIALECT_ECHO_IR_ECHOOPS_TD

include "echo/Dialect/Echo/IR/EchoBase.td"

//===----------------------------------------------------------------------===//
// Elementwise families
//===----------------------------------------------------------------------===//

/// `echo.add` ... `echo.div`: two operands of the same type.
class Echo_BinaryElementwiseOp<string mnemonic, string formula,
                               list<int> readsOperands, list<int> readsResults,
                               int flops = 1>
    : Echo_ForwardOp<mnemonic, [Elementwise, SameOperandsAndResultType]> {
  let summary = "elementwise " # formula;
  let description = [{
    Computes `}] # formula # [{` element by element on two tensors of the
    same type.

    ```mlir
    %r = echo.}] # mnemonic # [{ %a, %b : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$lhs, Echo_FloatTensor:$rhs);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let autocast = "Follow";
  let gradientReadsOperands = readsOperands;
  let gradientReadsResults = readsResults;
  let flopsPerElement = flops;
}

def Echo_AddOp : Echo_BinaryElementwiseOp<"add", "lhs + rhs", [], []>;
def Echo_SubOp : Echo_BinaryElementwiseOp<"sub", "lhs - rhs", [], []>;
def Echo_MulOp : Echo_BinaryElementwiseOp<"mul", "lhs * rhs", [0, 1], []>;
// d(a/b)/db = -y / b: the gradient reads the divisor and the quotient.
def Echo_DivOp : Echo_BinaryElementwiseOp<"div", "lhs / rhs", [1], [0]>;

/// `echo.neg` ... `echo.gelu`: one operand, result of the same type. Ops
/// with attributes (`clamp`'s bounds, `gelu`'s flag) set `arguments` and
/// `exampleAttributes`; `details` adds to the description.
class Echo_UnaryElementwiseOp<string mnemonic, string formula,
                              list<int> readsOperands, list<int> readsResults,
                              int flops = 1>
    : Echo_ForwardOp<mnemonic, [Elementwise, SameOperandsAndResultType]> {
  /// The attribute dictionary of the description's example, with a leading
  /// space (`" {min = ...}"`), or empty.
  string exampleAttributes = "";
  /// Sentences that follow the formula in the description (attribute
  /// semantics, NaN), each starting with a space.
  string details = "";

  let summary = "elementwise " # formula;
  let description = [{
    Computes `}] # formula # [{` element by element.}] # details # [{

    ```mlir
    %y = echo.}] # mnemonic # [{ %x}] # exampleAttributes
      # [{ : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let autocast = "Follow";
  let gradientReadsOperands = readsOperands;
  let gradientReadsResults = readsResults;
  let flopsPerElement = flops;
}

def Echo_NegOp : Echo_UnaryElementwiseOp<"neg", "-x", [], []>;
def Echo_ExpOp : Echo_UnaryElementwiseOp<"exp", "exp(x)", [], [0], 4>;
def Echo_LogOp : Echo_UnaryElementwiseOp<"log", "log(x)", [0], [], 4>;
def Echo_TanhOp : Echo_UnaryElementwiseOp<"tanh", "tanh(x)", [], [0], 6>;
def Echo_SigmoidOp
    : Echo_UnaryElementwiseOp<"sigmoid", "1 / (1 + exp(-x))", [], [0], 4>;
def Echo_ReluOp : Echo_UnaryElementwiseOp<"relu", "max(x, 0)", [0], []> {
  // relu_grad needs only `x > 0`.
  let gradientReadBinarizable = 1;
}
def Echo_SqrtOp : Echo_UnaryElementwiseOp<"sqrt", "sqrt(x)", [], [0], 4>;

// The activations below read their input: their gradients are PyTorch's,
// written in `x` (echo.<op>_grad in EchoGradOps.td). FLOPs count a
// transcendental function as the ops above do (exp, log1p 4; tanh, erf 6)
// and every other arithmetic op as 1.
def Echo_ErfOp : Echo_UnaryElementwiseOp<"erf", "erf(x)", [0], [], 6>;
// x · sigmoid(x): sigmoid (4) and a product.
def Echo_SiluOp
    : Echo_UnaryElementwiseOp<"silu", "x · sigmoid(x)", [0], [], 5> {
  let details = " SiLU (swish), `torch.nn.functional.silu`.";
}
// x + 3, max, min, the product and the division by 6.
def Echo_HardswishOp : Echo_UnaryElementwiseOp<"hardswish",
    "x · min(max(x + 3, 0), 6) / 6", [0], [], 5> {
  let details = " As `torch.nn.functional.hardswish`; NaN propagates.";
}
def Echo_HardsigmoidOp : Echo_UnaryElementwiseOp<"hardsigmoid",
    "min(max(x + 3, 0), 6) / 6", [0], [], 4> {
  let details = " As `torch.nn.functional.hardsigmoid`; NaN propagates.";
}
// softplus as max(x, 0) + log1p(exp(-|x|)) (|x|, negation, exp, log1p, max,
// add: 12), tanh (6) and the product.
def Echo_MishOp : Echo_UnaryElementwiseOp<"mish",
    "x · tanh(softplus(x))", [0], [], 19> {
  let details = [{ `softplus(x) = log(1 + exp(x))`,
    evaluated as `max(x, 0) + log1p(exp(−|x|))` so that it never overflows.}];
}
// FLOPs: GeluOp::estimateFlops, since the two forms differ.
def Echo_GeluOp : Echo_UnaryElementwiseOp<"gelu",
    "0.5 · x · (1 + erf(x / √2))", [0], []> {
  let details = [{ With `tanh_approximation` set,
    computes PyTorch's `approximate='tanh'` form
    `0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))` instead; absent or
    false is the exact form, PyTorch's default.}];
  let exampleAttributes = " {tanh_approximation = true}";
  let arguments = (ins Echo_FloatTensor:$x,
                       DefaultValuedAttr<BoolAttr, "false">:$tanh_approximation);
  let hasCustomFlops = 1;
}
def Echo_ClampOp : Echo_UnaryElementwiseOp<"clamp",
    "min(max(x, min), max)", [0], [], 2> {
  let details = [{ `min <= max` (either may be infinite,
    for a one-sided clamp); NaN propagates, as in `torch.clamp`. `relu6` is
    `clamp` to [0, 6] and `hardtanh(a, b)` is `clamp` to [a, b].}];
  let exampleAttributes =
      " {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}";
  let arguments = (ins Echo_FloatTensor:$x, F64Attr:$min, F64Attr:$max);
  let hasVerifier = 1;
  // clamp_grad needs only `min < x < max`, as relu_grad needs `x > 0`.
  let gradientReadBinarizable = 1;
  let gradientReadMask = [{
    ::mlir::echo::buildInsideMask(builder, loc, value,
                                  getMin().convertToDouble(),
                                  getMax().convertToDouble())
  }];
}

def Echo_SelectOp : Echo_ForwardOp<"select", [Elementwise,
    AllTypesMatch<["a", "b", "result"]>, AllShapesMatch<["cond", "a"]>]> {
  let summary = "elementwise choice between two tensors by a mask";
  let description = [{
    `result = cond ? a : b` element by element (`torch.where`; PyTorch's
    `masked_fill` and attention masks). `cond` is an `i1` mask of the shape
    of `a` and `b`; it is data or a constant and receives no gradient. A NaN
    in the element not chosen does not reach the result.

    ```mlir
    %y = echo.select %m, %a, %b : tensor<4x8xi1>, tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_MaskTensor:$cond, Echo_FloatTensor:$a,
                       Echo_FloatTensor:$b);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = [{
    $cond `,` $a `,` $b attr-dict `:` type($cond) `,` type($result)
  }];
  let autocast = "Follow";
  // da = select(cond, dy, 0), db = select(cond, 0, dy).
  let gradientReadsOperands = [0];
  let flopsPerElement = 1;
}

def Echo_CastOp : Echo_ForwardOp<"cast", [Elementwise,
    AllShapesMatch<["x", "result"]>]> {
  let summary = "elementwise conversion between f32, f16 and bf16";
  let description = [{
    Converts every element of `x` to the result's element type: widening
    (`arith.extf`) is exact, narrowing (`arith.truncf`) rounds to nearest
    even. The gradient is the cast back to `x`'s type. `echo-autocast` puts
    casts at the boundaries between low-precision and f32 ops; a cast to the
    type `x` has is `x`, and a cast of a cast through f32 (which holds f16
    and bf16 exactly) folds to one cast.

    ```mlir
    %y = echo.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($result)";
  let hasFolder = 1;
  let flopsPerElement = 1;
}

//===----------------------------------------------------------------------===//
// Shape and reduction ops
//===----------------------------------------------------------------------===//

def Echo_BroadcastOp : Echo_ForwardOp<"broadcast",
    [AllElementTypesMatch<["x", "result"]>]> {
  let autocast = "Follow";
  let summary = "broadcast by adding dimensions";
  let description = [{
    Like `linalg.broadcast`: `dimensions` lists, in increasing order, the
    dimensions of the result that are added; the remaining result dimensions
    are those of `x`, in order. `x` is float data, `i32` ids or an `i1`
    mask (not differentiated).

    ```mlir
    %y = echo.broadcast %b dims = [0] : (tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_DataOrMaskTensor:$x, DenseI64ArrayAttr:$dimensions);
  let results = (outs Echo_DataOrMaskTensor:$result);
  let assemblyFormat = [{
    $x `dims` `=` $dimensions attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

/// `echo.reduce_sum`, `echo.reduce_max`: the listed dimensions are removed.
class Echo_ReduceOp<string mnemonic, string combiner, list<int> readsOperands,
                    list<int> readsResults, list<Trait> traits = []>
    : Echo_ForwardOp<mnemonic, !listconcat(traits,
        [AllElementTypesMatch<["x", "result"]>])> {
  let summary = "reduction by " # combiner # " over dimensions";
  let description = [{
    Reduces `x` by }] # combiner # [{ over `dimensions` (strictly increasing),
    which are removed from the result shape.

    ```mlir
    %s = echo.}] # mnemonic # [{ %x dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x, DenseI64ArrayAttr:$dimensions);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = [{
    $x `dims` `=` $dimensions attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let gradientReadsOperands = readsOperands;
  let gradientReadsResults = readsResults;
  let flopsPerElement = 1;
}

// A sum is accumulated and kept in f32 under autocast.
def Echo_ReduceSumOp : Echo_ReduceOp<"reduce_sum", "sum", [], [],
    [DeclareOpInterfaceMethods<Echo_RowChunkOpInterface>]> {
  let autocast = "Full";
}
// The gradient routes to the arg-max: it compares `x` with the maximum.
def Echo_ReduceMaxOp : Echo_ReduceOp<"reduce_max", "maximum", [0], [0]> {
  let autocast = "Follow";
}

def Echo_SliceOp : Echo_ForwardOp<"slice",
    [AllElementTypesMatch<["x", "result"]>]> {
  let autocast = "Follow";
  let summary = "static slice with unit strides";
  let description = [{
    Extracts the box at `offsets` of extent `sizes` (one entry per dimension)
    of float data, `i32` ids or an `i1` mask.

    ```mlir
    %y = echo.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: 2, 4>}
        : (tensor<2x8xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Echo_DataOrMaskTensor:$x, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Echo_DataOrMaskTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  // Reads the box it copies, not the whole operand.
  let bytesAccessed =
      "2 * ::mlir::echo::getCheckedTensorBytes(getType()).value_or(0)";
}

def Echo_ConcatOp : Echo_ForwardOp<"concat", [SameOperandsElementType,
    SameOperandsAndResultElementType]> {
  let autocast = "Follow";
  let summary = "concatenation along an axis";
  let description = [{
    Concatenates one or more tensors along `axis`; all other dimensions must
    agree.

    ```mlir
    %y = echo.concat %a, %b {axis = 1 : i64}
        : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Echo_FloatTensor>:$inputs, I64Attr:$axis);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Echo_ReshapeOp : Echo_ForwardOp<"reshape",
    [AllElementTypesMatch<["x", "result"]>, Echo_ViewResult]> {
  let autocast = "Follow";
  let summary = "reshape to a type with the same number of elements";
  let description = [{
    Reinterprets `x` (row-major) with the shape of the result type. `x` is
    floating-point data, `i32` ids/labels or an `i1` mask (not
    differentiated).

    ```mlir
    %y = echo.reshape %x : (tensor<2x8xf32>) -> tensor<16xf32>
    ```
  }];
  let arguments = (ins Echo_DataOrMaskTensor:$x);
  let results = (outs Echo_DataOrMaskTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  // A view of its operand's bytes (tensor.expand_shape/collapse_shape).
  let bytesAccessed = "0";
}

def Echo_TransposeOp : Echo_ForwardOp<"transpose",
    [AllElementTypesMatch<["x", "result"]>]> {
  let autocast = "Follow";
  let summary = "permutation of dimensions";
  let description = [{
    Result dimension `i` is dimension `permutation[i]` of `x` (float data,
    `i32` ids or an `i1` mask).

    ```mlir
    %y = echo.transpose %x {permutation = array<i64: 1, 0>}
        : (tensor<2x8xf32>) -> tensor<8x2xf32>
    ```
  }];
  let arguments = (ins Echo_DataOrMaskTensor:$x, DenseI64ArrayAttr:$permutation);
  let results = (outs Echo_DataOrMaskTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute-heavy ops
//===----------------------------------------------------------------------===//

/// GEMM-like ops. Their gradients are GEMMs of the inputs and the output
/// gradient: they never read the forward output, so echo-recompute never
/// re-runs them (Echo, Fig. 14d).
class Echo_ComputeHeavyOp<string mnemonic, list<Trait> traits = []>
    : Echo_ForwardOp<mnemonic, !listconcat(traits,
        [Echo_LibraryCallOpInterface])> {
  let computeHeavy = 1;
  let hasCustomFlops = 1;
  let hasVerifier = 1;
  let autocast = "Lower";
  let gradientReadsOperands = [0, 1];
}

/// The matmul family's contraction length: K of op(a) (M×K, batched or
/// not) · op(b) (K×N).
defvar Echo_ContractionSizeDecl = [{
  int64_t getContractionSize() {
    int64_t rank = getA().getType().getRank();
    return getA().getType().getDimSize(rank - (getTransposeA() ? 2 : 1));
  }
}];

def Echo_MatmulOp : Echo_ComputeHeavyOp<"matmul",
    [AllElementTypesMatch<["a", "b", "result"]>,
     DeclareOpInterfaceMethods<Echo_RowChunkOpInterface>]> {
  let libraryCall = "::mlir::echo::runtime::kGemm";
  let libraryCall16Bit = 1;
  let libraryCallInputs = ["A", "B"];
  let libraryCallScalars = "{getTransposeA(), getTransposeB(), false}";
  let libraryCallAccumulateScalar = 2;
  let libraryCallWorthwhile = "getContractionSize() > 1";
  let echoExtraDecls = Echo_ContractionSizeDecl;
  let summary = "matrix product";
  let description = [{
    `result = op(a) · op(b)` where `op` transposes its operand when
    `transpose_a` / `transpose_b` is set; `op(a)` is M×K and `op(b)` K×N.

    ```mlir
    %c = echo.matmul %a, %b {transpose_b = true}
        : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor2D:$a, Echo_FloatTensor2D:$b,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs Echo_FloatTensor2D:$result);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
}

def Echo_BatchMatmulOp : Echo_ComputeHeavyOp<"batch_matmul",
    [AllElementTypesMatch<["a", "b", "result"]>]> {
  let libraryCall = "::mlir::echo::runtime::kBatchedGemm";
  let libraryCall16Bit = 1;
  let libraryCallInputs = ["A", "B"];
  let libraryCallScalars = "{getTransposeA(), getTransposeB(), false}";
  let libraryCallAccumulateScalar = 2;
  let libraryCallWorthwhile = "getContractionSize() > 1";
  let echoExtraDecls = Echo_ContractionSizeDecl;
  let summary = "batched matrix product";
  let description = [{
    For each batch index: `result[i] = op(a[i]) · op(b[i])`, with `op` as in
    `echo.matmul`.

    ```mlir
    %c = echo.batch_matmul %a, %b
        : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor3D:$a, Echo_FloatTensor3D:$b,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs Echo_FloatTensor3D:$result);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
}

def Echo_LinearOp : Echo_ComputeHeavyOp<"linear",
    [AllElementTypesMatch<["x", "w", "b", "result"]>]> {
  // Y = X·Wᵀ + b: the output starts as b in every row and the GEMM adds
  // X·Wᵀ (transpose_b, accumulate).
  let libraryCall = "::mlir::echo::runtime::kGemm";
  let libraryCall16Bit = 1;
  let libraryCallInputs = ["X", "W"];
  let libraryCallScalars = "{false, true, true}";
  let libraryCallInit = "getB()";
  let summary = "fully connected layer, Y = X·Wᵀ + b";
  let description = [{
    `x` is M×K, `w` is N×K (one row per output feature), `b` has N entries;
    the result is M×N. Its gradient reads `x` and `w`, never the result.

    ```mlir
    %y = echo.linear %x, %w, %b
        : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor2D:$x, Echo_FloatTensor2D:$w,
                       Echo_FloatTensor1D:$b);
  let results = (outs Echo_FloatTensor2D:$result);
  let assemblyFormat = [{
    $x `,` $w `,` $b attr-dict `:` functional-type(operands, results)
  }];
}

def Echo_Conv2DOp : Echo_ComputeHeavyOp<"conv2d",
    [AllElementTypesMatch<["x", "w", "result"]>]> {
  let libraryCall = "::mlir::echo::runtime::kConv2DForward";
  let libraryCall16Bit = 1;
  let libraryCallInputs = ["X", "W"];
  let libraryCallScalars = Echo_ConvLibraryCallScalars;
  // Each image [C, H, W] dense (x, y), the filter whole.
  let libraryCallPackedDims = [3, 4, 3];
  let summary = "2-D convolution (cross-correlation), NCHW";
  let description = [{
    `x` is N×C×H×W, `w` is F×(C/groups)×KH×KW; zero `padding` on both sides
    of each spatial dimension and `strides` (height, width). The result is
    N×F×OH×OW with OH = (H + 2·padding[0] − KH) / strides[0] + 1.

    `groups` (absent: 1) splits the channels into that many groups, as
    PyTorch's `F.conv2d(groups=...)` and cuDNN's group count do: C and F
    are divisible by it, and output channel f reads only the input
    channels of its group, [g·C/groups, (g+1)·C/groups) with
    g = f / (F/groups). `groups = C` is a depthwise convolution. The filter
    [F, C/groups, KH, KW] is, row-major, [groups, F/groups, C/groups, KH, KW].

    ```mlir
    %y = echo.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>}
        : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
    %z = echo.conv2d %x, %d {groups = 3 : i64, padding = array<i64: 1, 1>,
        strides = array<i64: 1, 1>}
        : (tensor<2x3x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<2x6x8x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor4D:$x, Echo_FloatTensor4D:$w,
                       Echo_PositivePair:$strides,
                       Echo_NonNegativePair:$padding,
                       DefaultValuedAttr<Echo_PositiveI64, "1">:$groups);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$x `,` $w attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

/// `echo.max_pool2d`, `echo.avg_pool2d` over NCHW. `extraArguments` are
/// the attributes one kind has and the other not.
class Echo_Pool2DOp<string mnemonic, string kind, list<int> readsOperands,
                    dag extraArguments = (ins), string extraDescription = "">
    : Echo_ForwardOp<mnemonic, [AllElementTypesMatch<["x", "result"]>]> {
  let autocast = "Follow";
  let summary = "2-D " # kind # " pooling, NCHW";
  let description = [{
    }] # kind # [{ over `kernel`-sized windows moved by `strides`; `padding`
    positions are excluded from the }] # kind # [{. Each padding must be
    smaller than its kernel size.

    `ceil_mode` (absent: false) is PyTorch's: the output extent rounds up,
    OH = ceil((H + 2·padding[0] − KH) / strides[0]) + 1, except that a last
    window starting inside the bottom (right) padding is dropped
    (`(OH − 1)·strides[0] >= H + padding[0]`: OH − 1); windows that run past
    the padded input are clipped.
    }] # extraDescription # [{

    ```mlir
    %y = echo.}] # mnemonic # [{ %x {kernel = array<i64: 2, 2>,
        padding = array<i64: 0, 0>, strides = array<i64: 2, 2>}
        : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
    %z = echo.}] # mnemonic # [{ %x {ceil_mode = true, kernel = array<i64: 3, 3>,
        padding = array<i64: 0, 0>, strides = array<i64: 2, 2>}
        : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
    ```
  }];
  let arguments = !con((ins Echo_FloatTensor4D:$x, Echo_PositivePair:$kernel,
                            Echo_PositivePair:$strides,
                            Echo_NonNegativePair:$padding,
                            DefaultValuedAttr<BoolAttr, "false">:$ceil_mode),
                       extraArguments);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCustomFlops = 1;
  let gradientReadsOperands = readsOperands;
}

// The gradient recomputes the arg-max of each window from `x`.
def Echo_MaxPool2DOp : Echo_Pool2DOp<"max_pool2d", "maximum", [0]>;
def Echo_AvgPool2DOp : Echo_Pool2DOp<"avg_pool2d", "average", [],
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad), [{
    The average divides by the window's count of input positions, or with
    `count_include_pad` (PyTorch's default; absent: false) by its count of
    positions inside the zero-padded input: padding counts, positions a
    `ceil_mode` window runs past the padding do not.
  }]>;

def Echo_AdaptiveAvgPool2DOp : Echo_ForwardOp<"adaptive_avg_pool2d",
    [AllElementTypesMatch<["x", "result"]>]> {
  let autocast = "Full";
  let summary = "2-D adaptive average pooling to a given output size, NCHW";
  let description = [{
    Averages `x` (N×C×H×W) into N×C×OH×OW, `output_size` = [OH, OW], as
    PyTorch's `adaptive_avg_pool2d`: output row i averages the input rows
    [floor(i·H/OH), ceil((i + 1)·H/OH)), columns likewise. Windows may
    overlap and differ in size; OH may exceed H (rows are then repeated).
    The gradient reads no forward value.

    ```mlir
    %y = echo.adaptive_avg_pool2d %x {output_size = array<i64: 3, 3>}
        : (tensor<2x3x7x7xf32>) -> tensor<2x3x3x3xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor4D:$x,
                       Echo_PositivePair:$output_size);
  let results = (outs Echo_FloatTensor4D:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCustomFlops = 1;
}

def Echo_BatchNormOp : Echo_ForwardOp<"batch_norm",
    [AllElementTypesMatch<["x", "gamma", "beta", "result"]>,
     AllTypesMatch<["x", "result"]>]> {
  let autocast = "FollowInput";
  let summary = "batch normalization, training mode";
  let description = [{
    Normalizes each channel (dimension 1) of a rank-2 or rank-4 `x` with the
    batch mean and biased variance, then scales by `gamma` and shifts by
    `beta`: `y = (x − mean) / sqrt(var + epsilon) · gamma + beta`.

    ```mlir
    %y = echo.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
        : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensorOfRank<[2, 4]>:$x,
                       Echo_FloatTensor1D:$gamma, Echo_FloatTensor1D:$beta,
                       F64Attr:$epsilon);
  let results = (outs Echo_FloatTensorOfRank<[2, 4]>:$result);
  let assemblyFormat = [{
    $x `,` $gamma `,` $beta attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 8;
  let gradientReadsOperands = [0, 1];
}

def Echo_LayerNormOp : Echo_ForwardOp<"layer_norm",
    [AllElementTypesMatch<["x", "gamma", "beta", "result"]>,
     AllTypesMatch<["x", "result"]>]> {
  let autocast = "FollowInput";
  let summary = "layer normalization over the last dimension";
  let description = [{
    Normalizes each row of `x` along its last dimension D with the row mean
    and biased variance, then scales by `gamma` [D] and shifts by `beta` [D].

    ```mlir
    %y = echo.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
        : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x, Echo_FloatTensor1D:$gamma,
                       Echo_FloatTensor1D:$beta, F64Attr:$epsilon);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $gamma `,` $beta attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 8;
  let gradientReadsOperands = [0, 1];
}

def Echo_SoftmaxOp : Echo_ForwardOp<"softmax", [SameOperandsAndResultType]> {
  let autocast = "Full";
  let summary = "softmax along an axis";
  let description = [{
    `exp(x − max) / sum(exp(x − max))` along `axis`. The gradient reads only
    the output.

    ```mlir
    %y = echo.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x, I64Attr:$axis);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let hasVerifier = 1;
  let flopsPerElement = 5;
  let gradientReadsResults = [0];
}

def Echo_DropoutOp : Echo_ForwardOp<"dropout",
    [AllTypesMatch<["x", "result"]>, AllShapesMatch<["x", "mask"]>]> {
  let autocast = "Follow";
  let summary = "inverted dropout with a counter-based mask";
  let description = [{
    `result = x · mask / (1 − ratio)`, where `mask` keeps each element with
    probability `1 − ratio`. The mask is a pure function of `seed` and the
    element's row-major index, so recomputing the op reproduces it bit for
    bit. The gradient reads only the mask, which packs into 1 bit per
    element.

    `broadcast_dims` (absent: none) shares one keep decision along the
    listed dims of `x` (strictly increasing, not all of them): the counter
    of an element is its row-major index over `x`'s shape with those dims
    removed, so the mask is constant along them (Dropout2d on NCHW: [2, 3];
    stochastic depth per sample: [1, 2, 3]). The mask keeps `x`'s shape.

    `step_seed` (optional: a 0-d i64, the step's `echo.rng_seed` argument)
    makes the mask a function of (`seed`, `step_seed`, index): a training
    loop that passes a fresh step seed at every step draws fresh masks,
    and recomputing the op within a step still reproduces its mask bit for
    bit. Without it the mask is the same at every step.

    ```mlir
    %y, %m = echo.dropout %x {ratio = 5.000000e-01 : f64, seed = 7 : i64}
        : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
    %z, %n = echo.dropout %x, %step_seed {ratio = 1.000000e-01 : f64,
        seed = 8 : i64}
        : (tensor<4x8xf32>, tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
    %c, %cm = echo.dropout %img {broadcast_dims = array<i64: 2, 3>,
        ratio = 2.000000e-01 : f64, seed = 8 : i64}
        : (tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<2x3x8x8xi1>)
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x, Optional<Echo_SeedTensor>:$step_seed,
                       F64Attr:$ratio, I64Attr:$seed,
                       OptionalAttr<DenseI64ArrayAttr>:$broadcast_dims);
  let results = (outs Echo_FloatTensor:$result, Echo_MaskTensor:$mask);
  let assemblyFormat = [{
    $x (`,` $step_seed^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 2;
  let gradientReadsResults = [1];
  let stochasticMaskResults = [1];
}

def Echo_EmbeddingOp : Echo_ForwardOp<"embedding",
    [AllElementTypesMatch<["table", "result"]>,
     DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface>]> {
  let autocast = "Follow";
  let summary = "table lookup";
  let description = [{
    `result[i..., :] = table[ids[i...], :]`; `ids` (`i32`, any rank) must lie
    in [0, V). The gradient scatters into a V×H table and reads `ids`.

    `padding_idx` (absent: none; in [0, V)) is PyTorch's
    `nn.Embedding(padding_idx=...)`: the lookup is unchanged, but the
    table's row `padding_idx` gets no gradient (the adjoints of the tokens
    with that id are dropped before they are scattered).

    ```mlir
    %e = echo.embedding %ids, %table
        : (tensor<4x6xi32>, tensor<100x16xf32>) -> tensor<4x6x16xf32>
    %p = echo.embedding %ids, %table {padding_idx = 0 : i64}
        : (tensor<4x6xi32>, tensor<100x16xf32>) -> tensor<4x6x16xf32>
    ```
  }];
  let arguments = (ins Echo_IndexTensor:$ids, Echo_FloatTensor2D:$table,
                       OptionalAttr<I64Attr>:$padding_idx);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = [{
    $ids `,` $table attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let gradientReadsOperands = [0];
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def Echo_CrossEntropyOp : Echo_ForwardOp<"cross_entropy",
    [DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface,
                               ["getIgnoredIndex"]>]> {
  let autocast = "Keep";
  let summary = "mean softmax cross-entropy";
  let description = [{
    `mean_n(logsumexp(logits[n, :]) − logits[n, labels[n]])` for N×C
    `logits` and N `i32` labels in [0, C). The result has the logits'
    element type or is f32: f16/bf16 logits with an f32 loss are widened as
    they are read (mixed precision: the loss in f32 without an f32 copy of
    the logits).

    As PyTorch's `cross_entropy`: rows whose label is `ignore_index` (absent:
    none; PyTorch's default is −100) count for nothing, and the mean is over
    the other rows (NaN when there are none); `label_smoothing` ε (absent:
    0, else in [0, 1]) mixes the one-hot target with the uniform one, each
    row's term becoming `logsumexp − (1 − ε)·logits[n, label] −
    (ε / C)·Σ_c logits[n, c]`.

    ```mlir
    %l = echo.cross_entropy %logits, %labels
        : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
    %m = echo.cross_entropy %logits, %labels
        {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64}
        : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor2D:$logits, Echo_IndexTensor1D:$labels,
                       OptionalAttr<I64Attr>:$ignore_index,
                       OptionalAttr<F64Attr>:$label_smoothing);
  let results = (outs Echo_FloatTensor0D:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let flopsPerElement = 5;
  let gradientReadsOperands = [0, 1];
}

def Echo_CrossEntropyTermsOp : Echo_Op<"cross_entropy_terms",
    [Pure, DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface,
                                     ["getIgnoredIndex"]>]> {
  let autocast = "Keep";
  let summary = "per-row softmax cross-entropy (a chunk of a loss)";
  let description = [{
    `result[n] = logsumexp(logits[n, :]) − logits[n, labels[n]]` for N×C
    `logits` and N `i32` labels in [0, C): the terms whose mean is
    `echo.cross_entropy`, each computed as it computes them (the result
    has the logits' element type or is f32, as there), with its
    `ignore_index` (an ignored row's term is 0) and `label_smoothing`. The
    chunked loss of `echo-recompute` (`chunk-loss=`) builds it on row
    chunks of the logits; it has no gradient of its own (echo-autodiff
    refuses it).

    ```mlir
    %t = echo.cross_entropy_terms %logits, %labels
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
}

def Echo_LabelCountOp : Echo_ForwardOp<"label_count"> {
  let autocast = "Keep";
  let summary = "the rows a cross-entropy with ignore_index averages over";
  let description = [{
    The number of `labels` other than `ignore_index`, as a 0-d float: the
    divisor of `echo.cross_entropy`'s mean when it ignores rows. The
    chunked loss of `echo-recompute` (`chunk-loss=`) divides the sum of its
    chunks' terms by it, and an importer multiplies a mean by it for
    PyTorch's `reduction='sum'`. Its gradient is none (its operand is
    integer).

    ```mlir
    %n = echo.label_count %labels {ignore_index = -100 : i64}
        : (tensor<4xi32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Echo_IndexTensor1D:$labels, I64Attr:$ignore_index);
  let results = (outs Echo_FloatTensor0D:$result);
  let assemblyFormat = [{
    $labels attr-dict `:` functional-type(operands, results)
  }];
  let flopsPerElement = 1;
}

def Echo_MseLossOp : Echo_ForwardOp<"mse_loss",
    [AllTypesMatch<["pred", "target"]>,
     AllElementTypesMatch<["pred", "result"]>]> {
  let autocast = "Full";
  let summary = "mean squared error";
  let description = [{
    `mean((pred − target)²)` over all elements.

    ```mlir
    %l = echo.mse_loss %p, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$pred, Echo_FloatTensor:$target);
  let results = (outs Echo_FloatTensor0D:$result);
  let assemblyFormat = [{
    $pred `,` $target attr-dict `:` functional-type(operands, results)
  }];
  let flopsPerElement = 3;
  let gradientReadsOperands = [0, 1];
}

include "echo/Dialect/Echo/IR/EchoGradOps.td"
include "echo/Dialect/Echo/IR/EchoDataOps.td"
include "echo/Dialect/Echo/IR/EchoMoreOps.td"
include "echo/Dialect/Echo/IR/EchoOptimizerOps.td"
include "echo/Dialect/Echo/IR/EchoAttentionOps.td"
include "echo/Dialect/Echo/IR/EchoLossOps.td"
include "echo/Dialect/Echo/IR/EchoMaskOps.td"

#endif // ECHO_DIALECT_ECHO_IR_ECHOOPS_TD
