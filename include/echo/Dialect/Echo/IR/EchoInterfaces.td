//===- EchoInterfaces.td - Echo op interfaces --------------*- tablegen -*-===//
//
// Part of the Echo project.
//
// Per-op knowledge that passes query instead of switching over op names:
// how to differentiate an op and which forward values its gradient reads
// (echo-autodiff, echo-recompute), and what it costs (echo-recompute's
// compute-heavy partitioning, the memory report's FLOP counts).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_TD
#define ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_TD

include "mlir/IR/OpBase.td"

def Echo_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::echo";
  let description = [{
    A forward op that reverse-mode differentiation can go through.

    The interface answers two questions. The first is structural and is what
    recomputation planning relies on: which of the op's forward operands and
    results the vector-Jacobian product reads. Everything else of the forward
    pass may die before the backward pass as far as this op is concerned
    (e.g. `tanh` keeps only its output, `linear` only its inputs). The second
    builds that product: given the adjoints of the results, emit the ops that
    compute the adjoints of the operands.

    Modelled on Enzyme-MLIR's `AutoDiffOpInterface`, reduced to what a
    value-semantic tensor graph needs.
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/[{
        Returns the indices of the forward operands whose values the gradient
        of this op reads.
      }],
      /*retTy=*/"::llvm::SmallVector<unsigned>",
      /*methodName=*/"getGradientReadOperands">,
    InterfaceMethod<
      /*desc=*/[{
        Returns the indices of the forward results whose values the gradient
        of this op reads.
      }],
      /*retTy=*/"::llvm::SmallVector<unsigned>",
      /*methodName=*/"getGradientReadResults">,
    InterfaceMethod<
      /*desc=*/[{
        Returns true when the gradient needs only a predicate of each
        forward value `v` it reads (ReLU's `v > 0`, clamp's
        `min < v < max`), and its gradient op accepts that `i1` mask in
        place of `v`. echo-recompute then stashes the mask, computed in the
        forward pass by `buildGradientReadMask` and packed with
        `echo.pack_mask`, instead of `v`.
      }],
      /*retTy=*/"bool",
      /*methodName=*/"isGradientReadBinarizable",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return false;">,
    InterfaceMethod<
      /*desc=*/[{
        For a binarizable op, builds at the builder's insertion point the
        `i1` value (of `value`'s shape, tensor or scalar) that the gradient
        reads in place of the forward value `value`: ReLU's `value > 0`
        (`arith.cmpf ugt`, NaN counts as positive), clamp's
        `min < value < max` (ordered, NaN gives false).
        echo-recompute stashes it instead of `value`; the lowering of the
        gradient op evaluates the same predicate when it gets `value`.
      }],
      /*retTy=*/"::mlir::Value",
      /*methodName=*/"buildGradientReadMask",
      /*args=*/(ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
                    "::mlir::Value":$value)>,
    InterfaceMethod<
      /*desc=*/[{
        Returns true when result `index` is a stochastic mask (dropout's
        `i1` mask): a pure function of the op's attributes and the element
        index, which the op's gradient reads. Recomputing the op reproduces
        it bit for bit; strategies that keep such ops (mirror) or stash the
        mask packed (echo) ask here rather than look at element types.
      }],
      /*retTy=*/"bool",
      /*methodName=*/"isStochasticMaskResult",
      /*args=*/(ins "unsigned":$index)>,
    InterfaceMethod<
      /*desc=*/[{
        Returns true when operand `index` receives a gradient. Integer
        operands (indices, labels) never do.
      }],
      /*retTy=*/"bool",
      /*methodName=*/"isDifferentiableOperand",
      /*args=*/(ins "unsigned":$index),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::mlir::isa<::mlir::FloatType>(::mlir::getElementTypeOrSelf(
            $_op->getOperand(index).getType()));
      }]>,
    InterfaceMethod<
      /*desc=*/[{
        Builds the vector-Jacobian product at the builder's insertion point.
        `resultGrads[i]` is the adjoint of result `i`, or a null value when
        nothing downstream depends on that result. On success, fills
        `operandGrads` with one value per operand: its adjoint, or null when
        the operand is not differentiable. The built ops read only the
        forward values named by `getGradientReadOperands` and
        `getGradientReadResults`.
      }],
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"buildGradient",
      /*args=*/(ins "::mlir::OpBuilder &":$builder,
                    "::mlir::ValueRange":$resultGrads,
                    "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

def Echo_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::mlir::echo";
  let description = [{
    A static cost model of an op. `echo-recompute` partitions the graph at
    compute-heavy ops (the paper's "compute-intensive" layers: GEMMs and
    convolutions) and never re-runs them; the memory report sums the FLOP
    estimates of the forward, backward and recompute parts of a step. The
    FLOPs and the bytes an op reads and writes give its time under a
    roofline (echo/Analysis/TimeModel.h), in which recomputation is priced.
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns an estimate of the floating-point operations the op performs.",
      /*retTy=*/"int64_t",
      /*methodName=*/"estimateFlops">,
    InterfaceMethod<
      /*desc=*/[{
        Returns true when the op is compute-heavy: re-running it costs far
        more than the memory its result occupies is worth.
      }],
      /*retTy=*/"bool",
      /*methodName=*/"isComputeHeavy">,
    InterfaceMethod<
      /*desc=*/[{
        Returns an estimate of the bytes of memory the op reads and writes:
        by default every operand and result tensor once; an op that only
        views its operand (a reshape) or reads part of it (a slice) says
        less.
      }],
      /*retTy=*/"int64_t",
      /*methodName=*/"estimateBytesAccessed",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::mlir::echo::detail::estimateOperandAndResultBytes($_op);
      }]>,
  ];
}

