//===- ForeignStep.h - Running a function another compiler made -*- C++ -*-===//
//
// Part of the Echo project.
//
// `echo-foreign-step-pipeline` takes a function in TOSA or linalg on tensors
// (with tensor, arith and math) to executable LLVM-dialect IR for the CPU.
// When the function is a training step differentiated elsewhere (a JAX
// train step, an AOTAutograd joint graph) and `loss=` or `tangents=` names
// its split, the step is adopted and planned first:
//   adopt:    echo-adopt-training-step, echo-recompute (any strategy);
//   hand back: echo-finalize-recompute, TOSA to linalg, arith and tensor;
//   lower:    Echo's bufferization phase (one-shot bufferization, the
//             arena) and its CPU LLVM phase.
// echo-run --function runs the phases one by one (it reads the memory
// estimate after the first and the buffer plan after the bufferization).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_PIPELINES_FOREIGNSTEP_H
#define ECHO_PIPELINES_FOREIGNSTEP_H

#include "echo/Pipelines/Pipelines.h"

namespace mlir {
namespace echo {

/// Options of `--echo-foreign-step-pipeline`: echo-adopt-training-step's
/// and echo-recompute's, and the lowering's.
struct EchoForeignStepPipelineOptions
    : public PassPipelineOptions<EchoForeignStepPipelineOptions> {
  PassOptions::Option<std::string> function{
      *this, "function",
      llvm::cl::desc("The step to adopt (echo-adopt-training-step's "
                     "function=); needed with loss= or tangents="),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> loss{
      *this, "loss",
      llvm::cl::desc("The result that is the loss (JAX style); -1: none"),
      llvm::cl::init(-1)};
  PassOptions::ListOption<int64_t> tangents{
      *this, "tangents",
      llvm::cl::desc("The arguments that are tangents (AOTAutograd style)")};
  PassOptions::Option<RecomputeStrategy> strategy{
      *this, "strategy",
      llvm::cl::desc("Recompute strategy of an adopted step: none, mirror, "
                     "sublinear, echo or budget (with budget=)"),
      llvm::cl::init(RecomputeStrategy::Echo), ECHO_RECOMPUTE_STRATEGY_VALUES};
  PassOptions::Option<std::string> budget{
      *this, "budget",
      llvm::cl::desc("strategy=budget: the bound on the step's estimated "
                     "bytes (bytes, 512MiB, or a share of none's: 0.5, 50%)"),
      llvm::cl::init("")};
  PassOptions::Option<double> heavyBudget{
      *this, "heavy-budget",
      llvm::cl::desc("echo: the share of the step's estimated time that "
                     "re-running compute-heavy ops may cost"),
      llvm::cl::init(0.01)};
  PassOptions::Option<double> peakGflops{
      *this, "peak-gflops", llvm::cl::desc("The time model's peak GFLOP/s"),
      llvm::cl::init(100.0)};
  PassOptions::Option<double> memoryGbps{
      *this, "memory-gbps", llvm::cl::desc("The time model's memory GB/s"),
      llvm::cl::init(20.0)};
  PassOptions::Option<int64_t> comparePlans{
      *this, "compare-plans",
      llvm::cl::desc("echo, budget: hand back and plan this many candidate "
                     "steps (the best estimated first) and the step as it "
                     "is, and keep the one whose buffer plan takes the "
                     "fewest bytes; 0: decide on the tensor-level estimate. "
                     "Needs plan-buffers"),
      llvm::cl::init(3)};
  PassOptions::Option<bool> planBuffers{
      *this, "plan-buffers",
      llvm::cl::desc("Place the buffers of every function in one arena each "
                     "(echo-plan-buffers)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> libraryCalls{
      *this, "library-calls",
      llvm::cl::desc("echo-pipeline's library-calls= for the lowering (the "
                     "foreign contractions are loops either way; true: loops "
                     "of much work run across the CPU runtime's threads, "
                     "false: contractions tiled and vectorized)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the adopted step's memory estimate here ('-' = "
                     "stdout)"),
      llvm::cl::init("")};

  /// True when the options name a split: the step is adopted and planned.
  bool adopts() const { return loss >= 0 || !tangents.empty(); }
};

/// Checks the option values; reports the first bad one through `error`.
LogicalResult validateEchoForeignStepPipelineOptions(
    const EchoForeignStepPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> error);

/// Sets `lowering`, the options of Echo's own lowering phases for a foreign
/// step: the CPU, `library-calls=` and `plan-buffers=` as given, no
/// comparison of plans.
void setForeignLoweringOptions(const EchoForeignStepPipelineOptions &options,
                               EchoPipelineOptions &lowering);

/// Appends the adoption: echo-adopt-training-step and echo-recompute, and
/// echo-memory-report where `report=` is set (nothing unless adopts()).
void buildEchoAdoptPipeline(OpPassManager &pm,
                            const EchoForeignStepPipelineOptions &options);

/// Appends the hand-back: echo-finalize-recompute, then TOSA to linalg on
/// tensors (tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith,
/// tosa-to-tensor), with no CSE in between (it would merge recomputed values
/// back into their originals).
void buildEchoHandBackPipeline(OpPassManager &pm);

/// Appends the whole of `--echo-foreign-step-pipeline`.
void buildEchoForeignStepPipeline(
    OpPassManager &pm, const EchoForeignStepPipelineOptions &options);

/// Registers `--echo-foreign-step-pipeline`.
void registerEchoForeignStepPipeline();

} // namespace echo
} // namespace mlir

#endif // ECHO_PIPELINES_FOREIGNSTEP_H
