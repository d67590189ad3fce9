//===- Pipelines.cpp - Echo's end-to-end pass pipelines -------------------===//
//
// Part of the Echo project.
//
// Every pipeline is built from typed `create…Pass` calls (no textual
// pipelines to parse at run time), in the style of IREE's
// HAL/Transforms/Passes.cpp: one `build…Pipeline` per phase, each
// registered on its own as well as within `echo-pipeline`.
//
//===----------------------------------------------------------------------===//

#include "echo/Pipelines/Pipelines.h"
#include "echo/Conversion/Passes.h"
#include "echo/Target/CPU/Passes.h"
#include "echo/Target/GPU/Passes.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::echo;

#ifndef ECHO_CUDA_TOOLKIT_DIR
#define ECHO_CUDA_TOOLKIT_DIR ""
#endif

std::string mlir::echo::getCudaToolkitPath(const EchoPipelineOptions &options) {
  if (!options.cudaPath.empty())
    return options.cudaPath;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    return home;
  return ECHO_CUDA_TOOLKIT_DIR;
}

static std::string libdevicePath(StringRef cuda) {
  SmallString<128> path(cuda);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return std::string(path);
}

/// The canonicalizer of the phases before the LLVM lowering, without region
/// simplification: there the step and its functions are single blocks
/// (loops and branches are scf ops, whose regions are single blocks too),
/// so simplifying regions finds nothing to merge or erase, yet it walks the
/// whole module after every round of patterns: half the canonicalizer's
/// time on a long step (dead ops are still erased by the rewrite driver).
static std::unique_ptr<Pass> createStraightLineCanonicalizer() {
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return createCanonicalizerPass(config);
}

LogicalResult mlir::echo::validateEchoPipelineOptions(
    const EchoPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> error) {
  // The enumerated options (strategy, target, optimizer, gpu-format) are
  // checked by their parsers; what is left are relations and ranges.
  if (options.comparePlans < 0)
    return error("echo-pipeline: compare-plans must be 0 (decide on the "
                 "estimate) or a number of candidate plans, got " +
                 Twine(options.comparePlans.getValue()));
  std::string why;
  if (!checkRecomputeBudgetOptions(options.strategy, options.budget,
                                   options.budgetReserve, why))
    return error("echo-pipeline: " + why);
  if (options.offload != OffloadPolicy::None && !options.libraryCalls)
    return error("echo-pipeline: offload needs library-calls=true (the "
                 "copies are calls into the Echo runtime's host pool)");
  if (options.target != Target::NVVM)
    return success();
  if (!options.libraryCalls)
    return error("echo-pipeline: target=nvvm needs library-calls=true (its "
                 "GEMMs and convolutions are cuBLAS and cuDNN calls)");
  if (!options.planBuffers)
    return error("echo-pipeline: target=nvvm needs plan-buffers=true (a "
                 "GPU step's memory is the planned arena)");
  if (!StringRef(options.chip).starts_with("sm_"))
    return error("echo-pipeline: chip '" + options.chip +
                 "' is not an NVIDIA architecture (expected e.g. sm_90)");
  if (options.gpuBlockSize < 1 || options.gpuBlockSize > 1024)
    return error("echo-pipeline: gpu-block-size must be in [1, 1024]");
  std::string cuda = getCudaToolkitPath(options);
  if (cuda.empty() || !llvm::sys::fs::exists(libdevicePath(cuda)))
    return error(
        "echo-pipeline: target=nvvm needs a CUDA toolkit with " +
        (cuda.empty() ? std::string("libdevice") : libdevicePath(cuda)) +
        " (the kernels' math functions); pass cuda-path= or set CUDA_HOME");
  return success();
}

//===----------------------------------------------------------------------===//
// Training: tensor-level Echo IR
//===----------------------------------------------------------------------===//

void mlir::echo::buildEchoTrainingPipeline(OpPassManager &pm,
                                           const EchoPipelineOptions &options) {
  buildEchoTrainingPipeline(pm, options, nullptr);
}

/// True when echo-recompute decides on the buffer plans of this pipeline's
/// own bufferization phase (strategies echo and budget with compare-plans).
static bool comparesPlans(const EchoPipelineOptions &options) {
  return (options.strategy == RecomputeStrategy::Echo ||
          options.strategy == RecomputeStrategy::Budget) &&
         options.comparePlans > 0 && options.planBuffers;
}

