//===- NVVMPipeline.cpp - target=nvvm: kernels, gpu.binary, host code -----===//
//
// Part of the Echo project.
//
// The GPU part of `echo-llvm-pipeline`, in the shape of upstream's
// GPUToNVVMPipeline.cpp (`gpu-lower-to-nvvm-pipeline`): a common part, the
// passes nested on the gpu.module, and the host part after it. Where it
// differs from upstream, and why:
//
// - Before the common part, Echo maps linalg ops to `gpu.launch`es itself
//   (echo-map-to-gpu, convert-parallel-loops-to-gpu), sinks constants into
//   the launches, outlines the kernels and merges them into one gpu.module
//   (one ptxas run for the whole step: NMT's 695 kernels take 5.5 s
//   instead of 21 s), whose index math is narrowed to 32 bits where the
//   launch bounds allow (integer range analysis).
// - Host functions get C wrappers (llvm-request-c-wrappers) so that a
//   driver calls the step with memref descriptors.
// - No nvgpu/vector/nvvm-to-llvm passes: the kernels use none of them.
// - gpu-module-to-binary is given the CUDA toolkit, so that libdevice (the
//   kernels' math functions) is linked and ptxas/fatbinary are found.
//
//===----------------------------------------------------------------------===//

#include "echo/Pipelines/Pipelines.h"
#include "echo/Target/GPU/Passes.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::echo;

/// Echo's own step before upstream's: linalg to kernels, one gpu.module.
static void buildKernelPipeline(OpPassManager &pm,
                                const EchoPipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  EchoMapToGPUOptions map;
  map.blockSize = options.gpuBlockSize;
  pm.addNestedPass<func::FuncOp>(createEchoMapToGPU(map));
  pm.addPass(createConvertParallelLoopToGpuPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createEchoStripMarkers());
  pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  // Constants and index arithmetic go into the kernels, so that a kernel's
  // index math divides by constants (shifts, multiplications) instead of
  // by kernel arguments.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createEchoMergeGPUModules());
  // bf16 and f16 math (precision=bf16|f16) computed in f32, as on the CPU
  // and as PyTorch's CUDA kernels do (their "opmath" type): the elementwise
  // ops already compute in f32 and round once; what arithmetic the
  // lowering left on 16-bit floats rounds after each op. libdevice has no
  // 16-bit math functions, and the loads and stores stay 16-bit, which is
  // where the bytes are.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16", "f16"};
  emulate.targetTypeStr = "f32";
  pm.addNestedPass<gpu::GPUModuleOp>(
      arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addNestedPass<gpu::GPUModuleOp>(math::createMathExtendToSupportedTypes());
  // A kernel's thread and block ids are bounded (known_block_size,
  // known_grid_size), so its index math (the delinearization of a
  // collapsed loop: div/rem by each dimension) fits 32 bits, unsigned:
  // 64-bit integer division is a long instruction sequence on NVIDIA GPUs.
  arith::ArithIntRangeNarrowingOptions narrowing;
  narrowing.bitwidthsSupported = {32};
  pm.addNestedPass<gpu::GPUModuleOp>(
      arith::createArithUnsignedWhenEquivalentPass());
  pm.addNestedPass<gpu::GPUModuleOp>(
      arith::createArithIntRangeNarrowing(narrowing));
  // (Ops the first run replaced have no ranges for it; the second sees
  // them.)
  pm.addNestedPass<gpu::GPUModuleOp>(
      arith::createArithUnsignedWhenEquivalentPass());
}

/// Upstream's buildCommonPassPipeline, less what the kernels do not use.
static void buildCommonPassPipeline(OpPassManager &pm,
                                    const EchoPipelineOptions &options) {
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.features = options.gpuFeatures;
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Upstream's buildGpuPassPipeline, unchanged.
static void buildGpuPassPipeline(OpPassManager &pm) {
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
}

/// Upstream's buildHostPostPipeline, with the toolkit and format passed to
/// gpu-module-to-binary.
static void buildHostPostPipeline(OpPassManager &pm,
                                  const EchoPipelineOptions &options) {
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = getCudaToolkitPath(options);
  binary.compilationTarget = stringifyGpuFormat(options.gpuFormat).str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::echo::buildEchoNVVMPipeline(OpPassManager &pm,
                                       const EchoPipelineOptions &options) {
  buildKernelPipeline(pm, options);
  buildCommonPassPipeline(pm, options);
  buildGpuPassPipeline(pm);
  buildHostPostPipeline(pm, options);
}
