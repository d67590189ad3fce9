//===- Options.h - Typed values of Echo's pass options ----------*- C++ -*-===//
//
// Part of the Echo project.
//
// The enumerated options of Echo's passes, pipelines and tools. Each is a
// C++ enum parsed by `llvm::cl::values` (the spellings are listed once, in
// the `ECHO_*_VALUES` macros below), so an unknown value is rejected by the
// option parser itself and no pass validates strings by hand; the same
// spellings are used by `Passes.td`, `EchoPipelineOptions` and `echo-run`.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TRANSFORMS_OPTIONS_H
#define ECHO_TRANSFORMS_OPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>

namespace mlir {
class MLIRContext;
class Type;
} // namespace mlir
#include <optional>
#include <string>

namespace mlir::echo {

/// `echo-recompute strategy=`: what the backward pass recomputes instead of
/// stashing.
enum class RecomputeStrategy {
  /// Stash every feature map.
  None,
  /// Chen et al. §4.2: recompute every cheap forward op.
  Mirror,
  /// Chen et al. Alg. 2-3: √n checkpoints, segments recomputed.
  Sublinear,
  /// Echo ISCA 2020, Algorithm 1 with its global footprint estimate.
  Echo,
  /// The least recompute FLOPs whose step fits a byte budget (`budget=`).
  Budget,
};

/// `budget=` of echo-recompute, echo-pipeline and echo-run: a bound on the
/// step's bytes, absolute or a fraction of what the step takes with
/// strategy none.
struct RecomputeBudget {
  /// The bound in bytes (when not a fraction).
  int64_t bytes = 0;
  /// The bound as a share of none's bytes, in (0, 1] (when a fraction).
  double fraction = 1.0;
  bool isFraction = false;