def Echo_AutocastOpInterface : OpInterface<"AutocastOpInterface"> {
  let cppNamespace = "::mlir::echo";
  let description = [{
    The precision an op runs in under automatic mixed precision
    (`echo-autocast`, PyTorch's autocast rules): in the low-precision type
    (GEMMs, convolutions), in f32 (long sums: reductions, softmax, losses),
    in the widest type of its non-constant operands (elementwise, pooling
    and shape ops), in the type of its data operand (the norms), or as
    written. The pass
    casts the op's float operands to that type and gives its float results
    that type; the policy is the op's `autocast` field (EchoBase.td).
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the precision the op runs in under autocast.",
      /*retTy=*/"::mlir::echo::AutocastPolicy",
      /*methodName=*/"getAutocastPolicy">,
  ];
}

def Echo_IndexOperandOpInterface : OpInterface<"IndexOperandOpInterface"> {
  let cppNamespace = "::mlir::echo";
  let description = [{
    An op with integer operands that index into another operand (embedding
    ids into the table, labels into the classes). Tools that generate data
    (`echo-run`) draw those integers inside the range the op accepts.
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/[{
        Returns the exclusive upper bound of the values operand
        `operandIndex` may hold (they start at 0), or 0 when the operand is
        not an index operand.
      }],
      /*retTy=*/"int64_t",
      /*methodName=*/"getIndexBound",
      /*args=*/(ins "unsigned":$operandIndex)>,
    InterfaceMethod<
      /*desc=*/[{
        Returns the one value outside [0, bound) that index operand
        `operandIndex` may also hold, because the op skips it (a loss's
        `ignore_index`: PyTorch's −100 marks padding and masked tokens), or
        none.
      }],
      /*retTy=*/"std::optional<int64_t>",
      /*methodName=*/"getIgnoredIndex",
      /*args=*/(ins "unsigned":$operandIndex),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return std::nullopt;">,
  ];
}

def Echo_LibraryCallOpInterface : OpInterface<"LibraryCallOpInterface"> {
  let cppNamespace = "::mlir::echo";
  let description = [{
    A compute-heavy op that a target runs as a call into a vendor library
    (cuBLAS GEMM, cuDNN convolution) instead of generated code.
    `echo-library-calls` rewrites the op into

    ```mlir
    func.call @<name>(<inputs as memrefs>..., <output memref>, <scalars as i64>...)
    ```

    on a fresh output buffer, with every memref cast to a dynamic shape and
    strided layout (the C ABI is `_mlir_ciface_<name>` taking
    `StridedMemRefType` pointers, implemented by the Echo CUDA runtime).
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the runtime function the op becomes.",
      /*retTy=*/"::llvm::StringRef",
      /*methodName=*/"getLibraryCallName">,
    InterfaceMethod<
      /*desc=*/[{
        Returns true when the call has 16-bit forms, `<name>_bf16` and
        `<name>_f16`, taking bf16 (f16) buffers with f32 accumulation
        inside, for an op whose tensors are all bf16 (all f16). Which of
        the two a runtime implements is a property of the runtime, given to
        echo-library-calls as its `bf16-calls` and `f16-calls` options.
      }],
      /*retTy=*/"bool",
      /*methodName=*/"has16BitLibraryCall",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return false;">,
    InterfaceMethod<
      /*desc=*/[{
        Returns the index in getLibraryCallScalars() of a flag that, set to
        1, makes the call add its result to what its output buffer holds
        (a GEMM's beta = 1), or -1 when the call has no such flag.
        `echo-library-calls` sets it for an op whose only user adds the
        result to another tensor: the call accumulates into that tensor's
        buffer.
      }],
      /*retTy=*/"int",
      /*methodName=*/"getLibraryCallAccumulateScalar",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return -1;">,
    InterfaceMethod<
      /*desc=*/[{
        Returns false for an instance better left to generated code (a
        matmul whose contraction has length 1: an outer product, which
        elementwise fusion folds into its consumer); `echo-library-calls`
        leaves it to the lowering of the other Echo ops.
      }],
      /*retTy=*/"bool",
      /*methodName=*/"isLibraryCallWorthwhile",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return true;">,
    InterfaceMethod<
      /*desc=*/"Returns the tensors the call reads, in call order.",
      /*retTy=*/"::llvm::SmallVector<::mlir::Value>",
      /*methodName=*/"getLibraryCallInputs">,
    InterfaceMethod<
      /*desc=*/[{
        Returns the integer arguments that follow the buffers (transposes,
        strides, padding, a convolution's group count, whether the call
        accumulates into its output).
      }],
      /*retTy=*/"::llvm::SmallVector<int64_t>",
      /*methodName=*/"getLibraryCallScalars">,
    InterfaceMethod<
      /*desc=*/[{
        Returns a tensor the output buffer is initialised with before the
        call, broadcast along the output's leading dimensions (the bias of
        `linear`, into which the GEMM then accumulates), or null when the
        call overwrites its output.
      }],
      /*retTy=*/"::mlir::Value",
      /*methodName=*/"getLibraryCallInit",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return {};">,
    InterfaceMethod<
      /*desc=*/[{
        Returns, for each buffer of the call (its inputs in call order, then
        its output), how many of its innermost dimensions the runtime needs
        packed row-major: the last of unit stride, each other one stepping
        over the ones after it whole. The dimension just outside them must
        step over them whole too (a matrix's row stride, BLAS's leading
        dimension; a batch of images' image stride); the ones further out
        may have any stride (a batched GEMM's batch). The default, 1 for
        every buffer, is a GEMM's: rows of unit stride. After one-shot
        bufferization `echo-library-call-layouts` copies a buffer whose
        layout does not prove this (a column of a stacked tensor: inner
        stride > 1) into a fresh, packed one.
      }],
      /*retTy=*/"::llvm::SmallVector<int64_t>",
      /*methodName=*/"getLibraryCallPackedDims",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::llvm::SmallVector<int64_t>(
            $_op.getLibraryCallInputs().size() + 1, 1);
      }]>,
  ];
}

def Echo_InPlaceUpdateOpInterface : OpInterface<"InPlaceUpdateOpInterface"> {
  let cppNamespace = "::mlir::echo";
  let description = [{
    An op whose results are new values of some of its operands (an
    optimizer's update: the parameter and its state), meant to be written
    where the old values are. Its lowering is destination-passing onto
    those operands, so that one-shot bufferization writes into their
    buffers when nothing reads the old values afterwards; `echo-autodiff`
    and `echo-recompute` keep the op after every other reader of them, and
    the memory model counts no new bytes for a result whose operand is a
    function argument (the caller's buffer, updated in place).
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/[{
        Returns the index of the operand whose new value result
        `resultIndex` is.
      }],
      /*retTy=*/"unsigned",
      /*methodName=*/"getUpdatedOperandIndex",
      /*args=*/(ins "unsigned":$resultIndex)>,
  ];

  let extraClassDeclaration = [{
    /// The operand whose new value `result` (a result of this op) is.
    ::mlir::OpOperand &getUpdatedOperand(::mlir::OpResult result) {
      return this->getOperation()->getOpOperand(
          getUpdatedOperandIndex(result.getResultNumber()));
    }
  }];
}

def Echo_MemoryCategoryOpInterface : OpInterface<"MemoryCategoryOpInterface"> {
  let cppNamespace = "::mlir::echo";
  let description = [{
    An op whose results belong to one memory category whatever their place
    in the step (`MemoryCategory`, echo/Analysis/MemoryCategories.h): a
    host copy made by `echo.offload` is host offload, a value `echo.fetch`
    brings back is a stashed activation. Other values take their category
    from where the step defines them (an argument's marker, the forward or
    backward pass, a recompute region).
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the memory category of result `resultIndex`.",
      /*retTy=*/"::mlir::echo::MemoryCategory",
      /*methodName=*/"getResultCategory",
      /*args=*/(ins "unsigned":$resultIndex)>,
  ];
}

def Echo_RowChunkOpInterface : OpInterface<"RowChunkOpInterface"> {
  let cppNamespace = "::mlir::echo";
  let description = [{
    An op that can be run on row chunks of one of its operands: the rows
    (dimension 0) of that operand are either rows of the result (the op is
    row-wise in it) or summed over (the op contracts or reduces them). The
    chunked loss of `echo-recompute` (`chunk-loss=`) rewrites the readers of
    a loss's logits gradient through this interface, so that no reader sees
    more than one chunk of it at a time.
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/[{
        Builds this op on rows [`offset`, `offset` + rows of `chunk`) of
        operand `operandIndex`, given as `chunk`, slicing (echo.slice) the
        other operands that share those rows. Returns the op's result for
        those rows, which are then its rows [`offset`, ...) (`summed` set to
        false), or its addend over those rows, the result being the sum over
        all chunks (`summed` set to true). Returns a null value, building
        nothing, when the op is neither row-wise in the operand nor a sum
        over its rows.
      }],
      /*retTy=*/"::mlir::Value",
      /*methodName=*/"buildOnRowChunk",
      /*args=*/(ins "::mlir::OpBuilder &":$builder, "unsigned":$operandIndex,
                    "::mlir::Value":$chunk, "int64_t":$offset,
                    "bool &":$summed)>,
  ];
}

#endif // ECHO_DIALECT_ECHO_IR_ECHOINTERFACES_TD