void mlir::echo::buildEchoTrainingPipeline(
    OpPassManager &pm, const EchoPipelineOptions &options,
    std::shared_ptr<LoweredStepCache> lowered) {
  if (options.precision != Precision::F32) {
    EchoAutocastOptions autocast;
    autocast.dtype = options.precision;
    pm.addPass(createEchoAutocast(autocast));
  }
  if (options.autodiff) {
    EchoAutodiffOptions autodiff;
    autodiff.optimizer = options.optimizer;
    autodiff.lossScale = options.lossScale;
    autodiff.lr = options.lr;
    pm.addPass(createEchoAutodiff(autodiff));
  }
  // strategy=none leaves the IR as it is (and does not verify it, so that
  // echo-run can lower an f64 copy of a model for its gradient check).
  // A number of loss chunks applies under strategy=none too.
  bool chunked = options.chunkLoss != "auto" && options.chunkLoss != "off";
  if (options.strategy != RecomputeStrategy::None ||
      options.offload != OffloadPolicy::None || chunked) {
    EchoRecomputeOptions recompute;
    recompute.strategy = options.strategy;
    recompute.offload = options.offload;
    recompute.linkBandwidth = options.linkBandwidth;
    recompute.heavyBudget = options.heavyBudget;
    recompute.peakGflops = options.peakGflops;
    recompute.memoryGbps = options.memoryGbps;
    recompute.chunkLoss = options.chunkLoss;
    recompute.budget = options.budget;
    recompute.budgetReserve = options.budgetReserve;
    // echo and budget decide on what the lowered step will hold: each
    // candidate is planned by the bufferization phase of this very pipeline.
    if (comparesPlans(options)) {
      recompute.plansCompared = options.comparePlans;
      OpPassManager planner(ModuleOp::getOperationName());
      buildEchoBufferizationPipeline(planner, options);
      pm.addPass(createEchoRecompute(recompute, std::move(planner),
                                     std::move(lowered)));
    } else {
      pm.addPass(createEchoRecompute(recompute));
    }
  }
}

//===----------------------------------------------------------------------===//
// Bufferization: linalg on tensors, one-shot bufferization, the arena
//===----------------------------------------------------------------------===//

void mlir::echo::buildEchoBufferizationPipeline(
    OpPassManager &pm, const EchoPipelineOptions &options,
    std::shared_ptr<LoweredStepCache> lowered) {
  if (!lowered) {
    buildEchoBufferizationPipeline(pm, options);
    return;
  }
  // The step echo-recompute chose was lowered by this phase already, when
  // it was compared: it is put back as it was lowered then.
  OpPassManager lowering(ModuleOp::getOperationName());
  buildEchoBufferizationPipeline(lowering, options);
  pm.addPass(
      createEchoReuseLoweredSteps(std::move(lowering), std::move(lowered)));
}

void mlir::echo::buildEchoBufferizationPipeline(
    OpPassManager &pm, const EchoPipelineOptions &options) {
  bool gpu = options.target == Target::NVVM;
  // What each value holds (parameters, activations, gradients, ...), in its
  // location, for the plan's memory categories.
  pm.addPass(createEchoTagMemoryCategories());
  // Fused attention has a kernel in the CPU runtime only; elsewhere it is
  // computed by the materialized ops (GEMMs, softmax, dropout).
  if (gpu || !options.libraryCalls)
    pm.addPass(createEchoDecomposeAttention());
  if (options.libraryCalls) {
    pm.addPass(createEchoTransferCalls());
    // Both runtimes have bf16 GEMMs (oneDNN, cuBLAS); only the CUDA
    // runtime has f16 ones (the CPU's f16 GEMMs run in f32).
    EchoLibraryCallsOptions calls;
    calls.bf16Calls = true;
    calls.f16Calls = gpu;
    pm.addPass(createEchoLibraryCalls(calls));
  }
  pm.addPass(createConvertEchoToLinalg());
  // Without library calls the contractions are tiled and vectorized here
  // (the vector transfers are unrolled by the LLVM phase).
  if (!options.libraryCalls)
    pm.addPass(createEchoVectorizeContractions());
  // Sums in lanes and pooling windows outside the output's last dim: a
  // parallel innermost loop, which LLVM vectorizes. Before fusion, so that
  // which sums accumulate in lanes depends on the ops alone, not on what
  // the strategy's fusions made of them.
  if (!gpu)
    pm.addNestedPass<func::FuncOp>(createEchoVectorizableLoops());
  // Folds the tensor.empty/fill/pad chains of the lowering; no CSE, which
  // would merge recomputed values back into the stashed ones.
  pm.addPass(createStraightLineCanonicalizer());
  // Elementwise chains fuse into one loop nest (one kernel on a GPU): a
  // recomputed value fuses into the op that consumes it, what the paper's
  // hand-written Echo kernels did; a fusion that would keep forward values
  // alive longer is refused. GEMMs and convolutions are library calls or
  // vectorized loops by now, so only elementwise chains fuse.
  // A kernel's parameters must fit in 4352 bytes (sm_90): fusions whose
  // operand descriptors would take more than 3584 are refused (the rest is
  // left for scalars).
  EchoFuseElementwiseOptions fusion;
  if (gpu)
    fusion.maxOperandBytes = 3584;
  pm.addPass(createEchoFuseElementwise(fusion));
  pm.addPass(createStraightLineCanonicalizer());
  if (gpu)
    pm.addPass(createEchoFillConstants());
  pm.addNestedPass<func::FuncOp>(createEchoDistinctResults());
  // One-shot's analysis is quadratic in the readers of one tensor (an
  // unrolled RNN's weights): each group of 64 readers gets its own
  // read-only name, folded away by bufferization.
  pm.addNestedPass<func::FuncOp>(createEchoSplitReadUses());
  // Results become out-parameters, so that the caller owns every buffer it
  // gets back (one each: echo-distinct-results).
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // A library call's buffer may now be a view the runtime cannot take (a
  // column of a stacked tensor): copied into a packed one, which the
  // planner places like any other.
  if (options.libraryCalls)
    pm.addPass(createEchoLibraryCallLayouts());
  // Buffers are values no more: CSE merges the identical subviews that an
  // in-place tensor.insert_slice bufferizes to (a row updated in a loop:
  // the embedding gradient), so that its copy onto itself folds away.
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  // A step with an optimizer inside writes its new parameters and state
  // into the arguments' buffers; those results are dropped (upstream's
  // drop-equivalent-buffer-results), so only the loss is returned.
  pm.addPass(createEchoUpdateInPlace());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  if (options.planBuffers) {
    EchoPlanBuffersOptions plan;
    // The GPU arena is one device allocation that the runtime passes in;
    // 256 bytes is cudaMalloc's alignment.
    plan.alignment = gpu ? 256 : 64;
    plan.arena = gpu ? ArenaKind::Argument : ArenaKind::Alloc;
    pm.addPass(createEchoPlanBuffers(plan));
    pm.addPass(createEchoVerifyBufferPlan());
  }
}

