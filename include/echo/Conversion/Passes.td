//===- Passes.td - Echo conversion passes ------------------*- tablegen -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_CONVERSION_PASSES_TD
#define ECHO_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertEchoToLinalg : Pass<"convert-echo-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower every Echo op to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites forward, gradient and mask ops into destination-style ops on
    tensors (`linalg.generic`, `linalg.matmul`, `linalg.batch_matmul`,
    `linalg.reduce`, `linalg.transpose`,
    `tensor.extract_slice`/`insert_slice`/`pad`, and one `scf.for` for the
    scatter of `embedding_grad`); elementwise `arith` ops on tensors
    (echo-recompute's ReLU masks) become `linalg.generic` with upstream's
    elementwise-to-linalg patterns. `echo.recompute` regions are inlined in
    place first, so the recomputed values stay distinct SSA values (and
    buffers) from the forward ones: do not run CSE after this pass. An
    elementwise op on bf16 or f16 tensors computes its formula in f32 on
    its widened operands and rounds the result once, as PyTorch's kernels
    do; long sums accumulate in f64 (f32 for 16-bit data), and the norms on
    16-bit data compute their statistics and x̂ in f32.

    `echo.broadcast` is a `linalg.generic` (elementwise fusion folds it into
    its consumers); a matmul or batch_matmul over a contraction of length
    1 is an elementwise outer product on its operands with the unit dim
    collapsed; `echo.add(acc, echo.slice_grad(dy))` with the slice gradient
    used only there, and acc an op's result read by that add only, adds dy
    to acc's slice in place (a `linalg.generic` on a `memref.subview` of
    `bufferization.to_buffer(acc)`, the sum named by `to_tensor restrict
    writable`; applied before the other patterns), so a gradient summed
    over the slices of one tensor never holds a second full-size tensor and
    one-shot bufferization sees one short chain per slice. An
    `echo.slice` of an `echo.embedding` that takes whole rows, where every
    user of the embedding is such a slice, becomes the embedding of the
    sliced ids (a decoder reading its inputs one time step at a time
    gathers each step's rows where it needs them). Its gradient, first:
    an `echo.embedding_grad` of a sum of slice gradients that take whole
    rows, where the table's gradient is the step's result or no larger
    than that sum, becomes the sum of the embedding gradients of each
    slice's ids, each where its slice's gradient is made, and
    `echo.add(acc, echo.embedding_grad(...))` scatters into acc's buffer in
    place (the rule above); every scatter writes the buffer of its
    zero-filled table through `to_buffer`/`to_tensor restrict writable`,
    so a table gradient that is the step's result is written in the
    caller's buffer.

    `echo.dropout` draws its mask from a counter-based generator: element
    `i` (row-major) of a dropout with seed `s` is kept iff
    `mix(i + s * 0x9E3779B97F4A7C15) >> 40 >= round(ratio * 2^24)`, where
    `mix` is the SplitMix64 finalizer. With `broadcast_dims`, `i` is the
    element's row-major index over the shape without those dims, so one
    draw is shared along them. A dropout that reads the step's seed `t`
    (its `step_seed` operand) uses `s * 0x9E3779B97F4A7C15 ^ mix(t +
    0x9E3779B97F4A7C15)` in place of `s * 0x9E3779B97F4A7C15`: a fresh
    stream at every step. The mask is a pure function of (seed, step seed,
    index), so a recomputed dropout (on any target) gives the same bits.

    `max_pool2d_grad` routes each adjoint to the first maximum of its window
    (row-major); `reduce_max_grad` to every element equal to the maximum.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def EchoTransferCalls : Pass<"echo-transfer-calls", "::mlir::ModuleOp"> {
  let summary = "Turn host-offload ops into calls to the runtime's host pool";
  let description = [{
    Each `echo.offload` in a function gets a slot (its index in the
    function, from 0) and becomes, at the tensor level,

    ```mlir
    %xb = bufferization.to_buffer %x read_only : memref<4x8xf32, strided<[?, ?], offset: ?>>
    %xu = memref.cast %xb : ... to memref<*xf32>
    func.call @echo_offload_f32(%xu, %slot) : (memref<*xf32>, i64) -> ()
    ```

    `echo.fetch` of that copy allocates its result and calls
    `echo_fetch_f32(%slot, %out)`; `echo.transfer_wait %v` calls
    `echo_transfer_wait_f32(%slot, %v)` with the slot of the transfer it
    waits for (passing `%v` keeps its buffer live to the wait in the
    buffer plan). The suffix is the element type (`f32`, `f16`, `bf16`);
    callees are declared `private` with `llvm.emit_c_interface`. The CPU
    runtime copies into a counted host pool, the CUDA runtime into pinned
    host memory on a copy stream (echo/Runtime/EchoRuntimeABI.h). Run it
    before `convert-echo-to-linalg`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def EchoLibraryCalls : Pass<"echo-library-calls", "::mlir::ModuleOp"> {
  let summary = "Turn compute-heavy Echo ops into calls to the vendor-library runtime";
  let description = [{
    Every op that implements `LibraryCallOpInterface` (matmul, batch_matmul,
    linear, conv2d and the convolution gradients) becomes, at the tensor
    level,

    ```mlir
    %xb = bufferization.to_buffer %x read_only : memref<..., strided<[?, ...], offset: ?>>
    %out = memref.alloc() : memref<...>
    func.call @echo_conv2d_forward(%xb', %wb', %out', %c1, %c1, %c0, %c0, %c1)
        : (memref<?x?x?x?xf32, strided<...>>, ..., i64, i64, i64, i64, i64) -> ()
    %y = bufferization.to_tensor %out restrict writable
    ```

    so that one-shot bufferization passes the calls through and the buffer
    planner places each output in the arena like any other buffer. The
    callee is declared `private` with `llvm.emit_c_interface`; the Echo CUDA
    runtime implements `_mlir_ciface_<name>` on cuBLAS and cuDNN, the CPU
    runtime on OpenBLAS and oneDNN. The calls take f32 buffers: an op on
    f16 or bf16 tensors reads its operands converted to f32 (`echo.cast`)
    and rounds its result back, unless the op's tensors are all bf16 (all
    f16), its call has 16-bit forms (`has16BitLibraryCall`: the GEMMs and
    convolutions) and
    `bf16-calls` (`f16-calls`) says the runtime has them: it then calls
    `<name>_bf16` (`<name>_f16`) on its 16-bit buffers. Run it before
    `convert-echo-to-linalg`.

    Accumulation: an f32 op with an accumulate flag
    (`getLibraryCallAccumulateScalar`: the GEMMs' beta = 1) whose only user
    is an `echo.add` of its result and a tensor that an op before it
    defines and that only the add reads calls with that tensor's buffer as
    its output (`bufferization.to_buffer`, writable) and replaces the add
    (a tensor read again would need a copy that canonicalization can fold
    away before bufferization sees it; a function argument is the
    caller's buffer):
    the product has no buffer of its own, and a gradient summed over time
    steps grows in one buffer. An op for which `isLibraryCallWorthwhile`
    is false (a product over a contraction of length 1, an outer product)
    is left to `convert-echo-to-linalg`.
  }];
  let options = [
    Option<"bf16Calls", "bf16-calls", "bool", /*default=*/"false",
           "Call the runtime's bf16 forms (<name>_bf16) for all-bf16 ops that "
           "have one (the CPU runtime's oneDNN, the CUDA runtime's cuBLAS "
           "and cuDNN)">,
    Option<"f16Calls", "f16-calls", "bool", /*default=*/"false",
           "Call the runtime's f16 forms (<name>_f16) for all-f16 ops that "
           "have one (the CUDA runtime's cuBLAS and cuDNN)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def EchoLibraryCallLayouts
    : Pass<"echo-library-call-layouts", "::mlir::ModuleOp"> {
  let summary = "Copy the buffers of library calls that the runtimes cannot "
                "take into packed ones";
  let description = [{
    After one-shot bufferization a library call's buffer may be a view of a
    larger one: a slice, a reshape of a slice. The runtimes take strides
    where the libraries do (a GEMM's row stride is BLAS's leading
    dimension, a convolution's image stride a cuDNN/oneDNN descriptor's),
    but not every layout: a column of a stacked tensor (the gradient of one
    expert's output of `torch.stack([e(x) for e in experts], -1)`) has no
    unit stride at all, which no BLAS takes.

    Each call that `echo-library-calls` made carries `echo.packed_dims`:
    for each of its buffers (inputs, then the output), how many innermost
    dimensions must be packed row-major
    (`LibraryCallOpInterface::getLibraryCallPackedDims`: a GEMM's rows; a
    convolution's images and whole filter). A buffer whose memref type
    (or the type of a view it is cast from) does not prove that layout is
    copied into a fresh `memref.alloc` of identity layout before the call,
    and the call takes the copy:

    ```mlir
    %col = memref.collapse_shape %slice [[0], [1, 2]]
        : memref<4x8x1xf32, strided<[32, 4, 1], offset: ?>> into memref<4x8xf32, strided<[32, 4], offset: ?>>
    %packed = memref.alloc() : memref<4x8xf32>
    memref.copy %col, %packed : memref<4x8xf32, strided<[32, 4], offset: ?>> to memref<4x8xf32>
    %arg = memref.cast %packed : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
    call @echo_gemm(%a, %arg, %c, ...)
    ```

    The output, which the call writes and may accumulate into, is copied
    in before and back after (echo-library-calls gives every call a packed
    output, so this is a safeguard). The copies are allocations like any
    other: `echo-plan-buffers` places them in the arena, live from the
    copy to the call, so the memory report counts them. The attribute is
    removed. Run it after one-shot bufferization, before the planner.
  }];
  let statistics = [
    Statistic<"numCopies", "copies",
              "Buffers of library calls copied into packed ones">,
  ];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
  ];
}

def EchoFinalizeRecompute
    : Pass<"echo-finalize-recompute", "::mlir::ModuleOp"> {
  let summary = "Leave an adopted step in its producer's dialects";
  let description = [{
    Echo's last pass on a step adopted by `echo-adopt-training-step`, run
    as the last tensor-level pass before bufferization. Until it runs, the
    recomputed clones sit in `echo.recompute` regions, which are isolated
    from above: a downstream `--canonicalize --cse` cannot merge a clone
    back into the forward op it copies (which would undo the saving). This
    pass inlines the regions, lowers the packed masks
    (`echo.pack_mask`/`echo.unpack_mask`) to linalg, and drops Echo's
    markers (`echo.adopted`, `echo.train_step`, `echo.backward_begin`,
    `echo.recompute_strategy`, `echo.memory_stats`), so that the module
    holds only its producer's and upstream dialects and parses without
    Echo. Do not run CSE between it and bufferization. Functions that were
    not adopted are left alone; an Echo op this pass cannot remove is an
    error that names it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // ECHO_CONVERSION_PASSES_TD
