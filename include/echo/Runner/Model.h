//===- Model.h - What a runner needs to know of a model ---------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_MODEL_H
#define ECHO_RUNNER_MODEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mlir::echo {

/// The model of `module` to train: the one named `name` when it is not
/// empty, else the only one (a function returning the scalar loss with at
/// least one `echo.param` argument). Reports why there is none on stderr
/// (`file` names the module there).
func::FuncOp findModel(ModuleOp module, StringRef name, StringRef file);

/// An integer argument's tightest index use (IndexOperandOpInterface),
/// looking through the ops that only move its values (reshape, slice,
/// transpose, concat, broadcast): its values must be in [0, bound)
/// (embedding ids in [0, V), labels in [0, C)) for `op`.
struct IndexUse {
  int64_t bound;
  Operation *op;
};
std::optional<IndexUse> getIndexUse(BlockArgument arg);

/// For an integer argument with index uses: the value outside their bound
/// that every one of them skips (a loss's ignore_index), if any.
std::optional<int64_t> getIgnoredIndex(BlockArgument arg);

/// For an integer argument: the exclusive upper bound its uses accept, or
/// 2 when nothing bounds it (what echo-run draws from).
int64_t getIntegerRange(BlockArgument arg);

/// Re-types every f32 value of `func` (signature, block arguments, results,
/// dense constants) as f64.
void retypeToF64(func::FuncOp func);

} // namespace mlir::echo

#endif // ECHO_RUNNER_MODEL_H
