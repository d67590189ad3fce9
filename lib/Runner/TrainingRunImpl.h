//===- TrainingRunImpl.h - echo-run's TrainingRun, shared by its files ----===//
//
// Part of the Echo project.
//
// The class behind runTraining (TrainingRun.h), private to lib/Runner: its
// steps live in TrainingRun.cpp (options, model, arguments, compiling,
// training), TrainingReference.cpp (the f64 reference step, the gradient
// check and the dumps) and TrainingReport.cpp (--report, the workspace
// probe).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_RUNNER_TRAININGRUNIMPL_H
#define ECHO_LIB_RUNNER_TRAININGRUNIMPL_H

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Pipelines/Pipelines.h"
#include "echo/Runner/AotBundle.h"
#include "echo/Runner/Cpu.h"
#include "echo/Runner/Cuda.h"
#include "echo/Runner/GradientCheck.h"
#include "echo/Runner/Jit.h"
#include "echo/Runner/Model.h"
#include "echo/Runner/Npy.h"
#include "echo/Runner/TrainingRun.h"
#include "echo/Support/Nesting.h"
#include "echo/Transforms/Passes.h"

#include "EchoCountingAllocator.h"
#include "EchoHostData.h"
#include "EchoStepManifest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

namespace mlir::echo::detail {

/// Prints "echo-run: <msg>" and fails.
inline LogicalResult error(const Twine &msg) {
  llvm::errs() << "echo-run: " << msg << "\n";
  return failure();
}

/// Checks the ids or labels `t` (i32 or i64) read from `path` against the
/// bound their use in `arg`'s function accepts (IndexOperandOpInterface):
/// an out-of-range id would read outside a table.
LogicalResult checkIndices(const HostTensor &t, BlockArgument arg,
                           StringRef path);

/// Parses the MLIR file `path` into `module`, its nesting bounded first
/// (the parser recurses once per level: a located line, as the parser's own
/// errors are), diagnostics located through `sourceMgr`.
inline LogicalResult
parseInput(StringRef path, MLIRContext &context, llvm::SourceMgr &sourceMgr,
           std::optional<SourceMgrDiagnosticHandler> &diagnostics,
           OwningOpRef<ModuleOp> &module) {
  std::string message;
  auto file = openInputFile(path, &message);
  if (!file)
    return error(message);
  if (failed(checkMLIRNesting(*file, message))) {
    llvm::errs() << message << "\n";
    return failure();
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  diagnostics.emplace(sourceMgr, &context);
  module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  return success(static_cast<bool>(module));
}

/// Writes the one-entry report `entry` to `file` (--report=`path`) and
/// keeps it; a write error names the path.
inline LogicalResult writeReportEntry(llvm::json::Object entry,
                                      llvm::ToolOutputFile &file,
                                      StringRef path) {
  llvm::json::Array report;
  report.push_back(std::move(entry));
  llvm::raw_fd_ostream &os = file.os();
  os << llvm::formatv("{0:2}\n", llvm::json::Value(std::move(report)));
  os.flush();
  if (std::error_code ec = os.error()) {
    os.clear_error();
    return error("cannot write the report '" + path + "': " + ec.message());
  }
  file.keep();
  return success();
}

/// Runs `pm` on `module` and verifies the result once, not after every
/// pass unless `verifyEach` (echo-run --verify-each): the passes are tested
/// with verification after each of them (lit), and the model was verified
/// when parsed; checking the whole step after each of echo-pipeline's ~40
/// passes was a quarter of a paper-size DeepSpeech2's compile.
inline LogicalResult runPasses(PassManager &pm, ModuleOp module,
                               bool verifyEach) {
  pm.enableVerifier(verifyEach);
  if (failed(pm.run(module)))
    return failure();
  return verifyEach ? success() : verify(module);
}

/// Wall-clock milliseconds between laps.
class Timer {
public:
  /// Milliseconds since construction or the previous lap.
  double lap() {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
    return ms;
  }

private:
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

/// `x` as the command line would spell it (0.1, 1e-05, inf).
inline std::string formatNumber(double x) {
  return llvm::formatv("{0}", llvm::format("%g", x));
}

inline double median(SmallVector<double> v) {
  if (v.empty())
    return 0;
  llvm::sort(v);
  return v[v.size() / 2];
}

/// One run of TrainingRunOptions, in the order runTraining calls them.
class TrainingRun {
public:
  TrainingRun(MLIRContext &context, const TrainingRunOptions &options)
      : context(context), options(options),
        onGPU(options.target == Target::NVVM),
        usesCpuRuntime(!onGPU && options.libraryCalls),
        inPlace(isStatefulOptimizer(options.optimizer)) {}

  /// Option combinations that cannot work, before any work is done.
  LogicalResult checkOptions();
  /// Parses the model and picks the one to train.
  LogicalResult loadModel();
  /// Draws every argument from the seed, then reads --inputs over it.
  LogicalResult prepareArguments();
  /// Autodiff and recomputation, the memory report of the tensor-level
  /// step, bufferization and planning; leaves the LLVM lowering in `llvmPm`.
  /// `probe`: the step with nothing recomputed or offloaded instead of the
  /// one the options ask for (reserveWorkspace).
  LogicalResult compileStep(bool probe = false);
  /// --emit-aot: lowers the step and writes the bundle.
  LogicalResult emitBundle();
  /// --report: creates the file (an unwritable path fails here, before
  /// anything is compiled); writeReport fills it. Until the first step runs,
  /// a signal that kills echo-run removes it.
  LogicalResult openReport();
  /// JIT-compiles the step and runs the steps. SIGINT (or SIGTERM, SIGHUP)
  /// once the steps run stops them after the current one (`interrupted`);
  /// a second one kills echo-run.
  LogicalResult train();
  /// --report: the steps done (all of them, or those before an interrupt).
  LogicalResult writeReport();
  /// A signal stopped the steps before the last.
  bool wasInterrupted() const { return interrupted; }
  /// The steps that ran.
  size_t getStepsDone() const { return losses.size(); }
  /// Adds the measured bytes to the report's `categories` (see
  /// docs/Contract.md): the plan's attribution of the counted allocations,
  /// the measured workspace and what is left unattributed.
  void addMeasuredCategories(llvm::json::Object &entry);

  bool emitsAot() const {
    return !options.emitAot.empty() || !options.emitLibrary.empty();
  }

  /// strategy=budget on the CPU runtime: the libraries' workspace (oneDNN's
  /// scratchpad) is sized at the first call, outside the plan. Before the
  /// budget is planned, it is measured by running the step with nothing
  /// recomputed once (a step only writes its results); recomputation
  /// repeats forward ops at their own shapes, so every plan's library calls
  /// need that same workspace. The budget step is then compiled with it
  /// reserved (echo-pipeline budget-reserve): the budget bounds every byte
  /// the step allocates, and a refusal counts the workspace in the smallest
  /// step it names (a budget that then fits) and in a share's base alike.
  LogicalResult reserveWorkspace();
  /// Lowers the step to LLVM and JIT-compiles it into `jit`.
  LogicalResult jitCompile();

private:
  /// Sets `o` for this run's step (`autodiff`, `optimizer` as given).
  void setPipelineOptions(EchoPipelineOptions &o, bool autodiff,
                          Optimizer optimizer) const;
  /// Writes `results` as DIR/outN.npy.
  LogicalResult writeResults(StringRef dir,
                             ArrayRef<const HostTensor *> results);
  /// Writes `results` as DIR/outN.npy.
  LogicalResult writeResults(StringRef dir, ArrayRef<HostTensor> results);
  /// A step with an optimizer inside: the hyperparameter arguments for step
  /// `index` (0-based).
  void setHyperparameters(unsigned index);
  /// The arguments a step with an optimizer inside updates in place: the
  /// parameters, then the states, in argument order.
  SmallVector<unsigned> getUpdatedArgs() const;
  /// Checks that the training step takes the arguments drawn for it.
  LogicalResult checkStepArguments(func::FuncOp step) const;
  /// Compiles the f64 reference of the step into step64 and forward64.
  LogicalResult compileReference();
  LogicalResult checkFirstGradients();
  /// --reference-dump: the f64 reference's results on the first step's
  /// arguments.
  LogicalResult dumpReference();

  MLIRContext &context;
  const TrainingRunOptions &options;
  bool onGPU;
  /// target=cpu with library calls: the CPU runtime is linked and checked.
  bool usesCpuRuntime;
  CudaRuntime cuda;
  CpuRuntime cpu;
  llvm::SourceMgr sourceMgr;
  std::optional<SourceMgrDiagnosticHandler> diagnostics;
  OwningOpRef<ModuleOp> module, trainModule;
  std::string modelName, trainName;

  SmallVector<HostTensor> args, outs;
  SmallVector<unsigned> paramArgs;
  /// An optimizer inside the step: its state arguments, and its
  /// hyperparameter arguments with their names.
  SmallVector<unsigned> stateArgs;
  SmallVector<std::pair<unsigned, std::string>> hyperArgs;
  /// The step's seed argument (`echo.rng_seed`), set before every step.
  std::optional<unsigned> seedArg;
  bool inPlace = false;
  SmallVector<AotArgument> argInfo;
  /// The data of --check-gradients and --reference-dump, in f64, before any
  /// update.
  SmallVector<HostTensor> args64;
  /// The f64 reference: the training step without recomputation and its
  /// forward pass, in f64, without library calls (compileReference).
  std::optional<JitStep> step64, forward64;

  MemoryStats memory;
  int64_t arenaBytes = 0;
  /// The budget-reserve the step is compiled with (reserveWorkspace).
  int64_t budgetReserve = 0;
  /// The JIT-compiled step (jitCompile).
  std::optional<JitStep> jit;
  std::optional<PassManager> llvmPm;

  /// --precision=f16: divides the step's gradients by the loss scale (as
  /// GradScaler.unscale_, by its f32 reciprocal) and advances the scale.
  /// Returns false, the update to be skipped, when a gradient is not
  /// finite.
  bool unscaleGradients();

  SmallVector<double> losses, times;
  /// --precision=f16: dynamic loss scaling as PyTorch's GradScaler (its
  /// defaults: start at 2^16, halve and skip the update on a non-finite
  /// gradient, double after 2000 steps without one). The step takes the
  /// scale as its `loss_scale` argument.
  double lossScale = 65536.0;
  unsigned goodSteps = 0, skippedSteps = 0;
  static constexpr unsigned kLossScaleGrowthInterval = 2000;
  /// The most bytes live during a CPU step (host::getStepAllocator()).
  size_t measuredPeakBytes = 0, measuredHostPeakBytes = 0;
  /// target=cuda: the pinned bytes of the host pool after the last step.
  size_t hostPoolBytes = 0;
  /// Compile time of the step, in ms: MLIR passes, LLVM (JIT).
  double mlirMs = 0, llvmMs = 0;
  /// --report, open from before compiling (openReport).
  std::unique_ptr<llvm::ToolOutputFile> reportFile;
  bool interrupted = false;
};

} // namespace mlir::echo::detail

#endif // ECHO_LIB_RUNNER_TRAININGRUNIMPL_H
