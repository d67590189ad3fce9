//===- echo-run.cpp - Run Echo training steps -------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// echo-run <model.mlir> --strategy=<s> --target=cpu|cuda --steps=<n> --seed=<n>
//          [--check-gradients] [--report=<path>] [--inputs=<dir>]
//          [--dump=<dir>]
// echo-run <module.mlir> --function=@f [--loss=<n> | --tangents=<n,...>]
//          [--strategy=<s>] [--inputs=<dir or a.npy,b.npy,...>]
//          [--dump=<dir>] [--report=<path>]
//
// Compiles the training step of a model (SPEC.md model convention) through
// the Echo pipelines and runs it on deterministic data, on the CPU (JIT) or
// an NVIDIA GPU (--target=cuda, through the Echo CUDA runtime); or, with
// --emit-aot=DIR, compiles it ahead of time into an MLIR-free executable.
// With --function=@f naming a function that is not a model (and --loss= or
// --tangents= for a step differentiated elsewhere), runs that function once
// (echo/Runner/FunctionRun.h). A thin main over lib/Runner
// (echo/Runner/TrainingRun.h), in the manner of mlir-runner over JitRunner.
//
//===----------------------------------------------------------------------===//

#include "echo/InitAllEcho.h"
#include "echo/Runner/FunctionRun.h"
#include "echo/Runner/Machine.h"
#include "echo/Runner/TrainingRun.h"
#include "echo/Support/CommandLine.h"
#include "echo/Transforms/Options.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>

using namespace mlir;
namespace cl = llvm::cl;

/// echo-run's own options: --help shows these only (LLVM's stay under
/// --help-hidden).
static cl::OptionCategory runCategory("echo-run options");

namespace {
/// A string option that, when given, must not be empty: `--budget=` or
/// `--report=` with an unset shell variable would otherwise be taken as
/// "not given" and silently do nothing.
class NonEmptyParser : public cl::parser<std::string> {
public:
  using cl::parser<std::string>::parser;
  bool parse(cl::Option &o, StringRef name, StringRef arg, std::string &value) {
    if (arg.empty())
      return o.error("the value is empty");
    value = arg.str();
    return false;
  }
};

/// A floating-point option that must be finite: `inf` and `nan` parse as
/// doubles but are never a learning rate, a tolerance or a bandwidth.
class FiniteParser : public cl::parser<double> {
public:
  using cl::parser<double>::parser;
  bool parse(cl::Option &o, StringRef name, StringRef arg, double &value) {
    if (cl::parser<double>::parse(o, name, arg, value))
      return true;
    if (!std::isfinite(value))
      return o.error("'" + arg + "' is not a finite number");
    return false;
  }
};

using StringOpt = cl::opt<std::string, false, NonEmptyParser>;
using FiniteOpt = cl::opt<double, false, FiniteParser>;
} // namespace

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<model.mlir>"),
                                          cl::Required, cl::cat(runCategory));
static cl::opt<echo::RecomputeStrategy> strategyOpt(
    "strategy",
    cl::desc("Recompute strategy: none, mirror, sublinear, echo, budget"),
    cl::init(echo::RecomputeStrategy::Echo), ECHO_RECOMPUTE_STRATEGY_VALUES,
    cl::cat(runCategory));
static cl::opt<echo::Target>
    targetOpt("target",
              cl::desc("Execution target: cpu, or cuda (an NVIDIA GPU through "
                       "the Echo CUDA runtime; nvvm is the same)"),
              cl::init(echo::Target::CPU), ECHO_TARGET_VALUES,
              cl::cat(runCategory));
#ifndef ECHO_CUDA_RUNTIME_PATH
#define ECHO_CUDA_RUNTIME_PATH ""
#endif
static StringOpt
    cudaRuntimeOpt("cuda-runtime",
                   cl::desc("The Echo CUDA runtime library for --target=cuda"),
                   cl::init(ECHO_CUDA_RUNTIME_PATH), cl::cat(runCategory));
#ifndef ECHO_CPU_RUNTIME_PATH
#define ECHO_CPU_RUNTIME_PATH ""
#endif
static StringOpt cpuRuntimeOpt(
    "cpu-runtime",
    cl::desc("The Echo CPU runtime library (OpenBLAS/oneDNN calls) for "
             "--target=cpu with library calls"),
    cl::init(ECHO_CPU_RUNTIME_PATH), cl::cat(runCategory));