//===----------------------------------------------------------------------===//
// LLVM: deallocation, loops, the LLVM dialect
//===----------------------------------------------------------------------===//

/// The fewest loop iterations of a kernel split across threads.
static constexpr int64_t kParallelMinWork = int64_t(1) << 16;

/// The CPU lowering after planning (see shared/ENV.md for why each pass is
/// there).
static void buildCPUToLLVMPipeline(OpPassManager &pm,
                                   const EchoPipelineOptions &options) {
  // Upstream's buildBufferDeallocationPipeline, its canonicalizers without
  // region simplification.
  memref::ExpandReallocPassOptions expandRealloc;
  expandRealloc.emitDeallocs = false;
  pm.addPass(memref::createExpandReallocPass(expandRealloc));
  pm.addPass(createStraightLineCanonicalizer());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createStraightLineCanonicalizer());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createStraightLineCanonicalizer());
  // The step and the runtime calls get C interfaces; the kernels outlined
  // next (one function per loop nest, since LLVM's loop passes scale with
  // the function) do not need one. Where the step links the CPU runtime,
  // kernels of kParallelMinWork iterations or more run across its threads
  // (a fork and join of OpenMP's team costs a few microseconds; below
  // that a kernel takes tens of microseconds on one core).
  pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  EchoOutlineKernelsOptions outline;
  if (options.libraryCalls)
    outline.parallelMinWork = kParallelMinWork;
  pm.addPass(createEchoOutlineKernels(outline));
  // What remains (views, calls, copies) is cut into functions of bounded
  // size: LLVM's register allocation is superlinear in a function's size.
  pm.addPass(createEchoOutlineSegments());
  // From here on, passes that rewrite one function at a time run nested on
  // func.func: the pass manager runs them on the kernels and segments in
  // parallel (one module-wide pass would keep one core busy).
  OpPassManager &loops = pm.nest<func::FuncOp>();
  // tanh/exp/log as polynomials the loop vectorizer handles (libm's are
  // scalar calls).
  loops.addPass(createEchoApproximateMath());
  // An elementwise kernel's loops over contiguous memory as one long loop
  // (a [N, C, 14, 14] batch norm's inner loop had 14 iterations).
  loops.addPass(createEchoCollapseContiguousLoops());
  loops.addPass(createConvertLinalgToLoopsPass());
  loops.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  // bf16 on any x86-64, once linalg bodies are loops: what arithmetic and
  // math the lowering left on bf16 (the elementwise ops already compute in
  // f32 and round once; combiners, pooling windows, softmax) computed in
  // f32 and rounded after each arithmetic op (what LLVM's promotion does),
  // then the conversions as integer arithmetic, so that no compiler-rt call
  // (__truncsfbf2) is left on CPUs without AVX512-BF16.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  loops.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  loops.addPass(math::createMathExtendToSupportedTypes());
  loops.addPass(createEchoExpandBF16());
  loops.addPass(createSCFToControlFlowPass());
  loops.addPass(memref::createExpandStridedMetadataPass());
  loops.addPass(createLowerAffinePass());
  pm.addPass(createEchoStripMarkers());
  // Kernels and segments take their static memrefs as bare pointers: the
  // expanded descriptors of their calls were most of the step's LLVM IR.
  // (Sound with use-aligned-alloc below: a callee that deallocates frees a
  // pointer that is both the allocated and the aligned one.)
  pm.addPass(createEchoBarePointerCalls());
  // The step's allocations call MLIR's generic allocation functions, which
  // the drivers (echo-run's JIT, echo-step) define with the allocator that
  // counts every byte of the step; aligned, so that the bytes asked for are
  // the buffers' own.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  // Vector, math and arith ops become LLVM ops in place, one function at a
  // time (no declarations: the CPU pipeline makes no vector.print);
  // convert-to-llvm converts the functions and what is left.
  OpPassManager &toLLVM = pm.nest<func::FuncOp>();
  toLLVM.addPass(createConvertVectorToLLVMPass());
  toLLVM.addPass(createConvertMathToLLVMPass());
  toLLVM.addPass(createArithToLLVMConversionPass());
  // What has no LLVM intrinsic becomes a libm call: erf (gelu) in the f64
  // reference of a gradient check, which echo-approximate-math leaves alone.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (options.libraryCalls)
    pm.addPass(createEchoCpuParallelCalls());
}

