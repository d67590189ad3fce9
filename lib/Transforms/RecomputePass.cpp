//===- RecomputePass.cpp - echo-recompute ---------------------------------===//
//
// Part of the Echo project.
//
// A thin pass over the recomputation library (echo/Transforms/Recompute.h):
// for each training step, the chosen strategy's plan, then the shared
// rewrite. The step records the strategy (`echo.recompute_strategy`).
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"
#include "echo/Transforms/Recompute.h"

#include "echo/Analysis/MemoryAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/ScopeExit.h"

#include <map>

namespace mlir::echo {
#define GEN_PASS_DEF_ECHORECOMPUTE
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {
struct EchoRecomputePass
    : public echo::impl::EchoRecomputeBase<EchoRecomputePass> {
  using Base::Base;

  void runOnOperation() override {
    loweredSteps.clear();
    if (keptLowerings)
      keptLowerings->clear();
    if (!(heavyBudget >= 0.0 && heavyBudget <= 1.0)) {
      getOperation().emitError()
          << "echo-recompute: heavy-budget must be a share of the step's "
             "estimated time in [0, 1], got "
          << heavyBudget;
      return signalPassFailure();
    }
    if (plansCompared < 1) {
      getOperation().emitError()
          << "echo-recompute: plans-compared must be at least 1, got "
          << static_cast<int64_t>(plansCompared);
      return signalPassFailure();
    }
    if (!(budgetEstimateFloor >= 0.0 && budgetEstimateFloor <= 10.0)) {
      getOperation().emitError()
          << "echo-recompute: budget-estimate-floor must be in [0, 10], got "
          << budgetEstimateFloor;
      return signalPassFailure();
    }
    for (auto [name, value] :
         {std::pair<StringRef, double>{"link-bandwidth", linkBandwidth},
          {"device-tflops", deviceTflops},
          {"device-bandwidth", deviceBandwidth},
          {"peak-gflops", peakGflops},
          {"memory-gbps", memoryGbps}})
      if (!(value > 0.0 && value < 1e9)) {
        getOperation().emitError()
            << "echo-recompute: " << name
            << " must be a positive rate below 1e9, got " << value;
        return signalPassFailure();
      }
    bool isBudget = strategy == RecomputeStrategy::Budget;
    std::string error;
    std::optional<RecomputeBudget> parsed =
        checkRecomputeBudgetOptions(strategy, budget, budgetReserve, error);
    if (!parsed) {
      getOperation().emitError() << "echo-recompute: " << error;
      return signalPassFailure();
    }
    parsedBudget = *parsed;
    std::optional<int64_t> chunks = parseLossChunks(chunkLoss, error);
    if (!chunks) {
      getOperation().emitError() << "echo-recompute: " << error;
      return signalPassFailure();
    }
    lossChunks = *chunks;
    if (!budgetTable.empty() && !isBudget &&
        strategy != RecomputeStrategy::Echo) {
      getOperation().emitError() << "echo-recompute: budget-table= is for "
                                    "strategy=budget and strategy=echo";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> steps;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(EchoDialect::getTrainStepAttrName()) &&
          !func.isExternal())
        steps.push_back(func);
    llvm::json::Array tables;
    auto writeTables = [&] {
      std::string error;
      if (budgetTable.empty() ||
          succeeded(writeJSON(std::move(tables), budgetTable, error)))
        return success();
      getOperation().emitError() << "echo-recompute: " << error;
      return failure();
    };
    for (func::FuncOp func : steps) {
      if (failed(rewrite(func, tables))) {
        (void)writeTables();
        return signalPassFailure();
      }
      func.walk([&](OffloadOp) { ++numOffloaded; });
      func.walk([&](RecomputeOp region) {
        ++numRegions;
        for (Operation &op : region.getBody().front())
          if (!isa<YieldOp, arith::ConstantOp>(op))
            ++numRecomputed;
      });
      func->setAttr(
          EchoDialect::getRecomputeStrategyAttrName(),
          StringAttr::get(&getContext(), stringifyRecomputeStrategy(strategy)));
    }
    if (failed(writeTables()))
      return signalPassFailure();
    // Of the lowered candidates, only the chosen steps are kept.
    if (keptLowerings) {
      SmallVector<StepKey> chosen;
      for (func::FuncOp func : steps)
        chosen.push_back(getStepKey(func));
      keptLowerings->retain(chosen);
    }
  }

  LogicalResult rewrite(func::FuncOp func, llvm::json::Array &tables) {
    if (auto done = func->getAttrOfType<StringAttr>(
            EchoDialect::getRecomputeStrategyAttrName()))
      return func.emitError() << "echo-recompute: @" << func.getSymName()
                              << " was already rewritten with strategy '"
                              << done.getValue() << "'";
    if (!TrainingStep(func).getLossOp())
      return func.emitError()
             << "echo-recompute: cannot find the loss of training step @"
             << func.getSymName() << " (its first result must be computed "
             << "by an op of the step)";
    // The time model recomputation is priced in, on the step where it is
    // not the defaults: its clones and the memory report read it there.
    RooflineModel timeModel = RooflineModel::get(peakGflops, memoryGbps);
    if (peakGflops != kDefaultPeakGflops || memoryGbps != kDefaultMemoryGbps)
      func->setAttr(EchoDialect::getTimeModelAttrName(),
                    timeModel.toAttr(&getContext()));
    // The chunked loss comes first: every strategy plans on its step. Under
    // auto, echo chunks where that lowers the estimated peak, and the budget
    // strategy adds candidates in the chunks the estimate picks after those
    // with the loss whole.
    int64_t chunks = lossChunks, budgetChunks = 0;
    if (chunks == kAutoLossChunks) {
      chunks = strategy == RecomputeStrategy::Echo ? chooseLossChunks(func) : 0;
      if (strategy == RecomputeStrategy::Budget)
        budgetChunks = chooseLossChunks(func, /*minChunkRows=*/1);
    }
    if (chunks > 0 && failed(echo::chunkLoss(func, chunks)) &&
        lossChunks != kAutoLossChunks)
      return func.emitError()
             << "echo-recompute: chunk-loss=" << chunks << ": the loss of @"
             << func.getSymName()
             << " is not a cross-entropy of an output layer that can be "
                "chunked (echo.linear, or echo.matmul with or without a "
                "broadcast bias, whose logits only the loss and its "
                "gradient read)";
    OffloadModel model;
    model.linkBytesPerSecond = linkBandwidth * 1e9;
    model.device = RooflineModel::get(deviceTflops * 1e3, deviceBandwidth);
    auto offloadStashed = [&] {
      if (offload == OffloadPolicy::None)
        return;
      offloadValues(func, selectOffloads(func, offload), model);
    };
    if (strategy == RecomputeStrategy::None) {
      offloadStashed();
      return success();
    }
    EchoPlanOptions echoOptions;
    echoOptions.heavyBudget = heavyBudget;
    echoOptions.timeModel = timeModel;
    echoOptions.plansCompared = plansCompared;
    echoOptions.budget = parsedBudget;
    echoOptions.budgetReserve = budgetReserve;
    echoOptions.budgetEstimateFloor = budgetEstimateFloor;
    echoOptions.offload = offload;
    echoOptions.offloadModel = model;
    echoOptions.lossChunks = budgetChunks;
    if (planner)
      echoOptions.stepBytes = [&](ArrayRef<func::FuncOp> steps) {
        return getPlannedStepBytes(steps);
      };
    EchoPlanOptions::BudgetTable table;
    if (!budgetTable.empty())
      echoOptions.budgetTable = &table;
    FailureOr<RecomputePlan> plan = planRecompute(func, strategy, echoOptions);
    if (!budgetTable.empty()) {
      llvm::json::Array rows;
      for (const BudgetCandidateInfo &c : table.candidates) {
        llvm::json::Object row{{"name", c.name},
                               {"recompute_flops", c.recomputeFlops},
                               {"estimated_bytes", c.estimatedBytes},
                               {"chosen", c.chosen}};
        if (strategy == RecomputeStrategy::Budget)
          row["predicted_over_budget"] = c.predictedOver;
        row["step_bytes"] = c.stepBytes ? llvm::json::Value(*c.stepBytes)
                                        : llvm::json::Value(nullptr);
        rows.push_back(std::move(row));
      }
      llvm::json::Object entry{
          {"function", func.getSymName()},
          {"strategy", stringifyRecomputeStrategy(strategy)},
          {"none_bytes", table.noneBytes},
          {"measured", static_cast<bool>(echoOptions.stepBytes)},
          {"candidates", std::move(rows)}};
      if (strategy == RecomputeStrategy::Budget) {
        entry["budget"] = budget;
        entry["budget_bytes"] = table.budgetBytes;
        entry["budget_reserve"] = static_cast<int64_t>(budgetReserve);
      }
      tables.push_back(std::move(entry));
    }
    if (failed(plan))
      return failure();
    applyRecomputePlan(func, *plan);
    // The budget strategy's plan says what it offloads.
    if (strategy != RecomputeStrategy::Budget)
      offloadStashed();
    return success();
  }

  EchoRecomputePass(const EchoRecomputeOptions &options, OpPassManager plan,
                    std::shared_ptr<LoweredStepCache> lowered)
      : Base(options),
        planner(std::make_shared<OpPassManager>(std::move(plan))),
        keptLowerings(std::move(lowered)) {
    // The option says what the pass does when printed (reproducers).
    std::string text;
    llvm::raw_string_ostream os(text);
    planner->printAsTextualPipeline(os);
    planPipeline = text;
  }

  LogicalResult initialize(MLIRContext *context) override {
    std::string error;
    if (failed(parsePlanPipeline(error)))
      return emitError(UnknownLoc::get(context))
             << "echo-recompute: cannot parse plan-pipeline '" << planPipeline
             << "': " << error;
    return success();
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // The plan pipeline's dialects are loaded before the pass runs (its
    // parse errors are reported by initialize).
    std::string error;
    if (succeeded(parsePlanPipeline(error)) && planner)
      planner->getDependentDialects(registry);
  }

  /// Builds `planner` from `planPipeline` unless it is built already: a
  /// pipeline on builtin.module, anchored (`builtin.module(...)`, as the
  /// pass prints it) or not.
  LogicalResult parsePlanPipeline(std::string &error) const {
    if (planner || planPipeline.empty())
      return success();
    planner = parseModulePipeline(planPipeline, error);
    return success(planner != nullptr);
  }

  /// The step bytes (arena + arguments + unplanned buffers) of the buffer
  /// plan that `planPipeline` makes of each of `steps`: each is lowered on a
  /// clone in its own module, all of them nested in one container module
  /// inside this one (and erased), so that the pass manager lowers them in
  /// parallel (sibling modules are isolated from above).
  FailureOr<SmallVector<int64_t>>
  getPlannedStepBytes(ArrayRef<func::FuncOp> steps) {
    // Candidates that differ in their plan may still be the same step (a
    // reuse window no value needed; echo at several heavy budgets; a search
    // that reaches one plan twice): each distinct step is lowered once in
    // the pass's run, told apart by its printed form (milliseconds, where a
    // lowering takes a second at paper size), kept as two 64-bit hashes and
    // its length.
    SmallVector<StepKey> keys;
    SmallVector<size_t> distinct;       // indices into steps, one per new key
    std::map<StepKey, size_t> lowering; // new key -> index into distinct
    for (auto [i, step] : llvm::enumerate(steps)) {
      StepKey key = getStepKey(step);
      keys.push_back(key);
      if (!loweredSteps.count(key) &&
          lowering.try_emplace(key, distinct.size()).second)
        distinct.push_back(i);
    }
    numPlansLowered += distinct.size();
    OpBuilder b(getOperation().getBodyRegion());
    b.setInsertionPointToEnd(getOperation().getBody());
    Location loc = getOperation().getLoc();
    auto container = ModuleOp::create(b, loc);
    llvm::scope_exit eraseContainer([&] { container.erase(); });
    SmallVector<ModuleOp> modules;
    for (size_t i : distinct) {
      func::FuncOp step = steps[i];
      b.setInsertionPointToEnd(container.getBody());
      modules.push_back(ModuleOp::create(b, step.getLoc()));
      modules.back().push_back(cast<func::FuncOp>(step->clone()));
    }
    // A pass manager of its own, without the verifier after every pass (a
    // third of a candidate's lowering): only its bytes are used, and the
    // chosen plan is lowered again, verified, by the pipeline itself.
    PassManager each(&getContext(), ModuleOp::getOperationName());
    each.enableVerifier(false);
    // The tool's pass manager options (IR printing, statistics) where it
    // registered them (echo-opt): the candidates' lowerings print as before.
    (void)applyPassManagerCLOptions(each);
    each.nest<ModuleOp>() = *planner;
    if (!modules.empty() && failed(each.run(container)))
      return func::FuncOp(steps.front()).emitError()
             << "echo-recompute: plan-pipeline failed on a candidate step";
    // Each new step's bytes, read from its lowered module.
    for (auto [key, index] : lowering) {
      func::FuncOp step = steps[distinct[index]];
      ModuleOp module = modules[index];
      auto lowered = module.lookupSymbol<func::FuncOp>(step.getSymName());
      auto plan = lowered ? lowered->getAttrOfType<DictionaryAttr>(
                                EchoDialect::getBufferPlanAttrName())
                          : DictionaryAttr();
      MemoryStats stats;
      if (plan)
        stats.bufferPlan = plan;
      std::optional<int64_t> stepBytes =
          plan ? stats.getStepBytes() : std::nullopt;
      if (!stepBytes)
        return step.emitError()
               << "echo-recompute: plan-pipeline made no '"
               << EchoDialect::getBufferPlanAttrName()
               << "' with arena, argument and unplanned bytes (does it end "
                  "with echo-plan-buffers?)";
      loweredSteps[key] = *stepBytes;
      // Kept for the bufferization phase, should this step be chosen.
      if (keptLowerings) {
        module->remove();
        keptLowerings->insert(key, OwningOpRef<ModuleOp>(module), *stepBytes);
      }
    }
    SmallVector<int64_t> bytes;
    for (const StepKey &key : keys)
      bytes.push_back(loweredSteps.at(key));
    return bytes;
  }

  /// The step bytes of every step lowered in this run (cleared by each run
  /// on the module).
  std::map<StepKey, int64_t> loweredSteps;

  /// `budget`, parsed.
  RecomputeBudget parsedBudget;
  /// `chunk-loss`, parsed (kAutoLossChunks, 0 or the number of chunks).
  int64_t lossChunks = kAutoLossChunks;

  /// The plan pipeline (shared by the pass's copies).
  mutable std::shared_ptr<OpPassManager> planner;
  /// Where the lowered candidates are kept, if anywhere.
  std::shared_ptr<LoweredStepCache> keptLowerings;
};
} // namespace

std::unique_ptr<Pass>
mlir::echo::createEchoRecompute(const EchoRecomputeOptions &options,
                                OpPassManager planPipeline,
                                std::shared_ptr<LoweredStepCache> lowered) {
  return std::make_unique<EchoRecomputePass>(options, std::move(planPipeline),
                                             std::move(lowered));
}
