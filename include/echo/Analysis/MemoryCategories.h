//===- MemoryCategories.h - What each byte of a step holds ------*- C++ -*-===//
//
// Part of the Echo project.
//
// The memory report breaks a step's bytes into categories, as PyTorch's
// memory profiler does (MemoryCategory, EchoInterfaces.h). A value's
// category comes from where the step defines it:
//
// - an argument: `echo.param` (parameters), `echo.optimizer_state` and
//   `echo.hyper` (optimizer state), anything else (data);
// - a result of an op with MemoryCategoryOpInterface: what the op says
//   (`echo.offload`: host offload; `echo.fetch`: a stashed activation);
// - a new value an optimizer writes over an operand in place
//   (InPlaceUpdateOpInterface): the operand's category;
// - a value made inside an `echo.recompute` region, or yielded by one:
//   recompute;
// - a constant: temporaries;
// - a forward value (at or before the loss) the backward pass reads:
//   activations; one it does not read: temporaries;
// - a value of the backward pass: gradients.
//
// The buffer planner runs on bufferized IR, where these values are gone.
// `tagMemoryCategories` carries each op's category to it in the op's
// location (a FusedLoc whose metadata names the category and the op), which
// the conversion to linalg and one-shot bufferization hand on to the
// allocations they create; the planner reads it back from each
// allocation's location (`getTaggedCategory`) and then removes the tags
// (`stripMemoryCategoryTags`).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_ANALYSIS_MEMORYCATEGORIES_H
#define ECHO_ANALYSIS_MEMORYCATEGORIES_H

#include "echo/Analysis/TrainingStep.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"

#include <array>

namespace mlir::echo {

/// Bytes per category.
using CategoryBytes = std::array<int64_t, kNumMemoryCategories>;

/// The report's name of `category` (`parameters`, `optimizer_state`,
/// `data`, `activations`, `recompute`, `temporaries`, `gradients`,
/// `host_offload`).
StringRef getMemoryCategoryName(MemoryCategory category);

/// The category named `name`, if any.
std::optional<MemoryCategory> parseMemoryCategory(StringRef name);

/// The category of argument `index` of `func`, from its markers.
MemoryCategory getArgumentCategory(func::FuncOp func, unsigned index);

/// The category of `value`, a result of an op of `step` (at its top level or
/// inside a recompute region) or an argument of the step.
MemoryCategory getValueCategory(const TrainingStep &step, Value value);

/// The category the tags of `op`'s buffers carry: activations when one of
/// its results is stashed, or is a temporary that a view (a ViewResult op,
/// `echo.reshape`) makes stashed, since the view's bytes are that result's
/// buffer; else its first result's category. A multi-result op has one
/// location, so all its buffers get this category.
MemoryCategory getOpCategory(const TrainingStep &step, Operation *op);

/// Tags every op of `func` (a training step) and every argument with its
/// category, in its location.
void tagMemoryCategories(func::FuncOp func);

/// The category and op name tagged in `loc` (the first tag found, depth
/// first), if any.
std::optional<std::pair<MemoryCategory, StringRef>>
getTaggedCategory(Location loc);

/// Removes the tags of tagMemoryCategories from every location in `op`.
void stripMemoryCategoryTags(Operation *op);

} // namespace mlir::echo

#endif // ECHO_ANALYSIS_MEMORYCATEGORIES_H