  /// The bound in bytes, given the bytes of the step with strategy none.
  int64_t resolve(int64_t noneBytes) const;
  /// As it was written back: `N` bytes or `F` (a fraction).
  std::string str() const;
};

/// Parses `budget=`: an integer number of bytes, optionally with a unit
/// (`K`/`KiB`, `M`/`MiB`, `G`/`GiB` are powers of 1024, `KB`/`MB`/`GB`
/// powers of 1000; the number before a unit may have a fraction: `1.5GiB`);
/// a decimal number with a point in (0, 1] (`0.5`: half of none's bytes);
/// or a percentage in (0, 100] (`50%`). Anything else is an error naming
/// what is accepted.
std::optional<RecomputeBudget> parseRecomputeBudget(llvm::StringRef text,
                                                    std::string &error);

/// The budget options of echo-recompute and echo-pipeline together:
/// `strategy=budget` needs `budget=`, `budget=` and a positive
/// `budget-reserve=` need `strategy=budget`, the reserve is not negative and
/// the budget parses. Returns the budget (the default one for another
/// strategy), or none with `error` set (without the option owner's prefix).
std::optional<RecomputeBudget>
checkRecomputeBudgetOptions(RecomputeStrategy strategy, llvm::StringRef budget,
                            int64_t reserve, std::string &error);

/// `chunk-loss=` of echo-recompute, echo-pipeline and echo-run: `auto` (the
/// cost model decides; kAutoLossChunks), `off` (0) or a number of chunks
/// of at least 2. Anything else is none, with `error` set.
constexpr int64_t kAutoLossChunks = -1;
std::optional<int64_t> parseLossChunks(llvm::StringRef text,
                                       std::string &error);

/// `echo-recompute offload=`: which stashed values move to host memory
/// between their last forward reader and their first backward reader.
enum class OffloadPolicy {
  /// None: every stashed value stays on the device.
  None,
  /// The stashed results of compute-heavy ops (SuperNeurons' unified
  /// tensor pool: what recomputation should not re-run).
  Heavy,
  /// Every stashed floating-point value.
  All,
};

/// `echo-autodiff optimizer=`: what the training step returns per parameter.
enum class Optimizer {
  /// The gradient.
  None,
  /// The parameter after one SGD step, `p - lr * dp`.
  Sgd,
  /// PyTorch's SGD with momentum (`echo.momentum_update`): the step also
  /// takes and updates a velocity per parameter.
  Momentum,
  /// PyTorch's Adam (`echo.adam_update`, weight decay as L2): the step also
  /// takes and updates the two moments per parameter.
  Adam,
  /// PyTorch's AdamW (`echo.adam_update` with decoupled weight decay).
  AdamW,
};

/// True for the optimizers that run inside the step on state the caller
/// keeps (momentum, adam, adamw): the step takes that state and the
/// hyperparameters as arguments, and updates parameters and state in place.
bool isStatefulOptimizer(Optimizer optimizer);

/// The state an optimizer keeps per parameter, in the order the step takes
/// it, named as PyTorch's `optimizer.state[p]` names it (`momentum_buffer`;
/// `exp_avg`, `exp_avg_sq`); empty for none and sgd.
llvm::ArrayRef<llvm::StringLiteral> getOptimizerStateNames(Optimizer optimizer);

/// The hyperparameters a stateful optimizer's step takes as 0-d f32
/// arguments (`echo.hyper`), in order: momentum: lr, momentum,
/// weight_decay; adam and adamw: lr, beta1, beta2, eps, weight_decay, step
/// (the 1-based step count); empty for none and sgd.
llvm::ArrayRef<llvm::StringLiteral> getOptimizerHyperNames(Optimizer optimizer);

/// `echo-pipeline precision=`, `echo-run --precision=` and `echo-autocast
/// dtype=`: the type a step computes in.
enum class Precision {
  /// Everything in f32, as written (no echo-autocast).
  F32,
  /// Automatic mixed precision in bfloat16 (echo-autocast dtype=bf16).
  BF16,
  /// Automatic mixed precision in IEEE half (echo-autocast dtype=f16); a
  /// training loop scales the loss (dynamic loss scaling).
  F16,
};

/// The element type of `precision` in `ctx` (f32, bf16 or f16).
mlir::Type getPrecisionType(mlir::MLIRContext *ctx, Precision precision);

/// `echo-plan-buffers arena=`: where the one arena comes from.
enum class ArenaKind {
  /// A `memref.alloc` in the function.
  Alloc,
  /// A trailing `memref<Nxi8>` argument the caller passes.
  Argument,
};

/// `echo-pipeline target=` and `echo-run --target=`: where the step runs.
enum class Target {
  /// Host code through the LLVM dialect.
  CPU,
  /// NVIDIA GPUs: kernels in a gpu.binary, cuBLAS/cuDNN through the Echo
  /// CUDA runtime. Spelled `nvvm` (the pipeline's name, SPEC.md) or `cuda`
  /// (echo-run's name, SPEC.md); both spellings are accepted everywhere.
  NVVM,
};

/// `echo-pipeline gpu-format=`: what the gpu.binary holds.
enum class GpuFormat {
  /// A cubin for `chip` plus PTX for the driver to JIT on other chips.
  Fatbin,
  /// The cubin alone.
  Bin,
  /// The PTX alone.
  Isa,
};

/// The spelling of each value (the first one where there are two), as the
/// option parsers accept it.
llvm::StringRef stringifyRecomputeStrategy(RecomputeStrategy strategy);
llvm::StringRef stringifyOffloadPolicy(OffloadPolicy policy);
llvm::StringRef stringifyOptimizer(Optimizer optimizer);
llvm::StringRef stringifyArenaKind(ArenaKind arena);
llvm::StringRef stringifyPrecision(Precision precision);
llvm::StringRef stringifyTarget(Target target);
llvm::StringRef stringifyGpuFormat(GpuFormat format);

} // namespace mlir::echo

