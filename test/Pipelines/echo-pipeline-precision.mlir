// echo-pipeline precision=: f32 (the default) runs the model as written;
// bf16 and f16 run echo-autocast before echo-autodiff, so the GEMMs and
// elementwise ops of the step are in the low-precision type, the
// parameters and their gradients stay f32. The stashed feature maps: in
// f32 the linear's 8×16 output (relu's gradient reads it, 512 bytes) and
// the loss's logits (512); in bf16 each takes 256 bytes (the loss, in f32,
// widens its bf16 logits as it reads them), and the weight gradient's GEMM
// reads the bf16 cast of the 8×4 input (64): 576.
// f16 with loss-scale takes the loss scale as a trailing argument.
// RUN: echo-opt %s --echo-training-pipeline="strategy=none" | FileCheck %s --check-prefix=F32
// RUN: echo-opt %s --echo-training-pipeline="strategy=none precision=f32" | FileCheck %s --check-prefix=F32
// RUN: echo-opt %s --echo-training-pipeline="strategy=none precision=bf16" | FileCheck %s --check-prefix=BF16
// RUN: echo-opt %s --echo-training-pipeline="strategy=none precision=f16 loss-scale=true" | FileCheck %s --check-prefix=F16
// RUN: echo-opt %s --echo-pipeline="strategy=none report=-" -o /dev/null | FileCheck %s --check-prefix=BYTES32
// RUN: echo-opt %s --echo-pipeline="strategy=none precision=bf16 report=-" -o /dev/null | FileCheck %s --check-prefix=BYTES16
// The lowered bf16 step: no bf16 arithmetic or conversion left for LLVM,
// which needs AVX512-BF16 or compiler-rt's __truncsfbf2 for them; bf16
// stays as what is loaded and stored.
// RUN: echo-opt %s --echo-pipeline="strategy=none precision=bf16" -o %t.bf16.mlir
// RUN: not grep -E 'llvm\.(fadd|fsub|fmul|fdiv|fneg|fcmp|fptrunc|fpext|intr\.[a-z]+) .*bf16' %t.bf16.mlir
// RUN: FileCheck %s --check-prefix=LLVM16 < %t.bf16.mlir
// RUN: not echo-opt %s --echo-pipeline="precision=f8" 2>&1 | FileCheck %s --check-prefix=BAD
// On target=nvvm the GEMMs call the CUDA runtime's 16-bit forms (cuBLAS,
// f32 accumulation) of either type; the CPU runtime has bf16 ones only.
// RUN: echo-opt %s --echo-pipeline="precision=bf16 target=nvvm gpu-format=isa" | FileCheck %s --check-prefix=NVVM-BF16
// RUN: echo-opt %s --echo-pipeline="precision=f16 target=nvvm gpu-format=isa" | FileCheck %s --check-prefix=NVVM-F16
// RUN: echo-opt %s --echo-pipeline="precision=f16" | FileCheck %s --check-prefix=CPU-F16

// F32-LABEL: func.func @mlp_train
// F32-NOT: echo.cast
// F32-NOT: bf16
// BF16-LABEL: func.func @mlp_train
// BF16-SAME: -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>)
// BF16: echo.linear {{.*}} -> tensor<8x16xbf16>
// BF16: echo.cross_entropy {{.*}} : (tensor<8x16xbf16>, tensor<8xi32>) -> tensor<f32>
// BF16: echo.cast {{.*}} : tensor<16x4xbf16> to tensor<16x4xf32>
// F16-LABEL: func.func @mlp_train
// F16-SAME: %{{.*}}: tensor<f32> {echo.hyper = "loss_scale"}
// F16: echo.linear {{.*}} -> tensor<8x16xf16>
// BYTES32: "feature_map_bytes": 1024,
// BYTES16: "feature_map_bytes": 576,
// LLVM16: llvm.store {{.*}} : bf16, !llvm.ptr
// BAD: Cannot find option named 'f8'
// NVVM-BF16: llvm.call @_mlir_ciface_echo_gemm_bf16(
// NVVM-BF16-NOT: @_mlir_ciface_echo_gemm(
// NVVM-F16: llvm.call @_mlir_ciface_echo_gemm_f16(
// NVVM-F16-NOT: @_mlir_ciface_echo_gemm(
// CPU-F16-NOT: echo_gemm_f16
// CPU-F16: @_mlir_ciface_echo_gemm(
func.func @mlp(%x: tensor<8x4xf32>, %labels: tensor<8xi32>,
               %w: tensor<16x4xf32> {echo.param},
               %b: tensor<16xf32> {echo.param}) -> tensor<f32> {
  %h = "echo.linear"(%x, %w, %b) : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r = "echo.relu"(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %l = "echo.cross_entropy"(%r, %labels) : (tensor<8x16xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
