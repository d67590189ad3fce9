//===- Pipelines.cpp - Echo's end-to-end pass pipelines -------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Pipelines/Pipelines.h"
#include "echo/Conversion/Passes.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::echo;

#ifndef ECHO_CUDA_TOOLKIT_DIR
#define ECHO_CUDA_TOOLKIT_DIR ""
#endif

std::string mlir::echo::getCudaToolkitPath(const EchoPipelineOptions &options) {
  if (!options.cudaPath.empty())
    return options.cudaPath;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    return home;
  return ECHO_CUDA_TOOLKIT_DIR;
}

static std::string libdevicePath(StringRef cuda) {
  SmallString<128> path(cuda);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return std::string(path);
}

LogicalResult mlir::echo::validateEchoPipelineOptions(
    const EchoPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> error) {
  if (options.strategy != "none" && options.strategy != "mirror" &&
      options.strategy != "sublinear" && options.strategy != "echo")
    return error("echo-pipeline: unknown recompute strategy '" +
                 options.strategy +
                 "' (expected 'none', 'mirror', 'sublinear' or 'echo')");
  if (options.target != "cpu" && options.target != "nvvm")
    return error("echo-pipeline: unknown target '" + options.target +
                 "' (expected 'cpu' or 'nvvm')");
  if (options.target == "nvvm") {
    if (!options.planBuffers)
      return error("echo-pipeline: target=nvvm needs plan-buffers=true (a "
                   "GPU step's memory is the planned arena)");
    if (!StringRef(options.chip).starts_with("sm_"))
      return error("echo-pipeline: chip '" + options.chip +
                   "' is not an NVIDIA architecture (expected e.g. sm_90)");
    if (options.gpuFormat != "fatbin" && options.gpuFormat != "bin" &&
        options.gpuFormat != "isa")
      return error("echo-pipeline: unknown gpu-format '" + options.gpuFormat +
                   "' (expected 'fatbin', 'bin' or 'isa')");
    if (options.gpuBlockSize < 1 || options.gpuBlockSize > 1024)
      return error("echo-pipeline: gpu-block-size must be in [1, 1024]");
    std::string cuda = getCudaToolkitPath(options);
    if (cuda.empty() || !llvm::sys::fs::exists(libdevicePath(cuda)))
      return error(
          "echo-pipeline: target=nvvm needs a CUDA toolkit with " +
          (cuda.empty() ? std::string("libdevice") : libdevicePath(cuda)) +
          " (the kernels' math functions); pass cuda-path= or set "
          "CUDA_HOME");
  }
  if (options.optimizer != "none" && options.optimizer != "sgd")
    return error("echo-pipeline: unknown optimizer '" + options.optimizer +
                 "' (expected 'none' or 'sgd')");
  return success();
}

void mlir::echo::buildEchoTrainingPipeline(OpPassManager &pm,
                                           const EchoPipelineOptions &options) {
  if (options.autodiff) {
    EchoAutodiffOptions ad;
    ad.optimizer = options.optimizer;
    ad.lr = options.lr;
    pm.addPass(createEchoAutodiff(ad));
  }
  // strategy=none leaves the IR as it is (and does not verify it, so that
  // echo-run can lower an f64 copy of a model for its gradient check).
  if (options.strategy != "none") {
    EchoRecomputeOptions rc;
    rc.strategy = options.strategy;
    pm.addPass(createEchoRecompute(rc));
  }
}

/// Bufferization of the lowered step. Results become out-parameters so that
/// the caller owns every buffer it gets back.
static constexpr const char *kBufferize =
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{modify-public-functions hoist-static-allocs}";

/// The upstream part of the CPU lowering after planning, as a textual
/// pipeline (see shared/ENV.md for why each pass is there).
static constexpr const char *kCpuToLLVM = "buffer-deallocation-pipeline,"
                                          "convert-linalg-to-loops,"
                                          "convert-vector-to-scf{full-unroll},"
                                          "convert-scf-to-cf,"
                                          "expand-strided-metadata,"
                                          "lower-affine,"
                                          "echo-strip-markers,"
                                          "func.func(llvm-request-c-wrappers),"
                                          "finalize-memref-to-llvm,"
                                          "convert-vector-to-llvm,"
                                          "convert-math-to-llvm,"
                                          "convert-to-llvm,"
                                          "reconcile-unrealized-casts";

static void addTextualPipeline(OpPassManager &pm, StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("echo-pipeline: a built-in pipeline does not "
                             "parse: " +
                             pipeline);
}

