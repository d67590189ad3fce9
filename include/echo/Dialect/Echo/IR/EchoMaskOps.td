//===- EchoMaskOps.td - Masks computed from positions ------*- tablegen -*-===//
//
// Part of the Echo project.
//
// Masks that are a function of an element's position only, so that a model
// holds a few attributes instead of an S×S constant: a causal attention mask
// is `echo.triangle`, whatever PyTorch idiom built it (a `tril` buffer
// compared with 0, `triu` of −inf added to the scores), and
// echo-fuse-attention reads it as `causal`.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOMASKOPS_TD
#define ECHO_DIALECT_ECHO_IR_ECHOMASKOPS_TD

include "echo/Dialect/Echo/IR/EchoBase.td"
include "mlir/IR/EnumAttr.td"

def Echo_TriangleKindAttr : I64EnumAttr<"TriangleKind",
    "which triangle echo.triangle's `inside` value fills", [
      I64EnumAttrCase<"lower", 0>, I64EnumAttrCase<"upper", 1>]> {
  let cppNamespace = "::mlir::echo";
}

def Echo_TriangleOp : Echo_ForwardOp<"triangle"> {
  let summary = "a lower or upper triangle of one value, another elsewhere";
  let description = [{
    Element `[..., i, j]` of the result is `inside` where `(i, j)` lies in
    the triangle and `outside` elsewhere, as PyTorch's `tril` and `triu`
    keep their operand: `lower` is `j − i <= diagonal`, `upper` is
    `j − i >= diagonal`. The leading dims (any, often 1) repeat the last
    two. An `i1` result takes `inside` and `outside` as 0 (false) or 1
    (true). No operand, no gradient: the result is data, computed at run
    time from the indices, never stored as a constant.

    The causal mask of nanoGPT (`tril(ones(T, T)) == 0` under `masked_fill`,
    true above the diagonal) and the additive one of LLaMA
    (`triu(full((T, T), -inf), 1)`):

    ```mlir
    %m = echo.triangle lower diagonal 0 inside 0.0 outside 1.0
        : tensor<1x1x64x64xi1>
    %b = echo.triangle upper diagonal 1 inside 0xFFF0000000000000
        outside 0.0 : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Echo_TriangleKindAttr:$kind, I64Attr:$diagonal,
                       F64Attr:$inside, F64Attr:$outside);
  let results = (outs RankedTensorOf<[F32, F16, BF16, I1], [HasStaticShapePred],
                                     "statically shaped float or i1 tensor">
                 :$result);
  let assemblyFormat = [{
    $kind `diagonal` $diagonal `inside` $inside `outside` $outside attr-dict
    `:` type($result)
  }];
  let hasVerifier = 1;
  /// A comparison of the indices and a select per element.
  let flopsPerElement = 2;
  let echoExtraDecls = [{
    /// Whether element (i, j) of the last two dims lies in the triangle.
    bool isInside(int64_t i, int64_t j) {
      int64_t offset = j - i;
      return getKind() == TriangleKind::lower
                 ? offset <= static_cast<int64_t>(getDiagonal())
                 : offset >= static_cast<int64_t>(getDiagonal());
    }
    /// The value at (i, j) of the last two dims.
    double valueAt(int64_t i, int64_t j) {
      return (isInside(i, j) ? getInside() : getOutside()).convertToDouble();
    }
  }];
}

#endif // ECHO_DIALECT_ECHO_IR_ECHOMASKOPS_TD
