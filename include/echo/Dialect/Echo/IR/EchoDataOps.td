//===- EchoDataOps.td - Masks, conversions and indexing ----*- tablegen -*-===//
//
// Part of the Echo project.
//
// The ops of masks and indices computed inside a step: comparisons that make
// `i1` masks from data (`ids == pad`, `x > threshold`), logical ops on masks,
// conversions between masks, `i32` indices and floats (a tokenizer's integer
// attention mask made an additive float mask), and the indexing ops of top-k
// routing (topk, gather, scatter, scatter_add, one_hot). Masks and indices
// are data: no gradient flows through a comparison, a conversion from or to
// an integer, or an index operand. The float operands of the indexing ops
// are differentiated with the same ops: gather's adjoint is a scatter_add,
// scatter_add's a gather, topk's a scatter of the values' adjoint.
//
// Indices are `i32` (PyTorch's int64 narrowed where a step's data enters it).
// An index operand declares the range it accepts (IndexOperandOpInterface),
// so that echo-run draws data ids inside it and the step library checks a
// caller's ids against it before the step reads them.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHODATAOPS_TD
#define ECHO_DIALECT_ECHO_IR_ECHODATAOPS_TD

include "echo/Dialect/Echo/IR/EchoBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Base class
//===----------------------------------------------------------------------===//

/// An op whose operands receive no gradient: its results are masks or
/// indices, or a function of them only. `echo-autodiff` goes through it
/// (a mask computed from parameters is active) and builds nothing.
class Echo_DataOp<string mnemonic, list<Trait> traits = []>
    : Echo_ForwardOp<mnemonic, traits> {
  let echoExtraDecls = [{
    /// No operand of a data op receives a gradient, not even a float one
    /// (a comparison's derivative is zero wherever it exists).
    bool isDifferentiableOperand(unsigned) { return false; }
  }];
}

/// The type of an `i1` mask of `$_self`'s shape (`$_self` itself when it is
/// not a ranked tensor, which the operand's constraint then refuses).
defvar Echo_MaskOfShape =
    "(::llvm::isa<::mlir::RankedTensorType>($_self) ? "
    "::mlir::Type(::llvm::cast<::mlir::RankedTensorType>($_self).clone("
    "::mlir::IntegerType::get($_self.getContext(), 1))) : $_self)";

//===----------------------------------------------------------------------===//
// Comparisons and logical ops
//===----------------------------------------------------------------------===//

def Echo_ComparePredicateAttr : I64EnumAttr<"ComparePredicate",
    "the relation echo.compare tests", [
      I64EnumAttrCase<"eq", 0>, I64EnumAttrCase<"ne", 1>,
      I64EnumAttrCase<"lt", 2>, I64EnumAttrCase<"le", 3>,
      I64EnumAttrCase<"gt", 4>, I64EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::echo";
}

def Echo_CompareOp : Echo_DataOp<"compare", [Elementwise,
    AllTypesMatch<["lhs", "rhs"]>,
    TypesMatchWith<"result is an i1 mask of the operands' shape", "lhs",
                   "result", Echo_MaskOfShape>]> {
  let summary = "elementwise comparison, an i1 mask";
  let description = [{
    `result = lhs <predicate> rhs` element by element, as PyTorch's `eq`,
    `ne`, `lt`, `le`, `gt` and `ge`: `predicate` is 0 (`eq`), 1 (`ne`), 2
    (`lt`), 3 (`le`), 4 (`gt`) or 5 (`ge`). `lhs` and `rhs` have one type:
    float data (a comparison with NaN is false, except `ne`, which is true),
    `i32` ids (signed) or `i1` masks (false < true). The result is data: no
    gradient flows through a comparison.

    ```mlir
    %pad = echo.compare eq, %ids, %zero : tensor<2x8xi32>
    %big = echo.compare gt, %x, %t : tensor<4x8xf32>
    %0 = "echo.compare"(%ids, %zero) {predicate = 1 : i64}
        : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
    ```
  }];
  let arguments = (ins Echo_ComparePredicateAttr:$predicate,
                       Echo_DataOrMaskTensor:$lhs, Echo_DataOrMaskTensor:$rhs);
  let results = (outs Echo_MaskTensor:$result);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
  let autocast = "Follow";
  let flopsPerElement = 1;
}