/// `llvm::cl::values(...)` of each enum, for `Passes.td`, pipeline options
/// and tool flags.
#define ECHO_RECOMPUTE_STRATEGY_VALUES                                         \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::echo::RecomputeStrategy::None, "none",                \
                 "stash every feature map"),                                   \
      clEnumValN(::mlir::echo::RecomputeStrategy::Mirror, "mirror",            \
                 "recompute every cheap forward op (Chen et al. 4.2)"),        \
      clEnumValN(::mlir::echo::RecomputeStrategy::Sublinear, "sublinear",      \
                 "sqrt(n) checkpoints (Chen et al. Alg. 2-3)"),                \
      clEnumValN(::mlir::echo::RecomputeStrategy::Echo, "echo",                \
                 "Echo's Algorithm 1 (ISCA 2020)"),                            \
      clEnumValN(::mlir::echo::RecomputeStrategy::Budget, "budget",            \
                 "the least recompute whose step fits budget= bytes"))

#define ECHO_OFFLOAD_POLICY_VALUES                                             \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::echo::OffloadPolicy::None, "none",                    \
                 "keep every stashed value on the device"),                    \
      clEnumValN(::mlir::echo::OffloadPolicy::Heavy, "heavy",                  \
                 "offload the stashed results of compute-heavy ops"),          \
      clEnumValN(::mlir::echo::OffloadPolicy::All, "all",                      \
                 "offload every stashed floating-point value"))

#define ECHO_OPTIMIZER_VALUES                                                  \
  ::llvm::cl::values(clEnumValN(::mlir::echo::Optimizer::None, "none",         \
                                "return the gradients"),                       \
                     clEnumValN(::mlir::echo::Optimizer::Sgd, "sgd",           \
                                "return the parameters after one SGD step"),   \
                     clEnumValN(::mlir::echo::Optimizer::Momentum, "momentum", \
                                "SGD with momentum in the step, in place"),    \
                     clEnumValN(::mlir::echo::Optimizer::Adam, "adam",         \
                                "Adam in the step, in place"),                 \
                     clEnumValN(::mlir::echo::Optimizer::AdamW, "adamw",       \
                                "AdamW in the step, in place"))

#define ECHO_PRECISION_VALUES                                                  \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::echo::Precision::F32, "f32", "everything in f32"),    \
      clEnumValN(::mlir::echo::Precision::BF16, "bf16",                        \
                 "mixed precision in bfloat16 (echo-autocast)"),               \
      clEnumValN(::mlir::echo::Precision::F16, "f16",                          \
                 "mixed precision in f16 (echo-autocast, loss scaling)"))

/// The low-precision types alone (`echo-autocast dtype=`).
#define ECHO_LOW_PRECISION_VALUES                                              \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::echo::Precision::BF16, "bf16", "bfloat16"),           \
      clEnumValN(::mlir::echo::Precision::F16, "f16", "IEEE half"))

#define ECHO_ARENA_KIND_VALUES                                                 \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::echo::ArenaKind::Alloc, "alloc",                      \
                 "allocated in the function"),                                 \
      clEnumValN(::mlir::echo::ArenaKind::Argument, "argument",                \
                 "a trailing memref<Nxi8> argument the caller passes"))

#define ECHO_TARGET_VALUES                                                     \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::echo::Target::CPU, "cpu", "the host CPU"),            \
      clEnumValN(::mlir::echo::Target::NVVM, "nvvm",                           \
                 "NVIDIA GPUs (CUDA kernels, cuBLAS/cuDNN)"),                  \
      clEnumValN(::mlir::echo::Target::NVVM, "cuda", "the same as nvvm"))

#define ECHO_GPU_FORMAT_VALUES                                                 \
  ::llvm::cl::values(clEnumValN(::mlir::echo::GpuFormat::Fatbin, "fatbin",     \
                                "cubin for the chip plus PTX"),                \
                     clEnumValN(::mlir::echo::GpuFormat::Bin, "bin", "cubin"), \
                     clEnumValN(::mlir::echo::GpuFormat::Isa, "isa", "PTX"))

#endif // ECHO_TRANSFORMS_OPTIONS_H
