//===- EchoAttentionOps.td - Fused attention ---------------*- tablegen -*-===//
//
// Part of the Echo project.
//
// Scaled dot-product attention as one op, FlashAttention-2 style: the
// forward keeps only the output and each row's log-sum-exp, and the gradient
// recomputes the scores tile by tile, so that no S×S tensor (scores,
// probabilities, dropout masks) is ever stashed for the backward pass.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOATTENTIONOPS_TD
#define ECHO_DIALECT_ECHO_IR_ECHOATTENTIONOPS_TD

include "echo/Dialect/Echo/IR/EchoBase.td"

/// The attributes both attention ops carry.
defvar Echo_AttentionAttrs = (ins F64Attr:$scale,
    DefaultValuedAttr<BoolAttr, "false">:$causal,
    DefaultValuedAttr<F64Attr, "0.0">:$dropout_ratio,
    DefaultValuedAttr<I64Attr, "0">:$seed);

/// Accessors both attention ops share.
defvar Echo_AttentionDecls = [{
  /// B, H, S, Sk, D, Dv and the key/value heads Hkv.
  int64_t getBatch() { return getQ().getType().getDimSize(0); }
  int64_t getHeads() { return getQ().getType().getDimSize(1); }
  int64_t getQueryLength() { return getQ().getType().getDimSize(2); }
  int64_t getHeadDim() { return getQ().getType().getDimSize(3); }
  int64_t getKeyHeads() { return getK().getType().getDimSize(1); }
  int64_t getKeyLength() { return getK().getType().getDimSize(2); }
  int64_t getValueDim() { return getV().getType().getDimSize(3); }
  /// The query·key pairs that are not masked by `causal` (all of them
  /// without it): what the FLOP counts scale with.
  int64_t getUnmaskedPairs();
}];

def Echo_AttentionOp : Echo_Op<"attention", [Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Echo_DifferentiableOpInterface,
                              ["isDifferentiableOperand"]>]> {
  let summary = "fused scaled dot-product attention (no S×S intermediate)";
  let description = [{
    For each batch b and head h (key/value head `h / (H / Hkv)`: grouped
    query heads when Hkv < H):

    ```
    x   = scale · q[b,h] · k[b,hk]ᵀ + bias[b,h]   (S×Sk)
    x[i,j] = −inf where `causal` and j > i       (top-left aligned)
    p   = softmax(x) along keys
    out = dropout(p) · v[b,hk]                   (S×Dv)
    lse = log Σ_j exp(x[i,j])                    (S, f32)
    ```

    `bias` (optional, data: it gets no gradient) is rank 4 and each of its
    dims is 1 or the matching dim of [B, H, S, Sk] (a key-padding mask
    [B,1,1,Sk], a shared [1,1,S,Sk]). `dropout_ratio` drops probabilities
    with echo.dropout's generator: element [b,h,i,j] is kept exactly when
    `echo.dropout` with the same `seed` (and `step_seed`) keeps element
    [b,h,i,j] of a [B,H,S,Sk] tensor, so the gradient regenerates the same
    mask. The gradient (`echo.attention_grad`) reads q, k, v, bias,
    step_seed, out and lse: the stash is O(B·H·S·Dv), not O(B·H·S·Sk).

    ```mlir
    %o, %lse = echo.attention %q, %k, %v {scale = 1.250000e-01 : f64,
        causal = true}
        : (tensor<2x4x64x16xf32>, tensor<2x4x64x16xf32>,
           tensor<2x4x64x16xf32>) -> (tensor<2x4x64x16xf32>, tensor<2x4x64xf32>)
    ```
  }];
  let arguments = !con((ins Echo_FloatTensor4D:$q, Echo_FloatTensor4D:$k,
                            Echo_FloatTensor4D:$v,
                            Optional<Echo_FloatTensor4D>:$bias,
                            Optional<Echo_SeedTensor>:$step_seed),
                       Echo_AttentionAttrs);
  let results = (outs Echo_FloatTensor4D:$out, Echo_FloatTensor3D:$lse);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`bias` $bias^)? (`seed` $step_seed^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCustomFlops = 1;
  let computeHeavy = 1;
  let autocast = "Full";
  let echoExtraDecls = Echo_AttentionDecls;
}

def Echo_AttentionGradOp : Echo_GradOp<"attention_grad",
    [AttrSizedOperandSegments]> {
  let summary = "gradient of echo.attention, recomputing the scores by tiles";
  let description = [{
    `dq`, `dk`, `dv` of `echo.attention` from its operands, its `out` and
    `lse`, and `dout`, FlashAttention-2's backward: each tile of
    probabilities is rebuilt as `exp(x − lse)` (its dropout mask
    regenerated from the seed), `dv += dropout(p)ᵀ·dout`,
    `ds = p ∘ (dp − D)` with `dp` the gradient of the probabilities and
    `D_i = Σ dout[i]·out[i]`, `dq += scale·ds·k`, `dk += scale·dsᵀ·q`.
    Nothing of size S×Sk is kept. `dk` and `dv` sum over the query heads
    that share a key/value head.

    ```mlir
    %dq, %dk, %dv = echo.attention_grad %q, %k, %v, %o, %lse, %do
        {scale = 1.250000e-01 : f64}
        : (tensor<2x4x64x16xf32>, tensor<2x4x64x16xf32>,
           tensor<2x4x64x16xf32>, tensor<2x4x64x16xf32>, tensor<2x4x64xf32>,
           tensor<2x4x64x16xf32>)
        -> (tensor<2x4x64x16xf32>, tensor<2x4x64x16xf32>,
            tensor<2x4x64x16xf32>)
    ```
  }];
  let arguments = !con((ins Echo_FloatTensor4D:$q, Echo_FloatTensor4D:$k,
                            Echo_FloatTensor4D:$v, Echo_FloatTensor4D:$out,
                            Echo_FloatTensor3D:$lse, Echo_FloatTensor4D:$dout,
                            Optional<Echo_FloatTensor4D>:$bias,
                            Optional<Echo_SeedTensor>:$step_seed),
                       Echo_AttentionAttrs);
  let results = (outs Echo_FloatTensor4D:$dq, Echo_FloatTensor4D:$dk,
                      Echo_FloatTensor4D:$dv);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $out `,` $lse `,` $dout (`bias` $bias^)?
    (`seed` $step_seed^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCustomFlops = 1;
  let computeHeavy = 1;
  let autocast = "Full";
  let echoExtraDecls = Echo_AttentionDecls;
}

#endif // ECHO_DIALECT_ECHO_IR_ECHOATTENTIONOPS_TD