/// `echo.logical_and`, `echo.logical_or`, `echo.logical_xor` on masks.
class Echo_LogicalBinaryOp<string mnemonic, string formula>
    : Echo_DataOp<mnemonic, [Elementwise, SameOperandsAndResultType]> {
  let summary = "elementwise " # formula # " of two masks";
  let description = [{
    `result = }] # formula # [{` element by element on two `i1` masks of one
    shape (PyTorch's `}] # mnemonic # [{` and the bitwise op on bool
    tensors).

    ```mlir
    %m = echo.}] # mnemonic # [{ %a, %b : tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Echo_MaskTensor:$lhs, Echo_MaskTensor:$rhs);
  let results = (outs Echo_MaskTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let flopsPerElement = 1;
}

def Echo_LogicalAndOp : Echo_LogicalBinaryOp<"logical_and", "lhs and rhs">;
def Echo_LogicalOrOp : Echo_LogicalBinaryOp<"logical_or", "lhs or rhs">;
def Echo_LogicalXorOp : Echo_LogicalBinaryOp<"logical_xor", "lhs xor rhs">;

def Echo_LogicalNotOp : Echo_DataOp<"logical_not", [Elementwise,
    SameOperandsAndResultType]> {
  let summary = "elementwise negation of a mask";
  let description = [{
    `result = not x` element by element on an `i1` mask (PyTorch's
    `logical_not`, and `bitwise_not` / `~` on bool tensors).

    ```mlir
    %keep = echo.logical_not %pad : tensor<2x8xi1>
    ```
  }];
  let arguments = (ins Echo_MaskTensor:$x);
  let results = (outs Echo_MaskTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let flopsPerElement = 1;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

def Echo_ConvertOp : Echo_DataOp<"convert", [Elementwise,
    AllShapesMatch<["x", "result"]>]> {
  let summary = "elementwise conversion between masks, ids and floats";
  let description = [{
    Converts every element of `x` to the result's element type, as PyTorch's
    `.to(dtype)`: a mask is 1 or 0 (in `i32` or a float type); an `i32` is
    the nearest float (exact below 2^24 in f32), or `x != 0` as a mask; a
    float is `x != 0` as a mask (NaN is true), or is rounded toward zero to
    an `i32` (values beyond the `i32` range saturate and NaN gives 0, where
    PyTorch's result is undefined). Between two float types the op is
    `echo.cast` (which has a gradient); `convert` has none, even from a
    float (an integer's derivative is zero): the mask or index it makes is
    data.

    ```mlir
    %m = echo.convert %mask : tensor<2x8xi1> to tensor<2x8xf32>
    %t = echo.convert %step : tensor<4xi32> to tensor<4xf32>
    ```
  }];
  let arguments = (ins Echo_DataOrMaskTensor:$x);
  let results = (outs Echo_DataOrMaskTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let flopsPerElement = 1;
}

//===----------------------------------------------------------------------===//
// Indexing: top-k routing
//===----------------------------------------------------------------------===//

def Echo_TopkOp : Echo_ForwardOp<"topk", [
    AllElementTypesMatch<["x", "values"]>,
    AllShapesMatch<["values", "indices"]>]> {
  let summary = "the k largest (or smallest) entries along the last dim";
  let description = [{
    For each row of `x` along its last dimension N, `values` holds the k
    largest entries in decreasing order and `indices` (`i32`) their
    positions in the row, k being the results' last dimension (1 <= k <=
    N): PyTorch's `topk(k, dim=-1)`, `sorted=True`. With `smallest` (absent:
    false) the k smallest, in increasing order (`largest=False`). NaN counts
    as larger than every number, as in PyTorch; equal entries are taken
    lowest position first.

    The gradient scatters the adjoint of `values` to `indices` in a zero
    tensor of `x`'s shape (`echo.scatter`): it reads `indices` only. The
    indices are data (no gradient); they are in [0, N).

    The lowering ranks every entry of a row against every other, N² per
    row: meant for routers (N experts), not for a vocabulary.

    ```mlir
    %w, %i = echo.topk %probs : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x,
                       DefaultValuedAttr<BoolAttr, "false">:$smallest);
  let results = (outs Echo_FloatTensor:$values, Echo_IndexTensor:$indices);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCustomFlops = 1;
  let autocast = "Follow";
  let gradientReadsResults = [1];
}

def Echo_GatherOp : Echo_ForwardOp<"gather", [
    AllElementTypesMatch<["x", "result"]>,
    AllShapesMatch<["indices", "result"]>,
    DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface>]> {
  let summary = "elements picked along an axis by computed indices";
  let description = [{
    `result[i] = x[i with i[axis] replaced by indices[i]]` (PyTorch's
    `torch.gather(x, axis, indices)`): `indices` (`i32`) has `x`'s rank and
    its shape along every other dimension than `axis`; the result has the
    shape of `indices`. Indices lie in [0, x.shape[axis]); an index outside
    is clamped into it (never read out of bounds; ids that are data are
    checked when they enter the step).

    The gradient of `x` is `echo.scatter_add` of the result's adjoint into a
    zero tensor of `x`'s shape at `indices` (a position picked twice gets
    both adjoints); it reads `indices` only.

    ```mlir
    %y = echo.gather %x, %idx {axis = 1 : i64}
        : (tensor<16x8x32xf32>, tensor<16x2x32xi32>) -> tensor<16x2x32xf32>
    ```
  }];
  let arguments = (ins Echo_DataTensor:$x, Echo_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Echo_DataTensor:$result);
  let assemblyFormat = [{
    $x `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let autocast = "Follow";
  let gradientReadsOperands = [1];
  // Reads the indices and the elements it picks, writes the result.
  let bytesAccessed = [{
    ::mlir::echo::getCheckedTensorBytes(getIndices().getType()).value_or(0) +
        2 * ::mlir::echo::getCheckedTensorBytes(getType()).value_or(0)
  }];
}

/// `echo.scatter`, `echo.scatter_add`: `src` written (added) into `x` along
/// `axis` at `indices`.
class Echo_ScatterOp<string mnemonic, string effect, string gradients>
    : Echo_ForwardOp<mnemonic, [AllTypesMatch<["x", "result"]>,
        AllElementTypesMatch<["x", "src"]>,
        AllShapesMatch<["indices", "src"]>,
        DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface>]> {
  let summary = "`src` " # effect # " `x` along an axis at computed indices";
  let description = [{
    `result` is `x` with, for every position `i` of `indices` in row-major
    order, `src[i]` }] # effect # [{ `result[i with i[axis] replaced by
    indices[i]]` (PyTorch's `x.}] # mnemonic # [{(axis, indices, src)`).
    `indices` (`i32`) and `src` have one shape, of `x`'s rank and its shape
    along every other dimension than `axis`. Indices lie in [0,
    x.shape[axis]); an index outside writes nothing.

    }] # gradients # [{ Both read `indices` only.

    The lowering computes each element of the result from the M entries of
    `indices` along `axis` that may reach it (M = indices.shape[axis]): no
    atomics, the same result on every target, M comparisons per element.

    ```mlir
    %y = echo.}] # mnemonic # [{ %x, %idx, %src {axis = 1 : i64}
        : (tensor<16x8xf32>, tensor<16x2xi32>, tensor<16x2xf32>) -> tensor<16x8xf32>
    ```
  }];
  let arguments = (ins Echo_FloatTensor:$x, Echo_IndexTensor:$indices,
                       Echo_FloatTensor:$src, I64Attr:$axis);
  let results = (outs Echo_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $indices `,` $src attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCustomFlops = 1;
  let autocast = "Follow";
  let gradientReadsOperands = [1];
}