static cl::opt<bool> libraryCallsOpt(
    "library-calls",
    cl::desc("Run GEMMs and convolutions in vendor libraries (cpu: OpenBLAS "
             "and oneDNN; cuda: cuBLAS and cuDNN); --library-calls=false "
             "generates them (cpu only)"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<unsigned> stepsOpt("steps", cl::desc("Training steps to run"),
                                  cl::init(1), cl::cat(runCategory));
static cl::opt<uint64_t> seedOpt("seed",
                                 cl::desc("Seed of parameters and data"),
                                 cl::init(0), cl::cat(runCategory));
static StringOpt functionOpt(
    "function",
    cl::desc("The model to train when the file has several; or any "
             "statically shaped function (@f or f) to run once: TOSA, linalg "
             "on tensors or Echo ops, its arguments from --inputs or the "
             "seed, its results written by --dump"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<int64_t> lossOpt(
    "loss",
    cl::desc("--function: the result of a step differentiated elsewhere "
             "that is its loss (JAX style): the step is adopted and planned "
             "under --strategy (echo-adopt-training-step's loss=)"),
    cl::init(-1), cl::cat(runCategory));
static cl::list<int64_t> tangentsOpt(
    "tangents",
    cl::desc("--function: the arguments of a step differentiated elsewhere "
             "that are tangents (AOTAutograd style; echo-adopt-training-"
             "step's tangents=)"),
    cl::CommaSeparated, cl::cat(runCategory));
static cl::opt<echo::Optimizer> optimizerOpt(
    "optimizer",
    cl::desc("The optimizer: none (the step returns gradients, SGD applied "
             "by echo-run), sgd (the step returns updated parameters), or "
             "momentum, adam, adamw (in the step, on state it takes: "
             "parameters and state updated in place, the loss returned)"),
    cl::init(echo::Optimizer::None), ECHO_OPTIMIZER_VALUES,
    cl::cat(runCategory));
static cl::opt<echo::Precision> precisionOpt(
    "precision",
    cl::desc("The type the step computes in: f32, or bf16/f16 (mixed "
             "precision: echo-autocast, f32 master weights; f16 scales the "
             "loss dynamically)"),
    cl::init(echo::Precision::F32), ECHO_PRECISION_VALUES,
    cl::cat(runCategory));
static FiniteOpt lrOpt("lr", cl::desc("Learning rate"), cl::init(0.1),
                       cl::cat(runCategory));
static FiniteOpt momentumOpt("momentum",
                             cl::desc("--optimizer=momentum: the momentum"),
                             cl::init(0.9), cl::cat(runCategory));
static FiniteOpt beta1Opt("beta1", cl::desc("adam, adamw: beta1"),
                          cl::init(0.9), cl::cat(runCategory));
static FiniteOpt beta2Opt("beta2", cl::desc("adam, adamw: beta2"),
                          cl::init(0.999), cl::cat(runCategory));
static FiniteOpt epsOpt("eps", cl::desc("adam, adamw: epsilon"), cl::init(1e-8),
                        cl::cat(runCategory));
static FiniteOpt
    weightDecayOpt("weight-decay",
                   cl::desc("momentum, adam: L2 weight decay; adamw: "
                            "decoupled weight decay"),
                   cl::init(0.0), cl::cat(runCategory));
static cl::opt<bool> checkGradients(
    "check-gradients",
    cl::desc("Compare the first step's gradients with central finite "
             "differences (in f64); exit 1 beyond --tolerance"),
    cl::init(false), cl::cat(runCategory));
static FiniteOpt
    toleranceOpt("tolerance",
                 cl::desc("Largest accepted norm-wise relative error of a "
                          "parameter gradient"),
                 cl::init(1e-3), cl::cat(runCategory));
static cl::opt<unsigned> checkSamples(
    "check-samples",
    cl::desc("Elements per parameter checked by finite differences (0 = all)"),
    cl::init(64), cl::cat(runCategory));
static StringOpt reportOpt("report", cl::desc("Write a JSON run report here"),
                           cl::init(""), cl::cat(runCategory));
static StringOpt inputsOpt("inputs",
                           cl::desc("Read argument N from DIR/argN.npy"),
                           cl::init(""), cl::cat(runCategory));
static StringOpt
    dumpOpt("dump", cl::desc("Write the first step's results as DIR/outN.npy"),
            cl::init(""), cl::cat(runCategory));
static StringOpt referenceDumpOpt(
    "reference-dump",
    cl::desc("Also run the step in f64 (no recomputation, no library calls: "
             "the gradient check's reference) on the first step's arguments "
             "and write its results as DIR/outN.npy"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<unsigned>
    optLevelOpt("opt-level",
                cl::desc("LLVM optimization level of the JIT (0-3); 0 "
                         "compiles fastest (tests)"),
                cl::init(2), cl::cat(runCategory));
static cl::opt<bool>
    verifyEachOpt("verify-each",
                  cl::desc("Verify the IR after every compiler pass, not "
                           "only after each pipeline (slower; for debugging "
                           "the compiler)"),
                  cl::init(false), cl::cat(runCategory));
static cl::opt<bool> quietOpt("quiet", cl::desc("Do not print losses"),
                              cl::init(false), cl::cat(runCategory));
static StringOpt emitAotOpt(
    "emit-aot",
    cl::desc("Instead of running, compile the step ahead of time into "
             "DIR/echo-step, an executable that needs no MLIR or LLVM (with "
             "manifest.txt, memory.json and, for --target=cuda, the runtime "
             "library)"),
    cl::value_desc("DIR"), cl::init(""), cl::cat(runCategory));
static StringOpt emitLibraryOpt(
    "emit-library",
    cl::desc("Instead of running, compile the step ahead of time into "
             "DIR/libechostep.so, a shared library with a C interface "
             "(echo_step_run) that needs no MLIR or LLVM, for a host program "
             "to call with its own buffers (echo.torch.compile_step; with "
             "manifest.txt and memory.json)"),
    cl::value_desc("DIR"), cl::init(""), cl::cat(runCategory));
#ifndef ECHO_STEP_LIBRARY_PATH
#define ECHO_STEP_LIBRARY_PATH ""
#endif
#ifndef ECHO_AOT_CXX
#define ECHO_AOT_CXX "c++"
#endif
#ifndef ECHO_CPU_RUNTIME_ARCHIVE
#define ECHO_CPU_RUNTIME_ARCHIVE ""
#endif
#ifndef ECHO_STEP_MAIN_PATH
#define ECHO_STEP_MAIN_PATH ""
#endif
static StringOpt
    aotCxxOpt("aot-cxx",
              cl::desc("C++ compiler driver that links --emit-aot bundles"),
              cl::init(ECHO_AOT_CXX), cl::cat(runCategory));
static cl::opt<bool> planBuffersOpt(
    "plan-buffers",
    cl::desc("Place the step's buffers in one arena (echo-plan-buffers); "
             "--plan-buffers=false keeps one allocation per buffer"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<unsigned> comparePlansOpt(
    "compare-plans",
    cl::desc("echo: lower this many best estimated candidate steps and keep "
             "the one whose buffer plan takes the fewest bytes (0: decide on "
             "the estimate)"),
    cl::init(3), cl::cat(runCategory));

static StringOpt budgetOpt(
    "budget",
    cl::desc("Fit the step in this many bytes with the least recompute "
             "(--strategy=budget, implied when no strategy is given): bytes "
             "(1073741824, 512MiB, 1.5GiB, 800MB) or a share of none's (0.5, "
             "50%)"),
    cl::init(""), cl::cat(runCategory));

static StringOpt chunkLossOpt(
    "chunk-loss",
    cl::desc("Chunk the output layer and cross-entropy loss over row "
             "chunks, each chunk's logits formed once: "
             "auto (echo's cost model), off or a number of chunks "
             "(echo-pipeline's chunk-loss=)"),
    cl::init("auto"), cl::cat(runCategory));

static cl::opt<echo::OffloadPolicy> offloadOpt(
    "offload",
    cl::desc("Move stashed values to host memory and back: none, heavy "
             "(results of compute-heavy ops) or all (echo-pipeline's "
             "offload=)"),
    cl::init(echo::OffloadPolicy::None), ECHO_OFFLOAD_POLICY_VALUES,
    cl::cat(runCategory));

static FiniteOpt linkBandwidthOpt(
    "link-bandwidth",
    cl::desc("--offload: the host link's GB/s in the schedule's bandwidth "
             "model"),
    cl::init(25.0), cl::cat(runCategory));

static StringOpt machineOpt(
    "machine",
    cl::desc("The machine calibration bench/machine.py writes (JSON): "
             "recomputation is priced in time at its measured SGEMM GFLOP/s "
             "and triad GB/s (default without it: 100 GFLOP/s, 20 GB/s)"),
    cl::value_desc("file"), cl::init(""), cl::cat(runCategory));

static FiniteOpt peakGflopsOpt(
    "peak-gflops",
    cl::desc("The time model's peak GFLOP/s (echo-pipeline's peak-gflops=; "
             "overrides --machine's)"),
    cl::init(100.0), cl::cat(runCategory));

static FiniteOpt memoryGbpsOpt(
    "memory-gbps",
    cl::desc("The time model's memory GB/s (echo-pipeline's memory-gbps=; "
             "overrides --machine's)"),
    cl::init(20.0), cl::cat(runCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerAllPasses();
  echo::registerAllPasses();
  echo::hideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(argc, argv, "Echo training-step runner\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  echo::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // --target=cuda: the step holds a gpu.binary.
  registerAllGPUToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the model's source; the op dump only adds noise.
  context.printOpOnDiagnostic(false);
  echo::TrainingRunOptions options;
  options.input = inputFilename;
  options.strategy = strategyOpt;
  options.budget = budgetOpt;
  options.chunkLoss = chunkLossOpt;
  options.offload = offloadOpt;
  options.linkBandwidth = linkBandwidthOpt;
  if (!machineOpt.empty()) {
    std::string error;
    std::optional<echo::MachineRates> rates =
        echo::readMachineCalibration(machineOpt, error);
    if (!rates) {
      llvm::errs() << "echo-run: error: " << error << "\n";
      return 1;
    }
    options.peakGflops = rates->peakGflops;
    options.memoryGbps = rates->memoryGbps;
  }
  if (peakGflopsOpt.getNumOccurrences())
    options.peakGflops = peakGflopsOpt;
  if (memoryGbpsOpt.getNumOccurrences())
    options.memoryGbps = memoryGbpsOpt;
  if (!budgetOpt.empty() && strategyOpt.getNumOccurrences() == 0)
    options.strategy = echo::RecomputeStrategy::Budget;
  options.target = targetOpt;
  options.libraryCalls = libraryCallsOpt;
  options.cudaRuntime = cudaRuntimeOpt;
  options.cpuRuntime = cpuRuntimeOpt;
  options.steps = stepsOpt;
  options.seed = seedOpt;
  options.function = functionOpt;
  options.optimizer = optimizerOpt;
  options.precision = precisionOpt;
  options.lr = lrOpt;
  options.momentum = momentumOpt;
  options.beta1 = beta1Opt;
  options.beta2 = beta2Opt;
  options.eps = epsOpt;
  options.weightDecay = weightDecayOpt;
  options.checkGradients = checkGradients;
  options.tolerance = toleranceOpt;
  options.checkSamples = checkSamples;
  options.report = reportOpt;
  options.inputs = inputsOpt;
  options.dump = dumpOpt;
  options.referenceDump = referenceDumpOpt;
  options.optLevel = optLevelOpt;
  options.verifyEach = verifyEachOpt;
  options.quiet = quietOpt;
  options.planBuffers = planBuffersOpt;
  options.comparePlans = comparePlansOpt;
  options.emitAot = emitAotOpt;
  options.stepMainLibrary = ECHO_STEP_MAIN_PATH;
  options.emitLibrary = emitLibraryOpt;
  options.stepLibrary = ECHO_STEP_LIBRARY_PATH;
  options.cpuRuntimeArchive = ECHO_CPU_RUNTIME_ARCHIVE;
  options.aotCxx = aotCxxOpt;
  bool namesSplit = lossOpt.getNumOccurrences() || !tangentsOpt.empty();
  if (namesSplit && functionOpt.empty()) {
    llvm::errs() << "echo-run: --loss and --tangents name the split "
                    "of the step --function=@f names\n";
    return 1;
  }
  if (functionOpt.empty())
    return echo::runTraining(context, options);
  // --function=@f or f.
  options.function = StringRef(functionOpt).ltrim('@').str();
  echo::FunctionRunOptions run;
  run.loss = lossOpt;
  if (lossOpt.getNumOccurrences() && lossOpt < 0) {
    llvm::errs() << "echo-run: --loss must be a result number (>= "
                    "0), got "
                 << lossOpt << "\n";
    return 1;
  }
  run.tangents.assign(tangentsOpt.begin(), tangentsOpt.end());
  run.strategyGiven =
      strategyOpt.getNumOccurrences() || budgetOpt.getNumOccurrences();
  for (cl::Option *flag : std::initializer_list<cl::Option *>{
           &stepsOpt, &optimizerOpt, &precisionOpt, &lrOpt, &momentumOpt,
           &beta1Opt, &beta2Opt, &epsOpt, &weightDecayOpt, &checkGradients,
           &toleranceOpt, &checkSamples, &referenceDumpOpt, &emitAotOpt,
           &emitLibraryOpt, &chunkLossOpt, &offloadOpt, &linkBandwidthOpt})
    if (flag->getNumOccurrences())
      run.trainingOnlyFlags.push_back(flag->ArgStr.str());
  return echo::runFunction(context, options, run);
}
