//===- EchoDialect.td - Echo dialect definition ------------*- tablegen -*-===//
//
// Part of the Echo project: a training-graph compiler that recomputes
// feature maps instead of stashing them.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHODIALECT_TD
#define ECHO_DIALECT_ECHO_IR_ECHODIALECT_TD

include "mlir/IR/OpBase.td"

def Echo_Dialect : Dialect {
  let name = "echo";
  let cppNamespace = "::mlir::echo";
  let summary = "Training graphs of neural networks, with their backward pass "
                "and recomputation";
  let description = [{
    The `echo` dialect describes one training step of a neural network on
    statically shaped, value-semantic tensors: the forward ops of the model,
    the gradient ops `echo.<op>_grad` that `echo-autodiff` builds, the
    `echo.recompute` regions that `echo-recompute` places in the backward pass
    and the 1-bit mask encoding `echo.pack_mask` / `echo.unpack_mask`.

    A model is a `func.func` returning a scalar `tensor<f32>` loss whose
    trainable arguments carry the unit attribute `echo.param`; the training
    step that `echo-autodiff` derives from it carries `echo.train_step`.

    ```mlir
    func.func @mlp(%x: tensor<8x4xf32>, %w: tensor<2x4xf32> {echo.param},
                   %b: tensor<2xf32> {echo.param}, %y: tensor<8xi32>)
        -> tensor<f32> {
      %h = echo.linear %x, %w, %b
          : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<8x2xf32>
      %l = echo.cross_entropy %h, %y
          : (tensor<8x2xf32>, tensor<8xi32>) -> tensor<f32>
      return %l : tensor<f32>
    }
    ```
  }];
  // Gradients of some ops need constants.
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Unit attribute marking a trainable parameter argument of a model.
    static constexpr ::llvm::StringLiteral getParamAttrName() {
      return ::llvm::StringLiteral("echo.param");
    }
    /// Unit attribute marking an argument of a training step that holds an
    /// optimizer's state for one parameter (a velocity, a moment): the
    /// parameter's type, updated in place by the step.
    static constexpr ::llvm::StringLiteral getOptimizerStateAttrName() {
      return ::llvm::StringLiteral("echo.optimizer_state");
    }
    /// String attribute marking a 0-d f32 argument of a training step as
    /// the optimizer hyperparameter it names (`lr`, `beta1`, `step`, ...).
    static constexpr ::llvm::StringLiteral getHyperAttrName() {
      return ::llvm::StringLiteral("echo.hyper");
    }
    /// Unit attribute marking the step's random seed: a 0-d i64 argument
    /// that the caller sets before every step (a fresh value each time), and
    /// that every `echo.dropout` reads as its `step_seed` operand, so that
    /// each step draws new masks while recomputation within a step
    /// reproduces them.
    static constexpr ::llvm::StringLiteral getRngSeedAttrName() {
      return ::llvm::StringLiteral("echo.rng_seed");
    }
    /// Unit attribute marking a frozen parameter: a floating-point data
    /// argument that holds a parameter of the model which is not trained
    /// (PyTorch's `requires_grad=False`). It gets no gradient and no update;
    /// the memory report counts it with the parameters.
    static constexpr ::llvm::StringLiteral getFrozenAttrName() {
      return ::llvm::StringLiteral("echo.frozen");
    }
    /// Array of i64 on a training step that updates arguments in place: one
    /// entry per result, the argument whose new value the result is, or -1
    /// (the loss). Read by `echo-update-in-place` after bufferization.
    static constexpr ::llvm::StringLiteral getUpdatedArgumentsAttrName() {
      return ::llvm::StringLiteral("echo.updated_arguments");
    }
    /// Unit attribute marking a function built by `echo-autodiff`.
    static constexpr ::llvm::StringLiteral getTrainStepAttrName() {
      return ::llvm::StringLiteral("echo.train_step");
    }
    /// String attribute on a training step recording the recompute strategy
    /// `echo-recompute` applied to it (read by the memory report).
    static constexpr ::llvm::StringLiteral getRecomputeStrategyAttrName() {
      return ::llvm::StringLiteral("echo.recompute_strategy");
    }
    /// Dictionary attribute on a training step that offloads values: the
    /// bandwidth model's parameters and estimates (echo-recompute's
    /// offload schedule; the memory report reads it).
    static constexpr ::llvm::StringLiteral getOffloadScheduleAttrName() {
      return ::llvm::StringLiteral("echo.offload_schedule");
    }
    /// Dictionary attribute on a training step whose loss echo-recompute
    /// chunked (`chunk-loss=`): chunks, rows, chunk_rows and
    /// logits_bytes_saved (the memory report reads it).
    static constexpr ::llvm::StringLiteral getChunkedLossAttrName() {
      return ::llvm::StringLiteral("echo.chunked_loss");
    }
    /// Unit attribute on the first op of a chunked loss (`chunk-loss=`),
    /// which forms the loss where its gradient is: the backward pass begins
    /// there, before the loss (TrainingStep's forward/backward split).
    static constexpr ::llvm::StringLiteral getBackwardBeginAttrName() {
      return ::llvm::StringLiteral("echo.backward_begin");
    }
    /// Non-negative i64 on a forward op computed inside a region the model
    /// checkpoints (`torch.utils.checkpoint`): the region's number, one per
    /// call. A hint to the recompute strategies that the user would rather
    /// recompute the region than stash its values (the budget strategy's
    /// `checkpoint regions` candidates recompute exactly those ops).
    static constexpr ::llvm::StringLiteral getCheckpointRegionAttrName() {
      return ::llvm::StringLiteral("echo.checkpoint_region");
    }
    /// Unit attribute on a training step differentiated outside Echo (in
    /// its producer's dialect) that echo-adopt-training-step adopted: its
    /// backward pass begins at the op marked `echo.backward_begin`.
    static constexpr ::llvm::StringLiteral getAdoptedAttrName() {
      return ::llvm::StringLiteral("echo.adopted");
    }
    /// Unit attribute on a kernel's part that runs a range of its loop
    /// (`echo-outline-kernels` parallel-min-work), whose calls
    /// `echo-cpu-parallel-calls` runs across the CPU runtime's threads.
    static constexpr ::llvm::StringLiteral getParallelPartAttrName() {
      return ::llvm::StringLiteral("echo.parallel_part");
    }
    /// Dictionary attribute on a training step echo-recompute planned with
    /// another time model than the defaults (kept on the function as it is
    /// lowered): the roofline its recompute decisions were priced with
    /// (`peak_gflops`, `memory_gbps`; the memory report's seconds use it).
    static constexpr ::llvm::StringLiteral getTimeModelAttrName() {
      return ::llvm::StringLiteral("echo.time_model");
    }
    /// Unit attribute marking the one `memref<Nxi8>` buffer (an alloc or a
    /// function argument) that `echo-plan-buffers` places buffers in.
    static constexpr ::llvm::StringLiteral getArenaAttrName() {
      return ::llvm::StringLiteral("echo.arena");
    }
    /// Dictionary on a function planned by `echo-plan-buffers`: arena_bytes,
    /// lower_bound_bytes, buffers, in_place, alignment, heuristic.
    static constexpr ::llvm::StringLiteral getBufferPlanAttrName() {
      return ::llvm::StringLiteral("echo.buffer_plan");
    }
    /// Dictionary on a training step: its tensor-level memory statistics,
    /// recorded by `echo-memory-report{attach}` for a later report.
    static constexpr ::llvm::StringLiteral getMemoryStatsAttrName() {
      return ::llvm::StringLiteral("echo.memory_stats");
    }
    /// DenseI64ArrayAttr on a library call that `echo-library-calls` made:
    /// for each of its buffers, how many innermost dims the runtime needs
    /// packed (LibraryCallOpInterface::getLibraryCallPackedDims), read and
    /// removed by `echo-library-call-layouts`.
    static constexpr ::llvm::StringLiteral getPackedDimsAttrName() {
      return ::llvm::StringLiteral("echo.packed_dims");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

defvar Echo_FloatElementTypes = [F32, F16, BF16];

/// A statically shaped tensor of floating-point data.
def Echo_FloatTensor : RankedTensorOf<Echo_FloatElementTypes,
    [HasStaticShapePred], "statically shaped tensor">;

/// A statically shaped floating-point tensor of one of the given ranks.
class Echo_FloatTensorOfRank<list<int> ranks>
    : RankedTensorOf<Echo_FloatElementTypes,
        [HasStaticShapePred, HasAnyRankOfPred<ranks>],
        "statically shaped " #
        !interleave(!foreach(rank, ranks, rank # "D"), "/") # " tensor">;

def Echo_FloatTensor0D : Echo_FloatTensorOfRank<[0]>;
def Echo_FloatTensor1D : Echo_FloatTensorOfRank<[1]>;
def Echo_FloatTensor2D : Echo_FloatTensorOfRank<[2]>;
def Echo_FloatTensor3D : Echo_FloatTensorOfRank<[3]>;
def Echo_FloatTensor4D : Echo_FloatTensorOfRank<[4]>;

/// A statically shaped `i1` mask (dropout keep mask, ReLU positivity).
def Echo_MaskTensor : RankedTensorOf<[I1], [HasStaticShapePred],
    "statically shaped tensor">;

/// Statically shaped `i32` indices or labels.
def Echo_IndexTensor : RankedTensorOf<[I32], [HasStaticShapePred],
    "statically shaped tensor">;
/// Data that can be reshaped: floating-point values, or `i32` ids and
/// labels (an importer flattens [B,T] labels for a token-level loss).
def Echo_DataTensor : RankedTensorOf<!listconcat(Echo_FloatElementTypes, [I32]),
    [HasStaticShapePred], "statically shaped tensor">;
/// Data, ids or masks: what the shape ops move and comparisons and
/// conversions read (`i1` masks and `i32` ids computed inside a step).
def Echo_DataOrMaskTensor : RankedTensorOf<
    !listconcat(Echo_FloatElementTypes, [I32, I1]), [HasStaticShapePred],
    "statically shaped tensor">;
def Echo_IndexTensor1D : RankedTensorOf<[I32],
    [HasStaticShapePred, HasAnyRankOfPred<[1]>], "statically shaped 1D tensor">;

/// A step's random seed (`echo.rng_seed`): a 0-d `i64` tensor.
def Echo_SeedTensor : RankedTensorOf<[I64],
    [HasStaticShapePred, HasAnyRankOfPred<[0]>], "0-d i64 tensor">;

/// Masks packed 8 per byte (`echo.pack_mask`).
def Echo_PackedMaskTensor : RankedTensorOf<[I8],
    [HasStaticShapePred, HasAnyRankOfPred<[1]>], "statically shaped 1D tensor">;

/// Anything a forward value may be: data, masks, indices or the step's
/// seed.
def Echo_AnyTensor : AnyTypeOf<[Echo_FloatTensor, Echo_MaskTensor,
    Echo_IndexTensor, Echo_PackedMaskTensor, Echo_SeedTensor],
    "statically shaped tensor", "::mlir::RankedTensorType">;

/// A statically shaped ranked tensor of any element type: what
/// `echo.recompute` passes and yields in an adopted step (one differentiated
/// in its producer's dialect, on its producer's element types).
def Echo_AnyStaticTensor : AnyTypeOf<[RankedTensorOf<[AnyType],
    [HasStaticShapePred]>], "statically shaped tensor",
    "::mlir::RankedTensorType">;

#endif // ECHO_DIALECT_ECHO_IR_ECHODIALECT_TD