def Echo_ScatterOp : Echo_ScatterOp<"scatter", "replaces", [{
    Where several entries reach one element, the last in row-major order
    wins (PyTorch leaves it unspecified). The adjoint of `x` is the result's
    adjoint with zeros written at `indices` (`echo.scatter` of zeros), that
    of `src` the result's adjoint gathered at `indices` (`echo.gather`), as
    in PyTorch.}]>;
def Echo_ScatterAddOp : Echo_ScatterOp<"scatter_add", "is added to", [{
    The sums run in row-major order, as PyTorch's CPU kernel adds. The
    adjoint of `x` is the result's, that of `src` the result's adjoint
    gathered at `indices` (`echo.gather`).}]>;

def Echo_OneHotOp : Echo_DataOp<"one_hot", [
    DeclareOpInterfaceMethods<Echo_IndexOperandOpInterface,
                              ["getIgnoredIndex"]>]> {
  let summary = "one-hot encoding of ids";
  let description = [{
    `result[i..., c] = ids[i...] == c ? 1 : 0` for `ids` (`i32`, any rank)
    and c in [0, C), C being the result's last dimension (PyTorch's
    `F.one_hot(ids, C)`, whose int64 result is Echo's `i32`; a float result
    is the one-hot already converted). Ids lie in [0, C); an id outside
    gives a row of zeros. No gradient: the result is data.

    `ignore_index`, when present, is one more value the ids may hold (a
    loss's ignored label: PyTorch's −100, or a padding id inside [0, C)):
    its rows are zeros, and a caller's ids holding it are accepted
    (IndexOperandOpInterface), as `echo.cross_entropy`'s are.

    ```mlir
    %e = echo.one_hot %experts : (tensor<16x2xi32>) -> tensor<16x2x8xf32>
    %t = echo.one_hot %labels {ignore_index = -100 : i64}
        : (tensor<16xi32>) -> tensor<16x8xf32>
    ```
  }];
  let arguments = (ins Echo_IndexTensor:$ids,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Echo_DataTensor:$result);
  let assemblyFormat = "$ids attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let flopsPerElement = 1;
}

#endif // ECHO_DIALECT_ECHO_IR_ECHODATAOPS_TD
