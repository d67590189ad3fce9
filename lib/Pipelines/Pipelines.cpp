//===- Pipelines.cpp - Echo's end-to-end pass pipelines -------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Pipelines/Pipelines.h"
#include "echo/Conversion/Passes.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::echo;

LogicalResult mlir::echo::validateEchoPipelineOptions(
    const EchoPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> error) {
  if (options.strategy != "none" && options.strategy != "mirror" &&
      options.strategy != "sublinear" && options.strategy != "echo")
    return error("echo-pipeline: unknown recompute strategy '" +
                 options.strategy +
                 "' (expected 'none', 'mirror', 'sublinear' or 'echo')");
  if (options.target != "cpu")
    return error("echo-pipeline: unknown target '" + options.target +
                 "' (expected 'cpu')");
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
  pm.addPass(createConvertEchoToLinalg());
  pm.addPass(createEchoVectorizeContractions());
  // Folds the tensor.empty/fill/pad chains of the lowering; no CSE, which
  // would merge recomputed values back into the stashed ones.
  pm.addPass(createCanonicalizerPass());
  addTextualPipeline(pm, kBufferize);
  if (options.planBuffers) {
    EchoPlanBuffersOptions plan;
    plan.alignment = 64;
    pm.addPass(createEchoPlanBuffers(plan));
    pm.addPass(createEchoVerifyBufferPlan());
  }
}

void mlir::echo::buildEchoLLVMPipeline(OpPassManager &pm,
                                       const EchoPipelineOptions &options) {
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