void mlir::echo::buildEchoLLVMPipeline(OpPassManager &pm,
                                       const EchoPipelineOptions &options) {
  if (options.target == Target::NVVM)
    buildEchoNVVMPipeline(pm, options);
  else
    buildCPUToLLVMPipeline(pm, options);
}

void mlir::echo::buildEchoLoweringPipeline(OpPassManager &pm,
                                           const EchoPipelineOptions &options) {
  buildEchoBufferizationPipeline(pm, options);
  buildEchoLLVMPipeline(pm, options);
}

void mlir::echo::buildEchoPipeline(OpPassManager &pm,
                                   const EchoPipelineOptions &options) {
  // Where echo-recompute lowers candidate steps through the bufferization
  // phase, the one it chooses is not lowered again.
  std::shared_ptr<LoweredStepCache> lowered;
  if (comparesPlans(options))
    lowered = std::make_shared<LoweredStepCache>();
  buildEchoTrainingPipeline(pm, options, lowered);
  // The footprint is measured on the tensor-level step and written once the
  // buffers are planned (planned_bytes).
  if (options.report.empty()) {
    buildEchoBufferizationPipeline(pm, options, lowered);
    buildEchoLLVMPipeline(pm, options);
    return;
  }
  EchoMemoryReportOptions attach;
  attach.attach = true;
  pm.addPass(createEchoMemoryReport(attach));
  buildEchoBufferizationPipeline(pm, options, lowered);
  EchoMemoryReportOptions write;
  write.output = options.report;
  pm.addPass(createEchoMemoryReport(write));
  buildEchoLLVMPipeline(pm, options);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers `name` as a pipeline with EchoPipelineOptions, validated.
static void registerPipeline(StringRef name, StringRef description,
                             void (*build)(OpPassManager &,
                                           const EchoPipelineOptions &)) {
  registerPassPipeline(
      name, description,
      [build](OpPassManager &pm, StringRef optionsStr,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        EchoPipelineOptions options;
        if (failed(options.parseFromString(optionsStr)) ||
            failed(validateEchoPipelineOptions(options, errorHandler)))
          return failure();
        build(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(EchoPipelineOptions());
      });
}

void mlir::echo::registerEchoPipelines() {
  registerPipeline("echo-pipeline",
                   "From Echo models to LLVM-dialect IR: autodiff, "
                   "recomputation, lowering through linalg and bufferization",
                   buildEchoPipeline);
  registerPipeline("echo-training-pipeline",
                   "The tensor-level half of echo-pipeline: echo-autodiff "
                   "and echo-recompute",
                   buildEchoTrainingPipeline);
  registerPipeline("echo-bufferization-pipeline",
                   "Echo ops on tensors to planned buffers: library calls "
                   "(nvvm), linalg, one-shot bufferization, the arena",
                   buildEchoBufferizationPipeline);
  registerPipeline("echo-llvm-pipeline",
                   "Planned buffers to the LLVM dialect: loops (cpu), or "
                   "kernels in a gpu.binary and host code (nvvm)",
                   buildEchoLLVMPipeline);
}
