//===- LoweredSteps.cpp - Training steps lowered once, reused -------------===//
//
// Part of the Echo project.
//
// The cache of steps echo-recompute lowered (LoweredSteps.h), and
// echo-reuse-lowered-steps: the bufferization phase run on the module with
// every training step the cache holds taken from it instead.
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/LoweredSteps.h"

#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/xxhash.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOREUSELOWEREDSTEPS
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

StepKey mlir::echo::getStepKey(func::FuncOp step) {
  // Left out by taking them off while printing (the printed form of an
  // attribute dictionary without them).
  SmallVector<NamedAttribute> removed;
  for (StringRef name : {EchoDialect::getRecomputeStrategyAttrName(),
                         EchoDialect::getMemoryStatsAttrName()})
    if (Attribute value = step->getAttr(name)) {
      removed.emplace_back(StringAttr::get(step.getContext(), name), value);
      step->removeAttr(name);
    }
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.printGenericOpForm().useLocalScope();
  step->print(os, flags);
  for (const NamedAttribute &attr : removed)
    step->setAttr(attr.getName(), attr.getValue());
  return {llvm::xxh3_64bits(text),
          static_cast<uint64_t>(llvm::hash_value(text)), text.size()};
}

void LoweredStepCache::insert(const StepKey &key, OwningOpRef<ModuleOp> lowered,
                              int64_t stepBytes) {
  if (capacity == 0)
    return;
  for (Entry &entry : entries)
    if (entry.key == key)
      return;
  entries.push_back({key, std::move(lowered), stepBytes});
  if (entries.size() <= capacity)
    return;
  // The last of the most step bytes goes.
  auto largest = entries.begin();
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->stepBytes >= largest->stepBytes)
      largest = it;
  entries.erase(largest);
}

void LoweredStepCache::retain(ArrayRef<StepKey> keys) {
  llvm::erase_if(entries, [&](const Entry &entry) {
    return !llvm::is_contained(keys, entry.key);
  });
}

OwningOpRef<ModuleOp> LoweredStepCache::take(const StepKey &key) {
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->key == key) {
      OwningOpRef<ModuleOp> module = std::move(it->module);
      entries.erase(it);
      return module;
    }
  return nullptr;
}

std::shared_ptr<OpPassManager>
mlir::echo::parseModulePipeline(StringRef text, std::string &error) {
  llvm::raw_string_ostream errorStream(error);
  if (text.starts_with(ModuleOp::getOperationName().str() + "(")) {
    FailureOr<OpPassManager> parsed = parsePassPipeline(text, errorStream);
    if (failed(parsed))
      return nullptr;
    return std::make_shared<OpPassManager>(std::move(*parsed));
  }
  auto pm = std::make_shared<OpPassManager>(ModuleOp::getOperationName(),
                                            OpPassManager::Nesting::Implicit);
  if (failed(parsePassPipeline(text, *pm, errorStream)))
    return nullptr;
  return pm;
}

