//===- Passes.td - Echo's CPU passes -----------------------*- tablegen -*-===//
//
// Part of the Echo project.
//
// The passes that only target=cpu runs, beside echo/Target/GPU.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TARGET_CPU_PASSES_TD
#define ECHO_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def EchoOutlineKernels : Pass<"echo-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline each top-level linalg op on buffers into a function";
  let description = [{
    A training step lowers to one function holding a loop nest per linalg op
    (thousands at paper sizes). LLVM's loop passes scale with the function
    they run on (IndVarSimplify and LoopRotate spent 310 s of the 335 s that
    `opt -O2` took on the paper-size NMT step), so the step compiles in
    time quadratic in its size. This pass moves every linalg op on buffers
    at the top level of a function into its own private function,
    `@<function>_kernel_<n>`, marked `noinline` (`passthrough`) so that LLVM
    does not merge them back, and calls it: compile time then grows linearly with
    the number of ops, as a GPU step's kernels do.

    The kernel takes the op's operands (memrefs and scalars) and any value
    its body uses from above; constants are cloned into it. A top-level
    `memref.copy` between a strided view and a buffer of the same static
    shape (a padded buffer's interior), which would call the C runner's
    element-by-element `memrefCopy`, becomes a `linalg.copy` kernel first. Functions with
    fewer than `min-ops` linalg ops are left alone. Run it on planned,
    deallocated buffers, before `convert-linalg-to-loops` and after
    `llvm-request-c-wrappers` (a kernel needs no C interface).

    With `parallel-min-work=N` (N > 0), a kernel whose loops have static
    extents and run at least N iterations in all is split across threads:
    its op moves into `@<kernel>_part(args..., %lo, %hi)`, marked
    `echo.parallel_part`, which runs the iterations [lo, hi) of the op's
    outermost parallel loop (the op tiled to that range, on views of its
    operands), and the kernel calls the part on the whole range.
    `echo-cpu-parallel-calls` turns that call into the CPU runtime's
    `echo_cpu_parallel_for`. Each output element is still computed by one
    part with the same loops, so results are bitwise unchanged. The
    echo-pipeline sets it where the step links the CPU runtime.

    ```mlir
    linalg.generic ... ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
    // becomes
    call @f_kernel_0(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
    ```
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", /*default=*/"2",
           "Outline only in functions with at least this many linalg ops">,
    Option<"parallelMinWork", "parallel-min-work", "int64_t",
           /*default=*/"0",
           "Split a kernel of at least this many loop iterations across "
           "threads (0: none)">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernel functions created">,
    Statistic<"numReused", "reused-kernels",
              "Linalg ops that call a kernel created for an identical op">,
    Statistic<"numParallel", "parallel-kernels",
              "Kernels split across threads">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

def EchoOutlineSegments : Pass<"echo-outline-segments", "::mlir::ModuleOp"> {
  let summary = "Split long functions into calls of segments of bounded size";
  let description = [{
    Once `echo-outline-kernels` has moved the loop nests out, a training
    step is a driver: views into the arena, kernel and library calls,
    copies and deallocations, in one block. At paper size it is still huge
    (the DeepSpeech2 step: ~40k ops, ~700k LLVM instructions in one
    function), and LLVM's register allocator and coalescer take time
    superlinear in the size of a function (85 s of llc's 112 s). This pass
    cuts every function whose body has more than `max-ops` top-level ops into
    consecutive segments of at most `max-ops` ops, each a private `noinline`
    function `@<function>_segment_<n>` called in order, so that code
    generation time grows linearly with the step.

    A segment takes the values it uses from before it (function arguments,
    allocations) and returns those that later segments or the terminator
    use. Side-effect-free ops without regions (constants, `memref.view`,
    casts, index arithmetic) are not cut: each segment that uses one clones
    it (and the side-effect-free ops it depends on), so that a view into the
    arena is not passed around as a descriptor. A function with a top-level
    `memref.alloca` stays whole (stack memory would die with its segment).
    Run it after `echo-outline-kernels`, on buffers.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"256",
           "Largest number of top-level ops left in one function">,
  ];
  let statistics = [
    Statistic<"numSegments", "segments", "Segment functions created">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
  ];
}

def EchoCpuParallelCalls
    : Pass<"echo-cpu-parallel-calls", "::mlir::ModuleOp"> {
  let summary = "Run the kernels split across threads on the CPU runtime's "
                "threads";
  let description = [{
    On the LLVM dialect: every call of a function marked
    `echo.parallel_part` (`echo-outline-kernels` with `parallel-min-work`),
    whose last two arguments are the range [lo, hi) of iterations it runs,
    becomes a call of the CPU runtime's

    ```c
    void echo_cpu_parallel_for(void (*body)(void *context, int64_t lo,
                                            int64_t hi),
                               void *context, int64_t lo, int64_t hi);
    ```

    which runs [lo, hi) in contiguous parts on its threads (OpenMP's, the
    ones oneDNN uses; one part where there is one thread). The other
    arguments (the operands: bare pointers, see
    `echo-cpu-bare-pointer-calls`, or memref descriptors expanded into
    scalars) are stored in a struct on the caller's stack, the context; a
    trampoline `@<part>_body(context, lo, hi)` loads them and calls the
    part. Run it after the conversion to the LLVM dialect.
  }];
  let statistics = [
    Statistic<"numCalls", "parallel-calls",
              "Calls dispatched to echo_cpu_parallel_for">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def EchoBarePointerCalls
    : Pass<"echo-cpu-bare-pointer-calls", "::mlir::ModuleOp"> {
  let summary = "Pass static memrefs to the step's own functions as bare "
                "pointers";
  let description = [{
    The LLVM lowering passes a memref to a function as its descriptor
    expanded into 3 + 2 * rank scalars (two pointers, the offset, the sizes
    and the strides), each taken out of the caller's descriptor: on a long
    training step the kernel and segment calls (`echo-outline-kernels`,
    `echo-outline-segments`) made seven LLVM ops in ten, which every pass
    after the conversion and LLVM's code generation then pay for. The sizes,
    strides and offset of a memref with a static shape and layout are
    constants of its type, so the callee needs only the aligned pointer.

    This pass marks every private function with a body whose memref
    arguments and results all have static shapes, strides and offsets, and
    whose every use is a direct `func.call`, with `llvm.bareptr`: upstream's
    conversion of `func` to the LLVM dialect then passes (and returns) one
    pointer per memref and rebuilds the descriptor from the type inside the
    callee. Public functions (the step and its C interface), declarations
    (the runtime's entry points, whose C ABI takes descriptors) and functions
    whose address is taken keep the descriptor convention. Run it before the
    conversion of `func` to the LLVM dialect.

    The callee's descriptor has the pointer as both its allocated and its
    aligned pointer, so a marked function that deallocates a memref it was
    passed, or returns one its caller deallocates, frees the aligned
    pointer: the allocations must be lowered so that the two agree
    (`finalize-memref-to-llvm` with `use-aligned-alloc`, as echo-pipeline
    lowers them), and memrefs from outside the module must not be
    deallocated by them (a step never deallocates its arguments).

    ```mlir
    func.func private @f_kernel_0(%a: memref<4xf32>, %b: memref<4xf32>)
    // becomes
    func.func private @f_kernel_0(%a: memref<4xf32>, %b: memref<4xf32>)
        attributes {llvm.bareptr}
    // and lowers to llvm.func @f_kernel_0(!llvm.ptr, !llvm.ptr)
    ```
  }];
  let statistics = [
    Statistic<"numFunctions", "bare-pointer-functions",
              "Functions called with bare pointers">,
  ];
}

def EchoApproximateMath : Pass<"echo-approximate-math"> {
  let summary = "f32 math functions as polynomials that vectorize";
  let description = [{
    `math.tanh`, `math.exp`, `math.log` and their kin lower to scalar libm
    calls on the CPU, which LLVM cannot vectorize: at paper size the NMT
    step spent a fifth of its time in `tanhf`/`expm1f`, and recomputing
    activations cost as much again. This pass rewrites the f32 ones into
    MLIR's polynomial approximations (`populateMathPolynomialApproximation-
    Patterns`: arithmetic only, errors of a few ulp), which LLVM's loop
    vectorizer turns into AVX-512 code. Run it on the CPU path before the
    math dialect is lowered to LLVM.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def EchoExpandBF16 : Pass<"echo-expand-bf16"> {
  let summary = "bf16 conversions as integer arithmetic, on any x86-64";
  let description = [{
    `arith.extf` from bf16 and `arith.truncf` to bf16 lower to LLVM's
    `fpext`/`fptrunc` on `bfloat`, which x86 code generation turns into
    instructions only where the CPU has AVX512-BF16 and into calls to
    compiler-rt's `__truncsfbf2` elsewhere: an AVX2 machine's JIT or a
    shared step built there then needs a symbol that neither libgcc 12 nor
    the step provides. This pass rewrites them (scalars and vectors) into
    the integer arithmetic of MLIR's `populateExpandBFloat16Patterns`: a
    shift to widen, round-to-nearest-even on the bits to narrow (NaN kept
    quiet), which LLVM vectorizes on every x86-64 and which rounds as the
    instructions do. A truncation from f64 first rounds to f32 to odd (the
    f32 nearest toward zero, its last bit set when inexact), so that the
    bf16 is the correctly rounded one. Run it on the CPU path before arith
    is lowered to LLVM.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def EchoVectorizableLoops : Pass<"echo-vectorizable-loops"> {
  let summary = "Give reductions a parallel innermost loop, which vectorizes";
  let description = [{
    `convert-linalg-to-loops` nests a generic's loops in the order of its
    dims, and LLVM's loop vectorizer only vectorizes an innermost loop whose
    iterations are independent (a floating-point sum is a serial chain
    unless it may be reassociated). The lowering puts reductions innermost:
    a batch norm's statistics, summed over (n, h, w) for each channel, ran
    as one scalar add per value (and each bf16 term widened, computed and
    rounded as scalars); a pooling window's (kh, kw) loops came inside the
    output's (oh, ow). This pass rewrites, on tensors (before
    bufferization), the `linalg.generic` ops that allow it:

    * **Sums in lanes.** A generic with one float output whose body yields
      `arith.addf` of the output's value and one term, whose innermost
      loop is a reduction read by every input that reads it as its last
      (contiguous) index, with another reduction loop beside it and at
      least `min-lanes` iterations: that loop becomes parallel, each of its
      positions summing the other reduced loops, in their order, into its
      own accumulator (a new tensor, the output's shape and that extent,
      zero-filled), and a second generic adds the lanes, in order, to the
      output. The terms of a sum are added in another order than before,
      fixed by the op and its shapes alone: results do not depend on
      fusion, recomputation or threads.
    * **Window loops outside the output's last dim.** A generic whose
      trailing loops are reductions, whose last parallel loop indexes the
      output's last dim and whose inputs read that loop only in their last
      index, one of them together with a trailing reduction loop (a
      pooling window: `ow * s + kw`): the trailing reductions move just
      before that loop (`linalg::interchangeGenericOp`). Each output
      element still folds its terms in the same order: bitwise the same.

    (The pooling gradients' gather is built with its window loops outside
    by the lowering itself: it reads through `tensor.extract`, not through
    indexing maps this pass could follow.) The GPU target leaves these
    alone (its mapping puts parallel dims first and reduces across a
    block). Run it on the CPU path before
    `echo-fuse-elementwise`: which sums accumulate in lanes then depends on
    the ops alone, not on what a recompute strategy's fusions made of them
    (a fused generic with two outputs is not a sum), so strategies keep
    giving bitwise the same results.
  }];
  let options = [
    Option<"minLanes", "min-lanes", "int64_t", /*default=*/"8",
           "The fewest iterations of an innermost reduction loop that is "
           "split into lanes">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def EchoCollapseContiguousLoops : Pass<"echo-collapse-contiguous-loops"> {
  let summary = "Merge a parallel generic's loops over contiguous memory into one loop";
  let description = [{
    `convert-linalg-to-loops` nests one loop per dim, and LLVM's loop
    vectorizer works on the innermost one: a batch norm applied to a
    [16, 128, 14, 14] tensor, with its per-channel statistics read as
    [128], ran 14-iteration inner loops, which LLVM vectorized across the
    outer ones with gathers of the statistics and element-by-element stores
    (5% of a bf16 ResNet-18 step). This pass rewrites each
    `linalg.generic` on buffers whose loops are all parallel and whose body
    reads no `linalg.index`: each run of consecutive loops that every
    operand indexes as consecutive dims in the same order, or not at all,
    becomes one loop (`linalg::collapseOpIterationDims`, the operands
    viewed through `memref.collapse_shape`). The batch norm's (n, c, h, w)
    becomes (n, c, h·w): a 196-iteration inner loop with the statistics
    loop-invariant in it. Each element is computed by the same body from
    the same values: bitwise the same results.

    target=cpu runs it on the outlined kernels, right before
    `convert-linalg-to-loops`; a generic on tensors, one with a reduction
    loop, one that reads `linalg.index` (dropout's generator, which numbers
    the elements), or a buffer whose dims cannot be merged into one view
    is left as it is.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // ECHO_TARGET_CPU_PASSES_TD