void mlir::echo::buildEchoBufferizationPipeline(
    OpPassManager &pm, const EchoPipelineOptions &options) {
  bool gpu = options.target == "nvvm";
  if (gpu)
    pm.addPass(createEchoLibraryCalls());
  pm.addPass(createConvertEchoToLinalg());
  // Folds the tensor.empty/fill/pad chains of the lowering; no CSE, which
  // would merge recomputed values back into the stashed ones.
  if (gpu) {
    pm.addPass(createCanonicalizerPass());
    // A recomputed value fuses into the kernel that consumes it (what the
    // paper's hand-written Echo kernels did); the GEMMs and convolutions
    // are library calls by now, so only elementwise chains fuse.
    addTextualPipeline(pm, "linalg-fuse-elementwise-ops");
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createEchoFillConstants());
  } else {
    pm.addPass(createEchoVectorizeContractions());
    pm.addPass(createCanonicalizerPass());
  }
  addTextualPipeline(pm, kBufferize);
  if (options.planBuffers) {
    EchoPlanBuffersOptions plan;
    // The GPU arena is one device allocation that the runtime passes in;
    // 256 bytes is cudaMalloc's alignment.
    plan.alignment = gpu ? 256 : 64;
    plan.arena = gpu ? "argument" : "alloc";
    pm.addPass(createEchoPlanBuffers(plan));
    pm.addPass(createEchoVerifyBufferPlan());
  }
}

/// Kernels to NVVM and a gpu.binary, host code to the LLVM dialect calling
/// the mgpu* runtime: upstream's gpu-lower-to-nvvm-pipeline, with the
/// toolkit passed to gpu-module-to-binary (libdevice, ptxas) and all
/// kernels in one module (one ptxas run).
static void buildNVVMPipeline(OpPassManager &pm,
                              const EchoPipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  EchoMapToGPUOptions map;
  map.blockSize = options.gpuBlockSize;
  pm.addNestedPass<func::FuncOp>(createEchoMapToGPU(map));
  addTextualPipeline(pm, "convert-parallel-loops-to-gpu,canonicalize,"
                         "echo-strip-markers,"
                         "func.func(llvm-request-c-wrappers),"
                         "gpu-kernel-outlining");
  pm.addPass(createEchoMergeGPUModules());
  addTextualPipeline(pm, "convert-scf-to-cf,convert-func-to-llvm,"
                         "expand-strided-metadata");
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.features = options.gpuFeatures;
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  addTextualPipeline(pm,
                     "lower-affine,convert-arith-to-llvm,convert-index-to-llvm,"
                     "canonicalize,cse,"
                     "gpu.module(strip-debuginfo,convert-gpu-to-nvvm,"
                     "llvm-optimize-for-nvvm-target,canonicalize,cse,"
                     "reconcile-unrealized-casts),"
                     "gpu-to-llvm");
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = getCudaToolkitPath(options);
  binary.compilationTarget = options.gpuFormat;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  addTextualPipeline(pm, "convert-math-to-llvm,canonicalize,cse,"
                         "reconcile-unrealized-casts");
}

void mlir::echo::buildEchoLLVMPipeline(OpPassManager &pm,
                                       const EchoPipelineOptions &options) {
  if (options.target == "nvvm")
    buildNVVMPipeline(pm, options);
  else
    addTextualPipeline(pm, kCpuToLLVM);
}

void mlir::echo::buildEchoLoweringPipeline(OpPassManager &pm,
                                           const EchoPipelineOptions &options) {
  buildEchoBufferizationPipeline(pm, options);
  buildEchoLLVMPipeline(pm, options);
}

void mlir::echo::buildEchoPipeline(OpPassManager &pm,
                                   const EchoPipelineOptions &options) {
  buildEchoTrainingPipeline(pm, options);
  // The footprint is measured on the tensor-level step and written once the
  // buffers are planned (planned_bytes).
  if (options.report.empty()) {
    buildEchoLoweringPipeline(pm, options);
    return;
  }
  EchoMemoryReportOptions attach;
  attach.attach = true;
  pm.addPass(createEchoMemoryReport(attach));
  buildEchoBufferizationPipeline(pm, options);
  EchoMemoryReportOptions write;
  write.output = options.report;
  pm.addPass(createEchoMemoryReport(write));
  buildEchoLLVMPipeline(pm, options);
}

void mlir::echo::registerEchoPipelines() {
  registerPassPipeline(
      "echo-pipeline",
      "From Echo models to LLVM-dialect IR: autodiff, recomputation, "
      "lowering through linalg and bufferization",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        EchoPipelineOptions options;
        if (failed(options.parseFromString(optionsStr)))
          return failure();
        if (failed(validateEchoPipelineOptions(options, errorHandler)))
          return failure();
        buildEchoPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(EchoPipelineOptions());
      });
}
