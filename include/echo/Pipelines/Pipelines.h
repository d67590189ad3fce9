//===- Pipelines.h - Echo's end-to-end pass pipelines -----------*- C++ -*-===//
//
// Part of the Echo project.
//
// `echo-pipeline` takes a module of models (SPEC.md model convention) to
// executable LLVM-dialect IR. It is built from two halves that tools can run
// separately (echo-run computes the memory report in between):
//   training: echo-autodiff, echo-recompute (tensor-level Echo IR);
//   lowering: convert-echo-to-linalg, tiling/vectorization, one-shot
//             bufferization, LLVM lowering for the chosen target.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_PIPELINES_PIPELINES_H
#define ECHO_PIPELINES_PIPELINES_H

#include "echo/Transforms/LoweredSteps.h"
#include "echo/Transforms/Options.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class OpPassManager;
namespace echo {

/// Options of `--echo-pipeline`.
struct EchoPipelineOptions : public PassPipelineOptions<EchoPipelineOptions> {
  PassOptions::Option<RecomputeStrategy> strategy{
      *this, "strategy",
      llvm::cl::desc("Recompute strategy: none, mirror, sublinear, echo or "
                     "budget (with budget=)"),
      llvm::cl::init(RecomputeStrategy::Echo), ECHO_RECOMPUTE_STRATEGY_VALUES};
  PassOptions::Option<double> heavyBudget{
      *this, "heavy-budget",
      llvm::cl::desc("echo: the share of the step's estimated time that "
                     "re-running compute-heavy ops may cost (echo-recompute's "
                     "option)"),
      llvm::cl::init(0.01)};
  PassOptions::Option<double> peakGflops{
      *this, "peak-gflops",
      llvm::cl::desc("The time model recomputation is priced in: the peak "
                     "GFLOP/s (echo-recompute's option)"),
      llvm::cl::init(100.0)};
  PassOptions::Option<double> memoryGbps{
      *this, "memory-gbps",
      llvm::cl::desc("The time model recomputation is priced in: the memory "
                     "GB/s (echo-recompute's option)"),
      llvm::cl::init(20.0)};
  PassOptions::Option<std::string> chunkLoss{
      *this, "chunk-loss",
      llvm::cl::desc("Chunk the output layer and cross-entropy loss over "
                     "row chunks (echo-recompute's option): auto, off or a "
                     "number of chunks"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> budget{
      *this, "budget",
      llvm::cl::desc("strategy=budget: the bound on the step's bytes: bytes "
                     "(1073741824, 512MiB, 1.5GiB, 800MB) or a share of "
                     "none's (0.5, 50%); measured on this pipeline's buffer "
                     "plan unless compare-plans=0 or plan-buffers=false "
                     "(then estimated)"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> budgetReserve{
      *this, "budget-reserve",
      llvm::cl::desc("strategy=budget: bytes the step allocates outside its "
                     "plan (a library's workspace; echo-run measures it), "
                     "counted against the budget"),
      llvm::cl::init(0)};
  PassOptions::Option<OffloadPolicy> offload{
      *this, "offload",
      llvm::cl::desc("Stashed values moved to host memory and back "
                     "(echo-recompute's option): none, heavy or all"),
      llvm::cl::init(OffloadPolicy::None), ECHO_OFFLOAD_POLICY_VALUES};
  PassOptions::Option<double> linkBandwidth{
      *this, "link-bandwidth",
      llvm::cl::desc("offload: the host link's GB/s in the schedule's "
                     "bandwidth model (echo-recompute's option)"),
      llvm::cl::init(25.0)};
  PassOptions::Option<Target> target{
      *this, "target",
      llvm::cl::desc("Code generation target: cpu, or nvvm (CUDA kernels in "
                     "a gpu.binary, cuBLAS/cuDNN calls through the Echo CUDA "
                     "runtime; `cuda` is the same)"),
      llvm::cl::init(Target::CPU), ECHO_TARGET_VALUES};
  PassOptions::Option<bool> libraryCalls{
      *this, "library-calls",
      llvm::cl::desc("Run GEMMs and convolutions as calls into the Echo "
                     "runtime (target=cpu: OpenBLAS and oneDNN, "
                     "libEchoCpuRuntime; target=nvvm: cuBLAS and cuDNN); "
                     "false (cpu only): MLIR-generated contractions, tiled "
                     "and vectorized (no libraries needed, slow to compile)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> comparePlans{
      *this, "compare-plans",
      llvm::cl::desc("echo: lower this many candidate steps (the best "
                     "estimated first) and the step as it is with this "
                     "pipeline's bufferization phase, and keep the one whose "
                     "buffer plan takes the fewest step bytes (what a run "
                     "allocates); 0: decide on the tensor-level estimate. "
                     "Each costs a bufferization. Needs plan-buffers"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture for target=nvvm"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> gpuFeatures{
      *this, "gpu-features",
      llvm::cl::desc("NVPTX features for target=nvvm (PTX version)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<GpuFormat> gpuFormat{
      *this, "gpu-format",
      llvm::cl::desc("What gpu.binary holds for target=nvvm: fatbin (cubin "
                     "for `chip` plus PTX for the driver to JIT on other "
                     "chips), bin (cubin) or isa (PTX only)"),
      llvm::cl::init(GpuFormat::Fatbin), ECHO_GPU_FORMAT_VALUES};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit for target=nvvm (libdevice, ptxas, "
                     "fatbinary); default: $CUDA_HOME, else the toolkit found "
                     "when Echo was configured"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> gpuBlockSize{
      *this, "gpu-block-size",
      llvm::cl::desc("Threads per block of the generated kernels"),
      llvm::cl::init(256)};
  PassOptions::Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the memory report here ('-' = stdout)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> autodiff{
      *this, "autodiff",
      llvm::cl::desc("Build training steps of models that have none"),
      llvm::cl::init(true)};
  PassOptions::Option<Optimizer> optimizer{
      *this, "optimizer",
      llvm::cl::desc("echo-autodiff optimizer: none (gradients), sgd, or "
                     "momentum, adam, adamw (inside the step, in place)"),
      llvm::cl::init(Optimizer::None), ECHO_OPTIMIZER_VALUES};
  PassOptions::Option<Precision> precision{
      *this, "precision",
      llvm::cl::desc("f32 (as written), or bf16/f16: echo-autocast before "
                     "echo-autodiff (mixed precision, f32 master weights)"),
      llvm::cl::init(Precision::F32), ECHO_PRECISION_VALUES};
  PassOptions::Option<bool> lossScale{
      *this, "loss-scale",
      llvm::cl::desc("echo-autodiff loss-scale: the step takes the loss "
                     "scale as a trailing argument (dynamic loss scaling)"),
      llvm::cl::init(false)};
  PassOptions::Option<double> lr{*this, "lr",
                                 llvm::cl::desc("Learning rate of sgd"),
                                 llvm::cl::init(0.01)};
  PassOptions::Option<bool> planBuffers{
      *this, "plan-buffers",
      llvm::cl::desc("Place the step's buffers in one arena "
                     "(echo-plan-buffers, checked by "
                     "echo-verify-buffer-plan)"),
      llvm::cl::init(true)};
};

/// Checks the option values; reports the first bad one through `error`.
LogicalResult
validateEchoPipelineOptions(const EchoPipelineOptions &options,
                            function_ref<LogicalResult(const Twine &)> error);

/// The CUDA toolkit target=nvvm uses: `cuda-path`, else $CUDA_HOME, else the
/// toolkit found at configure time; empty when none is known.
std::string getCudaToolkitPath(const EchoPipelineOptions &options);

/// Appends the tensor-level half: echo-autodiff and echo-recompute.
void buildEchoTrainingPipeline(OpPassManager &pm,
                               const EchoPipelineOptions &options);
/// The same, where echo-recompute keeps the candidate steps it lowers (to
/// compare their buffer plans) in `lowered`.
void buildEchoTrainingPipeline(OpPassManager &pm,
                               const EchoPipelineOptions &options,
                               std::shared_ptr<LoweredStepCache> lowered);

/// Appends the first part of the lowering: Echo ops to linalg, one-shot
/// bufferization, buffer planning and its check.
void buildEchoBufferizationPipeline(OpPassManager &pm,
                                    const EchoPipelineOptions &options);
/// The same, run by echo-reuse-lowered-steps on `lowered` (the cache given
/// to buildEchoTrainingPipeline): the steps lowered there are not lowered
/// again. A null cache: the phase itself.
void buildEchoBufferizationPipeline(OpPassManager &pm,
                                    const EchoPipelineOptions &options,
                                    std::shared_ptr<LoweredStepCache> lowered);

/// Appends the rest of the lowering: deallocation, loops, the LLVM dialect
/// (target=cpu), or buildEchoNVVMPipeline (target=nvvm).
void buildEchoLLVMPipeline(OpPassManager &pm,
                           const EchoPipelineOptions &options);

/// Appends the target=nvvm part after planning: kernels mapped and outlined
/// into one gpu.module, lowered to NVVM and a gpu.binary, and host code in
/// the LLVM dialect calling the mgpu* runtime (NVVMPipeline.cpp).
void buildEchoNVVMPipeline(OpPassManager &pm,
                           const EchoPipelineOptions &options);

/// Appends the lowering half, from Echo ops on tensors to the LLVM dialect
/// (the two above).
void buildEchoLoweringPipeline(OpPassManager &pm,
                               const EchoPipelineOptions &options);

/// Appends the whole of `--echo-pipeline`.
void buildEchoPipeline(OpPassManager &pm, const EchoPipelineOptions &options);

/// Registers `--echo-pipeline` and its phases (`--echo-training-pipeline`,
/// `--echo-bufferization-pipeline`, `--echo-llvm-pipeline`) with the global
/// pass registry.
void registerEchoPipelines();

} // namespace echo
} // namespace mlir

#endif // ECHO_PIPELINES_PIPELINES_H
