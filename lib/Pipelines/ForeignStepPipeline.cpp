//===- ForeignStepPipeline.cpp - echo-foreign-step-pipeline ---------------===//
//
// Part of the Echo project.
//
// A function in TOSA or linalg on tensors, adopted and planned when it is a
// training step differentiated elsewhere, through Echo's own lowering to
// the LLVM dialect (echo/Pipelines/ForeignStep.h).
//
//===----------------------------------------------------------------------===//

#include "echo/Conversion/Passes.h"
#include "echo/Pipelines/ForeignStep.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::echo;

LogicalResult mlir::echo::validateEchoForeignStepPipelineOptions(
    const EchoForeignStepPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> error) {
  if (options.loss >= 0 && !options.tangents.empty())
    return error("echo-foreign-step-pipeline: give either loss= or "
                 "tangents=, not both");
  if (options.loss < -1)
    return error("echo-foreign-step-pipeline: loss= must be a result number "
                 "(>= 0), got " +
                 Twine(options.loss.getValue()));
  if (options.adopts() && options.function.empty())
    return error("echo-foreign-step-pipeline: loss= and tangents= need "
                 "function= (the step to adopt)");
  if (options.comparePlans < 0)
    return error("echo-foreign-step-pipeline: compare-plans must be 0 "
                 "(decide on the estimate) or a number of candidate plans, "
                 "got " +
                 Twine(options.comparePlans.getValue()));
  std::string why;
  if (!checkRecomputeBudgetOptions(options.strategy, options.budget, 0, why))
    return error("echo-foreign-step-pipeline: " + why);
  return success();
}

void mlir::echo::setForeignLoweringOptions(
    const EchoForeignStepPipelineOptions &options,
    EchoPipelineOptions &lowering) {
  lowering.target = Target::CPU;
  lowering.libraryCalls = options.libraryCalls;
  lowering.planBuffers = options.planBuffers;
  // The strategy ran on the foreign ops before the hand-back; Echo's phases
  // see linalg on tensors only.
  lowering.comparePlans = 0;
  lowering.autodiff = false;
  lowering.strategy = RecomputeStrategy::None;
}

void mlir::echo::buildEchoAdoptPipeline(
    OpPassManager &pm, const EchoForeignStepPipelineOptions &options) {
  if (!options.adopts())
    return;
  EchoAdoptTrainingStepOptions adopt;
  adopt.functionName = options.function;
  adopt.loss = options.loss;
  adopt.tangents.assign(options.tangents.begin(), options.tangents.end());
  pm.addPass(createEchoAdoptTrainingStep(adopt));
  EchoRecomputeOptions recompute;
  recompute.strategy = options.strategy;
  recompute.budget = options.budget;
  recompute.heavyBudget = options.heavyBudget;
  recompute.peakGflops = options.peakGflops;
  recompute.memoryGbps = options.memoryGbps;
  recompute.chunkLoss = "off";
  // echo and budget decide on what the lowered step will hold, as
  // echo-pipeline's do: each candidate is handed back and planned by Echo's
  // bufferization phase.
  bool comparesPlans = (options.strategy == RecomputeStrategy::Echo ||
                        options.strategy == RecomputeStrategy::Budget) &&
                       options.comparePlans > 0 && options.planBuffers;
  if (comparesPlans) {
    recompute.plansCompared = options.comparePlans;
    OpPassManager planner(ModuleOp::getOperationName());
    buildEchoHandBackPipeline(planner);
    EchoPipelineOptions lowering;
    setForeignLoweringOptions(options, lowering);
    buildEchoBufferizationPipeline(planner, lowering);
    pm.addPass(createEchoRecompute(recompute, std::move(planner)));
  } else {
    pm.addPass(createEchoRecompute(recompute));
  }
  if (!options.report.empty()) {
    EchoMemoryReportOptions report;
    report.output = options.report;
    pm.addPass(createEchoMemoryReport(report));
  }
}

void mlir::echo::buildEchoHandBackPipeline(OpPassManager &pm) {
  pm.addPass(createEchoFinalizeRecompute());
  OpPassManager &func = pm.nest<func::FuncOp>();
  func.addPass(tosa::createTosaToLinalgNamed());
  func.addPass(tosa::createTosaToLinalg());
  func.addPass(createTosaToArithPass());
  func.addPass(createTosaToTensorPass());
}

void mlir::echo::buildEchoForeignStepPipeline(
    OpPassManager &pm, const EchoForeignStepPipelineOptions &options) {
  buildEchoAdoptPipeline(pm, options);
  buildEchoHandBackPipeline(pm);
  EchoPipelineOptions lowering;
  setForeignLoweringOptions(options, lowering);
  buildEchoBufferizationPipeline(pm, lowering);
  buildEchoLLVMPipeline(pm, lowering);
}

void mlir::echo::registerEchoForeignStepPipeline() {
  registerPassPipeline(
      "echo-foreign-step-pipeline",
      "From a function in TOSA or linalg on tensors to LLVM-dialect IR for "
      "the CPU; with loss= or tangents=, a step differentiated elsewhere is "
      "adopted and planned first (echo-adopt-training-step, echo-recompute, "
      "echo-finalize-recompute)",
      [](OpPassManager &pm, StringRef optionsStr,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        EchoForeignStepPipelineOptions options;
        if (failed(options.parseFromString(optionsStr)) ||
            failed(
                validateEchoForeignStepPipelineOptions(options, errorHandler)))
          return failure();
        buildEchoForeignStepPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(EchoForeignStepPipelineOptions());
      });
}
