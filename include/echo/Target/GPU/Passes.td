//===- Passes.td - Echo's GPU passes -----------------------*- tablegen -*-===//
//
// Part of the Echo project.
//
// The passes that only target=nvvm runs, kept apart from the
// target-independent conversions (echo/Conversion/Passes.td) so that another
// target adds its own directory next to this one.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TARGET_GPU_PASSES_TD
#define ECHO_TARGET_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def EchoFillConstants : Pass<"echo-fill-constants", "::mlir::ModuleOp"> {
  let summary = "Tensor constants become device-filled buffers";
  let description = [{
    One-shot bufferization puts a tensor constant in a host `memref.global`,
    which GPU kernels cannot read. This pass replaces every splat
    `arith.constant dense<v> : tensor<...>` inside a function with
    `linalg.fill ins(v) outs(tensor.empty())`, so that the buffer is
    planned into the arena and filled on the device, and every other dense
    tensor constant with a `linalg.generic` into `tensor.empty()` that loads
    each element from a private constant `memref.global` (`__echo_constant`,
    renamed if taken) through a `memref.get_global` inside its body: kernel
    outlining copies the global into the kernel's module, so its data sits
    in device memory, and the buffer is planned into the arena like any
    other. Run it after the last canonicalization, before bufferization.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def EchoMergeGPUModules : Pass<"echo-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Put every outlined kernel in one gpu.module";
  let description = [{
    `gpu-kernel-outlining` makes one `gpu.module` per kernel, and
    `gpu-module-to-binary` then runs the PTX assembler once per module
    (hundreds of times for a training step). This pass moves every kernel
    into one module, `@echo_kernels`, renaming each after the module it came
    from, and retargets the `gpu.launch_func` ops. Run it right after
    outlining, before a target is attached.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def EchoMapToGPU : Pass<"echo-map-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map a bufferized step's loops onto GPU blocks and threads";
  let description = [{
    Prepares a bufferized, planned function for `convert-parallel-loops-to-gpu`
    and `gpu-kernel-outlining`, leaving on the host only what the host may
    do (views and casts of device buffers, scalar arithmetic, library
    calls):

    1. `memref.copy` becomes `linalg.copy`. A top-level reduction whose
       outputs are each folded by one arith add/mul/min/max of f32, f64 or
       i32 becomes a `gpu.launch` of one block per output when it has few
       outputs (at most 8192) of many values each (at least 1024: a
       batch-norm statistic, a loss chunk's row sums; `block-size` threads),
       or when it reduces along rows (an input's last index is reduced: a
       layer norm's statistics, a softmax's sums) at least 32 values each
       (a thread per 4 values, a power of 2 from 32 to `block-size`): each
       thread folds a strided share of the values, `gpu.all_reduce` folds
       the block's, thread 0 folds that into the output (a fixed order,
       though not a sequential loop's). Every other linalg op becomes a
       nest of `scf.parallel` (its parallel dimensions, first: a reduction
       over rows is interchanged) around `scf.for` (its reductions).
    2. Each top-level `scf.parallel` is collapsed to one dimension, tiled by
       `block-size` and mapped to `blockIdx.x` × `threadIdx.x`: consecutive
       threads touch consecutive elements of row-major buffers.
    3. A top-level `scf.for` whose iterations depend on each other but
       whose elementwise loops touch, at each point of their one index
       space, only that point's elements (the scatter of an embedding
       gradient: table[ids[i], j] += dy[i, j], ids read-only) runs a thread
       per point, each thread running every iteration in order: the same
       sums as one thread, in parallel over the columns.
    4. Each run of consecutive top-level ops that reads or writes memory
       any other way is wrapped in one single-thread `gpu.launch`, with the
       parallel loops inside it made sequential.

    Allocations left in the function (buffers the planner did not place)
    and global memrefs are errors: a GPU step's memory is its arguments and
    the planned arena.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block of the mapped loops">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // ECHO_TARGET_GPU_PASSES_TD
