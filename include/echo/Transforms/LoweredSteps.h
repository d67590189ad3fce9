//===- LoweredSteps.h - Training steps lowered once, reused -----*- C++ -*-===//
//
// Part of the Echo project.
//
// echo-recompute lowers candidate training steps through the pipeline's own
// bufferization phase to compare their buffer plans (`plan-pipeline`); the
// step it chooses is one of them. A LoweredStepCache, shared by that pass
// and echo-reuse-lowered-steps (the bufferization phase of the same
// pipeline), keeps those lowerings so that the chosen step is not lowered a
// second time.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TRANSFORMS_LOWEREDSTEPS_H
#define ECHO_TRANSFORMS_LOWEREDSTEPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace mlir::echo {

/// A training step told apart by its printed form (generic, local scope):
/// two 64-bit hashes and its length.
using StepKey = std::tuple<uint64_t, uint64_t, uint64_t>;

/// The key of `step`, its function attributes `echo.recompute_strategy` and
/// `echo.memory_stats` left out: echo-recompute sets the first once it has
/// chosen, echo-memory-report attaches the second, and the bufferization
/// phase reads neither.
StepKey getStepKey(func::FuncOp step);

/// Lowered training steps by key, each in a module of its own: the plan
/// pipeline's result on a module holding only that step.
class LoweredStepCache {
public:
  explicit LoweredStepCache(size_t capacity = 4) : capacity(capacity) {}

  /// Keeps `lowered`, the lowering of the step of `key`, whose buffer plan
  /// takes `stepBytes`. Past the capacity, the module of the most step bytes
  /// is dropped: echo keeps the candidate of the fewest, the budget strategy
  /// one that fits.
  void insert(const StepKey &key, OwningOpRef<ModuleOp> lowered,
              int64_t stepBytes);
  /// Drops every module but those of `keys`.
  void retain(ArrayRef<StepKey> keys);
  /// Takes the module of `key` out of the cache; null where there is none.
  OwningOpRef<ModuleOp> take(const StepKey &key);
  void clear() { entries.clear(); }

private:
  struct Entry {
    StepKey key;
    OwningOpRef<ModuleOp> module;
    int64_t stepBytes;
  };
  std::vector<Entry> entries;
  size_t capacity;
};

/// Parses `text`, a pass pipeline on builtin.module, anchored
/// (`builtin.module(...)`, as a pass manager prints it) or not; null with
/// `error` set where it does not parse.
std::shared_ptr<OpPassManager> parseModulePipeline(StringRef text,
                                                   std::string &error);

} // namespace mlir::echo

#endif // ECHO_TRANSFORMS_LOWEREDSTEPS_H
