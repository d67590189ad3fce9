// REQUIRES: cuda-toolkit
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-pipeline="target=nvvm strategy=echo gpu-format=isa" | FileCheck %s
// `cuda` is echo-run's name of the same target; the pipeline accepts both.
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-pipeline="target=cuda strategy=echo gpu-format=isa" | FileCheck %s
// RUN: echo-opt %echo_src/models/resnet.mlir --echo-pipeline="target=nvvm strategy=echo gpu-format=isa" | FileCheck %s --check-prefix=CONV
// RUN: echo-opt %echo_src/models/mlp.mlir --echo-pipeline="target=nvvm gpu-format=isa chip=sm_80 gpu-block-size=128" | FileCheck %s --check-prefix=SM80
// RUN: not echo-opt %echo_src/models/mlp.mlir --echo-pipeline="target=nvvm gpu-format=isa cuda-path=%echo_obj/no-such-toolkit" 2>&1 | FileCheck %s --check-prefix=NOCUDA

// The training step compiles to host code in the LLVM dialect: GEMMs are
// calls into the runtime, every other op is a kernel of one gpu.binary,
// launched through the mgpu* entry points, and the step's memory is one
// arena argument (planned with 256-byte alignment).

// CHECK-LABEL: llvm.func private @echo_gemm(
// CHECK: llvm.call @_mlir_ciface_echo_gemm
// CHECK: llvm.func @_mlir_ciface_echo_gemm(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64)
// CHECK: gpu.binary @echo_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK-SAME: assembly = "
// CHECK-SAME: .target sm_90
// CHECK-NOT: gpu.binary
// 3 forward GEMMs, 2 input and 3 weight gradients; the rest are kernels.
// CHECK-LABEL: llvm.func @mlp_train(
// CHECK-COUNT-8: llvm.call @echo_gemm(
// CHECK-NOT: llvm.call @echo_gemm(
// CHECK: gpu.launch_func @echo_kernels::
// CHECK-LABEL: llvm.func @_mlir_ciface_mlp_train(
// CHECK-NOT: echo.

// The convolutions and their gradients are cuDNN calls, not kernels.
// CONV-DAG: llvm.func @_mlir_ciface_echo_conv2d_forward(
// CONV-DAG: llvm.func @_mlir_ciface_echo_conv2d_backward_data(
// CONV-DAG: llvm.func @_mlir_ciface_echo_conv2d_backward_filter(
// CONV: gpu.binary @echo_kernels

// SM80: gpu.binary @echo_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_80"
// SM80-SAME: .maxntid 128, 1, 1

// NOCUDA: echo-pipeline: target=nvvm needs a CUDA toolkit with {{.*}}no-such-toolkit/nvvm/libdevice/libdevice.10.bc

// RUN: not echo-opt %echo_src/models/mlp.mlir --echo-pipeline="target=nvvm plan-buffers=false" 2>&1 | FileCheck %s --check-prefix=NOPLAN
// NOPLAN: echo-pipeline: target=nvvm needs plan-buffers=true
// RUN: not echo-opt %echo_src/models/mlp.mlir --echo-pipeline="target=nvvm chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: echo-pipeline: chip 'gfx90a' is not an NVIDIA architecture
// RUN: not echo-opt %echo_src/models/mlp.mlir --echo-pipeline="target=nvvm gpu-format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: for the --gpu-format option: Cannot find option named 'elf'!
// RUN: not echo-opt %echo_src/models/mlp.mlir --echo-pipeline="target=nvvm gpu-block-size=2048" 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: echo-pipeline: gpu-block-size must be in [1, 1024]

// Kernels compute their indices in 32-bit unsigned arithmetic, dividing by
// constants: the launch's constants are sunk into it before outlining, and
// each kernel's thread and block ids are bounded by its launch
// (known_block_size, known_grid_size), which integer range analysis
// carries to every div/rem of a collapsed loop's delinearization. The
// transformer's embedding over [2, 8, 16] (its positional embedding's
// broadcast fused in) divides by 16 and by 8.
// RUN: echo-opt %echo_src/models/transformer.mlir --echo-pipeline="target=nvvm" --mlir-print-ir-before=convert-scf-to-cf -o /dev/null 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX-LABEL: gpu.func @transformer_kernel(%{{[^:]*}}: memref<2x8xi32>, %{{[^:]*}}: memref<8x16xf32>, %{{[^:]*}}: memref<20x16xf32>, %{{[^:]*}}: memref<2x8x16xf32>) kernel
// INDEX-NOT: gpu.return
// INDEX: arith.remui %{{.*}}, %c16_i32 : i32
// INDEX: arith.divui %{{.*}}, %c16_i32 : i32
// INDEX: arith.remui %{{.*}}, %c8_i32 : i32
// INDEX: arith.divui %{{.*}}, %c8_i32 : i32
// INDEX: gpu.return
// INDEX-NOT: arith.divsi
// INDEX-NOT: arith.remsi