namespace {
/// A training step taken from the cache: its lowered module, and where in
/// the module its tensor-level form was.
struct ReusedStep {
  OwningOpRef<ModuleOp> lowered;
  std::string name;
  /// The symbol that followed the step (empty: it was the last).
  std::string next;
};

/// True when `a` and `b`, two symbols of one name, declare the same thing
/// (a runtime function both lowerings call, a constant both hold).
bool isSameDeclaration(Operation *a, Operation *b) {
  if (a->getNumRegions() != b->getNumRegions())
    return false;
  for (auto [ra, rb] : llvm::zip(a->getRegions(), b->getRegions()))
    if (!ra.empty() || !rb.empty())
      return false;
  return OperationEquivalence::isEquivalentTo(
      a, b, OperationEquivalence::IgnoreLocations);
}

struct EchoReuseLoweredStepsPass
    : public echo::impl::EchoReuseLoweredStepsBase<EchoReuseLoweredStepsPass> {
  using Base::Base;

  EchoReuseLoweredStepsPass(OpPassManager lowering,
                            std::shared_ptr<LoweredStepCache> cache)
      : lowering(std::make_shared<OpPassManager>(std::move(lowering))),
        cache(std::move(cache)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    this->lowering->printAsTextualPipeline(os);
    pipeline = text;
  }

  LogicalResult initialize(MLIRContext *context) override {
    std::string error;
    if (failed(parsePipeline(error)))
      return emitError(UnknownLoc::get(context))
             << "echo-reuse-lowered-steps: cannot parse pipeline '" << pipeline
             << "': " << error;
    return success();
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    std::string error;
    if (succeeded(parsePipeline(error)) && lowering)
      lowering->getDependentDialects(registry);
  }

  LogicalResult parsePipeline(std::string &error) const {
    if (lowering)
      return success();
    lowering = parseModulePipeline(pipeline, error);
    return success(lowering != nullptr);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ReusedStep> reused;
    if (cache) {
      for (auto step :
           llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
        if (!step->hasAttr(EchoDialect::getTrainStepAttrName()) ||
            step.isExternal() ||
            !SymbolTable::symbolKnownUseEmpty(step, module))
          continue;
        OwningOpRef<ModuleOp> lowered = cache->take(getStepKey(step));
        if (!lowered)
          continue;
        auto loweredStep = lowered->lookupSymbol<func::FuncOp>(step.getName());
        if (!loweredStep)
          continue;
        // What was set on the step since it was lowered (getStepKey).
        for (StringRef name : {EchoDialect::getRecomputeStrategyAttrName(),
                               EchoDialect::getMemoryStatsAttrName()})
          if (Attribute value = step->getAttr(name))
            loweredStep->setAttr(name, value);
        ReusedStep entry{std::move(lowered), step.getName().str(), ""};
        for (Operation *op = step->getNextNode(); op; op = op->getNextNode())
          if (auto symbol = dyn_cast<SymbolOpInterface>(op)) {
            entry.next = symbol.getName().str();
            break;
          }
        step.erase();
        reused.push_back(std::move(entry));
      }
      cache->clear();
    }
    if (failed(runPipeline(*lowering, module)))
      return signalPassFailure();
    SymbolTable table(module);
    for (ReusedStep &step : reused) {
      if (table.lookup(step.name)) {
        module.emitError() << "echo-reuse-lowered-steps: the lowering made a "
                              "symbol named like the training step @"
                           << step.name;
        return signalPassFailure();
      }
      if (failed(merge(module, table, step)))
        return signalPassFailure();
      ++numReused;
    }
  }

  /// Moves the lowered step into `module` where its tensor-level form was,
  /// with the symbols it uses: declarations `module` has already are
  /// shared, other symbols of a taken name renamed.
  LogicalResult merge(ModuleOp module, SymbolTable &table, ReusedStep &step) {
    ModuleOp lowered = *step.lowered;
    SmallVector<Operation *> moved;
    Operation *stepOp = nullptr;
    for (Operation &op : llvm::make_early_inc_range(*lowered.getBody())) {
      auto symbol = dyn_cast<SymbolOpInterface>(op);
      if (symbol && symbol.getName() == step.name) {
        stepOp = &op;
        continue;
      }
      if (symbol) {
        if (Operation *existing = table.lookup(symbol.getName())) {
          if (isSameDeclaration(existing, &op))
            continue;
          // Renamed in the lowered module, uses included, before it moves.
          if (failed(SymbolTable(lowered).renameToUnique(&op, {&table})))
            return op.emitError()
                   << "echo-reuse-lowered-steps: cannot rename @"
                   << symbol.getName() << ", which @" << step.name
                   << " uses and the module has already";
        }
      }
      moved.push_back(&op);
    }
    // Declarations go after those the module has, before its first
    // definition.
    Block *body = module.getBody();
    Block::iterator declarations = body->begin();
    while (declarations != body->end() && isDeclaration(&*declarations))
      ++declarations;
    for (Operation *op : moved) {
      op->remove();
      if (isa<SymbolOpInterface>(op))
        table.insert(op, declarations);
      else
        body->getOperations().insert(declarations, op);
    }
    stepOp->remove();
    Operation *next = step.next.empty() ? nullptr : table.lookup(step.next);
    table.insert(stepOp, next ? Block::iterator(next) : body->end());
    return success();
  }

  static bool isDeclaration(Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op))
      return func.isExternal();
    return op->getNumRegions() == 0 && isa<SymbolOpInterface>(op);
  }

  /// The lowering (shared by the pass's copies).
  mutable std::shared_ptr<OpPassManager> lowering;
  std::shared_ptr<LoweredStepCache> cache;
};
} // namespace

std::unique_ptr<Pass> mlir::echo::createEchoReuseLoweredSteps(
    OpPassManager lowering, std::shared_ptr<LoweredStepCache> cache) {
  return std::make_unique<EchoReuseLoweredStepsPass>(std::move(lowering),
                                                     std::move(cache));
}
