//===- TrainingRun.cpp - Compile a model's step and train it --------------===//
//
// Part of the Echo project.
//
// Parameters and data are drawn from the seed (EchoHostData.h, shared with
// the ahead-of-time driver so that both train bit-identically); the same
// batch is used at every step. The step returns gradients (or, with
// optimizer=sgd, updated parameters); with gradients the runner applies
// `p -= lr * g` itself between steps.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/TrainingRun.h"
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
#include "echo/Transforms/Passes.h"

#include "EchoCountingAllocator.h"
#include "EchoHostData.h"
#include "EchoStepManifest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::echo;

namespace {

/// Prints "echo-run: <msg>" and fails.
LogicalResult error(const Twine &msg) {
  llvm::errs() << "echo-run: " << msg << "\n";
  return failure();
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
std::string formatNumber(double x) {
  return llvm::formatv("{0}", llvm::format("%g", x));
}

double median(SmallVector<double> v) {
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
        usesCpuRuntime(!onGPU && options.libraryCalls) {}

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
  /// JIT-compiles the step and runs the steps.
  LogicalResult train();
  /// --report.
  LogicalResult writeReport();

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
  LogicalResult writeResults(StringRef dir, ArrayRef<HostTensor> results);
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

  SmallVector<double> losses, times;
  /// The most bytes live during a CPU step (host::getStepAllocator()).
  size_t measuredPeakBytes = 0, measuredHostPeakBytes = 0;
  /// target=cuda: the pinned bytes of the host pool after the last step.
  size_t hostPoolBytes = 0;
  /// Compile time of the step, in ms: MLIR passes, LLVM (JIT).
  double mlirMs = 0, llvmMs = 0;
};

void TrainingRun::setPipelineOptions(EchoPipelineOptions &o, bool autodiff,
                                     Optimizer optimizer) const {
  o.strategy = options.strategy;
  o.target = options.target;
  o.autodiff = autodiff;
  o.optimizer = optimizer;
  o.lr = options.lr;
  o.planBuffers = options.planBuffers;
  o.comparePlans = options.comparePlans;
  o.budget = options.budget;
  o.budgetReserve = budgetReserve;
  o.offload = options.offload;
  o.linkBandwidth = options.linkBandwidth;
  o.libraryCalls = options.libraryCalls;
}

LogicalResult TrainingRun::checkOptions() {
  if (onGPU && options.checkGradients)
    return error("--check-gradients runs on --target=cpu (its finite "
                 "differences are computed in f64)");
  if (options.optLevel > 3)
    return error("--opt-level must be 0 to 3");
  // Numbers the option parsers accept but a run cannot use: no step to run,
  // and (for other drivers than echo-run's parsers) non-finite values,
  // which would train to non-finite parameters or pass every check.
  if (options.steps < 1)
    return error("--steps must be at least 1");
  if (!(std::isfinite(options.lr) && options.lr >= 0))
    return error("--lr must be a finite number >= 0, got " +
                 formatNumber(options.lr));
  if (!(std::isfinite(options.tolerance) && options.tolerance > 0))
    return error("--tolerance must be a finite number > 0, got " +
                 formatNumber(options.tolerance));
  if (!std::isfinite(options.linkBandwidth))
    return error("--link-bandwidth must be finite, got " +
                 formatNumber(options.linkBandwidth));
  if (options.checkGradients && options.optimizer == Optimizer::Sgd)
    return error("--check-gradients needs --optimizer=none (the step must "
                 "return gradients)");
  if (!options.referenceDump.empty() &&
      (onGPU || options.optimizer == Optimizer::Sgd))
    return error("--reference-dump runs on --target=cpu with "
                 "--optimizer=none (the f64 reference returns gradients)");
  EchoPipelineOptions pipeline;
  setPipelineOptions(pipeline, true, options.optimizer);
  if (failed(validateEchoPipelineOptions(pipeline, error)))
    return failure();
  if (!options.emitAot.empty() && !options.emitLibrary.empty())
    return error("--emit-aot and --emit-library are exclusive: one builds an "
                 "executable, the other a shared library");
  if (!options.emitLibrary.empty() && onGPU)
    return error("--emit-library builds target=cpu steps (a CUDA step's "
                 "buffers live on the device; use --emit-aot)");
  if (emitsAot() && (options.checkGradients || !options.inputs.empty() ||
                     !options.dump.empty() || !options.referenceDump.empty()))
    return error("--emit-aot compiles the step without running it: "
                 "--check-gradients, --inputs, --dump and --reference-dump "
                 "do not apply (the bundle's echo-step takes --dump)");
  if (emitsAot() && onGPU &&
      (options.cudaRuntime.empty() ||
       !llvm::sys::fs::exists(options.cudaRuntime)))
    return error("--emit-aot with --target=cuda needs the Echo CUDA runtime "
                 "library to put in the bundle (not found" +
                 (options.cudaRuntime.empty()
                      ? std::string()
                      : " at '" + options.cudaRuntime + "'") +
                 "; build Echo with the CUDA toolkit, or pass "
                 "--cuda-runtime=)");
  // The driver and the GPU are checked before anything is compiled (a
  // bundle is compiled here and runs elsewhere).
  if (onGPU && !emitsAot() &&
      failed(cuda.load(options.cudaRuntime, pipeline.chip)))
    return failure();
  // So are OpenBLAS and oneDNN (the runtime opens them), here and for a
  // bundle, which carries the runtime.
  if (usesCpuRuntime && failed(cpu.load(options.cpuRuntime)))
    return failure();
  return success();
}

LogicalResult TrainingRun::loadModel() {
  std::string message;
  auto file = openInputFile(options.input, &message);
  if (!file)
    return error(message);
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  diagnostics.emplace(sourceMgr, &context);
  module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  func::FuncOp model = findModel(*module, options.function, options.input);
  if (!model || failed(verifyModelConvention(model)))
    return failure();
  modelName = model.getSymName().str();
  trainName = modelName + "_train";
  return success();
}

/// Checks the ids or labels `t` read from `path` against the bound their
/// use accepts: an out-of-range id would read outside a table.
static LogicalResult checkIndices(const HostTensor &t, BlockArgument arg,
                                  StringRef path) {
  std::optional<IndexUse> use = getIndexUse(arg);
  if (!use)
    return success();
  auto *values = static_cast<const int32_t *>(t.data());
  ArrayRef<int64_t> shape = t.getType().getShape();
  for (int64_t e = 0, n = t.getNumElements(); e < n; ++e) {
    if (values[e] >= 0 && values[e] < use->bound)
      continue;
    // The element's position, as NumPy prints it.
    SmallVector<int64_t> index(shape.size());
    for (int64_t d = shape.size() - 1, rest = e; d >= 0; --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    std::string position;
    llvm::raw_string_ostream os(position);
    llvm::interleaveComma(index, os);
    return error(llvm::formatv(
        "{0} (argument {1}): value {2} at [{3}] is outside [0, {4}), the "
        "range '{5}' accepts",
        path, arg.getArgNumber(), values[e], position, use->bound,
        use->op->getName()));
  }
  return success();
}

LogicalResult TrainingRun::prepareArguments() {
  auto model = module->lookupSymbol<func::FuncOp>(modelName);
  if (!options.inputs.empty() && !llvm::sys::fs::is_directory(options.inputs))
    return error("--inputs=" + options.inputs +
                 ": not a directory (it holds argN.npy files)");
  for (auto [i, type] : llvm::enumerate(model.getArgumentTypes())) {
    auto tt = dyn_cast<RankedTensorType>(type);
    if (!tt ||
        !(tt.getElementType().isF32() || tt.getElementType().isInteger(32)))
      return model.emitError()
             << "echo-run supports f32 and i32 arguments; argument " << i
             << " is " << type;
    HostTensor t(tt);
    bool isParam = isParamArgument(model, i);
    if (isParam)
      paramArgs.push_back(i);
    bool isInteger = tt.getElementType().isInteger(32);
    host::ArgumentDraw draw =
        isInteger ? host::ArgumentDraw::forInteger(
                        getIntegerRange(model.getArgument(i)))
                  : host::ArgumentDraw::forFloat(isParam, t.getShape());
    draw.fill(t.data(), t.getNumElements(), options.seed, i);
    argInfo.push_back({isParam, isInteger ? draw.range : 0});
    if (!options.inputs.empty()) {
      SmallString<128> path(options.inputs);
      llvm::sys::path::append(path, "arg" + std::to_string(i) + ".npy");
      if (llvm::sys::fs::exists(path) &&
          (failed(readNpy(path, t, i)) ||
           (isInteger && failed(checkIndices(t, model.getArgument(i), path)))))
        return failure();
    }
    args.push_back(std::move(t));
  }
  if (options.checkGradients || !options.referenceDump.empty()) {
    for (HostTensor &t : args) {
      RankedTensorType tt = t.getType();
      if (tt.getElementType().isF32())
        tt = RankedTensorType::get(tt.getShape(), Float64Type::get(&context));
      HostTensor c(tt, HostTensor::Counted::No);
      for (int64_t e = 0; e < t.getNumElements(); ++e)
        c.set(e, t.get(e));
      args64.push_back(std::move(c));
    }
  }
  outs.emplace_back(RankedTensorType::get({}, Float32Type::get(&context)));
  for (unsigned i : paramArgs)
    outs.emplace_back(args[i].getType());
  return success();
}

LogicalResult TrainingRun::compileStep(bool probe) {
  Timer timer;
  trainModule = module->clone();
  EchoPipelineOptions trainOptions;
  setPipelineOptions(trainOptions, true, options.optimizer);
  if (probe) {
    trainOptions.strategy = RecomputeStrategy::None;
    trainOptions.budget = "";
    trainOptions.budgetReserve = 0;
    trainOptions.offload = OffloadPolicy::None;
  }
  PassManager trainPm(&context, ModuleOp::getOperationName(),
                      OpPassManager::Nesting::Implicit);
  buildEchoTrainingPipeline(trainPm, trainOptions);
  if (failed(trainPm.run(*trainModule)))
    return failure();
  auto trainFunc = trainModule->lookupSymbol<func::FuncOp>(trainName);
  if (!trainFunc)
    return error("no training step @" + trainName);
  // Only the step runs: the model's own forward function is not compiled
  // (a fifth of the LLVM code of a paper-size step).
  if (auto model = trainModule->lookupSymbol<func::FuncOp>(modelName))
    if (SymbolTable::symbolKnownUseEmpty(model, *trainModule))
      model.erase();
  memory = computeMemoryStats(trainFunc);
  // Bufferize and plan, read the plan, then lower to LLVM.
  PassManager bufferPm(&context, ModuleOp::getOperationName(),
                       OpPassManager::Nesting::Implicit);
  buildEchoBufferizationPipeline(bufferPm, trainOptions);
  if (failed(bufferPm.run(*trainModule)))
    return failure();
  trainFunc = trainModule->lookupSymbol<func::FuncOp>(trainName);
  if (auto plan = trainFunc->getAttrOfType<DictionaryAttr>(
          EchoDialect::getBufferPlanAttrName()))
    memory.bufferPlan = plan;
  if (memory.bufferPlan)
    if (auto bytes = memory.bufferPlan->getAs<IntegerAttr>("arena_bytes"))
      arenaBytes = bytes.getInt();
  llvmPm.emplace(&context, ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  buildEchoLLVMPipeline(*llvmPm, trainOptions);
  mlirMs = timer.lap();
  return success();
}

LogicalResult TrainingRun::emitBundle() {
  AotBundleOptions bundle;
  bundle.dir =
      options.emitLibrary.empty() ? options.emitAot : options.emitLibrary;
  bundle.sharedLibrary = !options.emitLibrary.empty();
  bundle.model = modelName;
  bundle.entry = trainName;
  bundle.target = options.target;
  bundle.chip = EchoPipelineOptions().chip;
  bundle.cudaRuntime = options.cudaRuntime;
  if (usesCpuRuntime)
    bundle.cpuRuntimeArchive = options.cpuRuntimeArchive;
  bundle.stepMainLibrary =
      bundle.sharedLibrary ? options.stepLibrary : options.stepMainLibrary;
  bundle.cxx = options.aotCxx;
  bundle.optLevel = options.optLevel;
  bundle.seed = options.seed;
  bundle.optimizer = options.optimizer;
  bundle.lr = options.lr;
  // The manifest describes the step from its bufferized signature, the last
  // form that still has memref types and the arena's attribute.
  FailureOr<host::StepManifest> signature =
      describeAotStep(trainModule->lookupSymbol<func::FuncOp>(trainName),
                      bundle, argInfo, args, outs);
  if (failed(signature) || failed(llvmPm->run(*trainModule)))
    return failure();
  return emitAotBundle(*trainModule, bundle, *signature, memory.toJSON());
}

LogicalResult TrainingRun::writeResults(StringRef dir,
                                        ArrayRef<HostTensor> results) {
  if (auto ec = llvm::sys::fs::create_directories(dir))
    return error("cannot create " + dir + ": " + ec.message());
  for (auto [k, t] : llvm::enumerate(results)) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, "out" + std::to_string(k) + ".npy");
    if (failed(writeNpy(path, t)))
      return failure();
  }
  return success();
}

LogicalResult TrainingRun::compileReference() {
  // The same training step (autodiff, or the model's own step), without
  // recomputation, re-typed to f64 with its forward pass.
  OwningOpRef<ModuleOp> refModule = module->clone();
  EchoPipelineOptions refOptions;
  setPipelineOptions(refOptions, true, Optimizer::None);
  refOptions.strategy = RecomputeStrategy::None;
  refOptions.offload = OffloadPolicy::None;
  refOptions.budget = "";
  // The runtimes' library calls are f32; the f64 step's contractions are
  // generated.
  refOptions.libraryCalls = false;
  PassManager trainPm(&context, ModuleOp::getOperationName(),
                      OpPassManager::Nesting::Implicit);
  buildEchoTrainingPipeline(trainPm, refOptions);
  if (failed(trainPm.run(*refModule)))
    return failure();
  for (StringRef name : {StringRef(modelName), StringRef(trainName)})
    retypeToF64(refModule->lookupSymbol<func::FuncOp>(name));
  PassManager lowerPm(&context, ModuleOp::getOperationName(),
                      OpPassManager::Nesting::Implicit);
  buildEchoLoweringPipeline(lowerPm, refOptions);
  if (failed(lowerPm.run(*refModule)))
    return failure();
  FailureOr<JitStep> step = JitStep::compile(*refModule, trainName, 0);
  if (failed(step))
    return failure();
  FailureOr<JitStep> forward = step->getSibling(modelName);
  if (failed(forward))
    return failure();
  step64.emplace(std::move(*step));
  forward64.emplace(std::move(*forward));
  return success();
}

LogicalResult TrainingRun::checkFirstGradients() {
  if (!step64 && failed(compileReference()))
    return failure();
  GradientCheckOptions check;
  check.tolerance = options.tolerance;
  check.samples = options.checkSamples;
  check.seed = options.seed;
  GradientReference reference{&*step64, &*forward64, args64, paramArgs};
  return checkGradients(reference, ArrayRef(outs).drop_front(), check);
}

LogicalResult TrainingRun::dumpReference() {
  if (!step64 && failed(compileReference()))
    return failure();
  SmallVector<HostTensor> refArgs, refOuts;
  for (const HostTensor &t : args64)
    refArgs.push_back(t.copy(HostTensor::Counted::No));
  refOuts.emplace_back(RankedTensorType::get({}, Float64Type::get(&context)),
                       HostTensor::Counted::No);
  for (unsigned i : paramArgs)
    refOuts.emplace_back(args64[i].getType(), HostTensor::Counted::No);
  SmallVector<HostTensor *> argPtrs, outPtrs;
  for (HostTensor &t : refArgs)
    argPtrs.push_back(&t);
  for (HostTensor &t : refOuts)
    outPtrs.push_back(&t);
  if (failed(step64->call(argPtrs, outPtrs)))
    return failure();
  return writeResults(options.referenceDump, refOuts);
}

LogicalResult TrainingRun::train() {
  if (!jit && failed(jitCompile()))
    return failure();
  std::optional<JitStep> &step = jit;
  std::optional<CudaStep> gpuStep;
  if (onGPU) {
    gpuStep.emplace(cuda, *step);
    if (failed(gpuStep->allocate(args, outs, arenaBytes)))
      return failure();
  }

  bool sgdInGraph = options.optimizer == Optimizer::Sgd;
  for (unsigned i = 0; i < options.steps; ++i) {
    if (gpuStep) {
      double ms = 0;
      if (failed(gpuStep->call(args, outs, ms)))
        return failure();
      times.push_back(ms);
    } else {
      SmallVector<HostTensor *> argPtrs, outPtrs;
      for (HostTensor &t : args)
        argPtrs.push_back(&t);
      for (HostTensor &t : outs)
        outPtrs.push_back(&t);
      host::CountingAllocator &allocator = host::getStepAllocator();
      allocator.resetPeak();
      cpu.resetHostPoolPeak();
      auto start = std::chrono::steady_clock::now();
      if (failed(step->call(argPtrs, outPtrs)) || failed(cpu.check()))
        return failure();
      auto end = std::chrono::steady_clock::now();
      measuredPeakBytes = std::max(measuredPeakBytes, allocator.peakBytes());
      measuredHostPeakBytes =
          std::max(measuredHostPeakBytes, cpu.getHostPoolPeakBytes());
      times.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    double loss = outs[0].get(0);
    losses.push_back(loss);
    if (!options.quiet)
      llvm::outs() << llvm::formatv("step {0} loss {1:f6}\n", i, loss);
    if (!std::isfinite(loss))
      return error(
          llvm::formatv("the loss of step {0} is not finite ({1})", i, loss));
    if (i == 0 && !options.dump.empty() &&
        failed(writeResults(options.dump, outs)))
      return failure();
    if (i == 0 && !options.referenceDump.empty() && failed(dumpReference()))
      return failure();
    if (i == 0 && options.checkGradients && failed(checkFirstGradients()))
      return failure();

    // Advance the parameters (an integer one has no gradient: it stays).
    for (auto [k, argIndex] : llvm::enumerate(paramArgs)) {
      HostTensor &p = args[argIndex];
      if (p.isF32())
        host::updateParameter(static_cast<float *>(p.data()),
                              static_cast<const float *>(outs[k + 1].data()),
                              p.getNumElements(), sgdInGraph, options.lr);
    }
  }
  // The pinned pool is freed with the step's buffers.
  if (gpuStep)
    hostPoolBytes = cuda.getHostPoolBytes();
  return success();
}

LogicalResult TrainingRun::reserveWorkspace() {
  if (options.strategy != RecomputeStrategy::Budget || !usesCpuRuntime ||
      emitsAot())
    return success();
  // The probe: the step with nothing recomputed, once (the parameters are
  // advanced by train()). Without library calls there is no workspace.
  if (failed(compileStep(/*probe=*/true)))
    return failure();
  if (llvm::none_of(trainModule->getOps<func::FuncOp>(),
                    [](func::FuncOp f) { return f.isExternal(); }))
    return success();
  if (failed(jitCompile()))
    return failure();
  SmallVector<HostTensor *> argPtrs, outPtrs;
  for (HostTensor &t : args)
    argPtrs.push_back(&t);
  for (HostTensor &t : outs)
    outPtrs.push_back(&t);
  if (failed(jit->call(argPtrs, outPtrs)) || failed(cpu.check()))
    return failure();
  budgetReserve = static_cast<int64_t>(cpu.getWorkspaceBytes());
  jit.reset();
  return success();
}

LogicalResult TrainingRun::jitCompile() {
  SmallVector<StringRef> sharedLibs;
  if (onGPU)
    sharedLibs.push_back(options.cudaRuntime);
  if (usesCpuRuntime)
    sharedLibs.push_back(options.cpuRuntime);
  Timer timer;
  if (failed(llvmPm->run(*trainModule)))
    return failure();
  mlirMs += timer.lap();
  FailureOr<JitStep> step =
      JitStep::compile(*trainModule, trainName, options.optLevel, sharedLibs);
  if (failed(step))
    return failure();
  llvmMs = timer.lap();
  jit.emplace(std::move(*step));
  return success();
}

LogicalResult TrainingRun::writeReport() {
  if (options.report.empty())
    return success();
  llvm::json::Array lossArray;
  for (double l : losses)
    lossArray.push_back(l);
  llvm::json::Object entry = memory.toJSON();
  entry["target"] = onGPU ? "cuda" : "cpu";
  entry["steps"] = static_cast<int64_t>(options.steps);
  entry["losses"] = std::move(lossArray);
  // The first step includes one-time page faults; report the median.
  entry["step_time_ms"] = median(times);
  // Compile time: the MLIR pipelines, then LLVM's optimization and code
  // generation in the JIT.
  entry["compile_ms"] = mlirMs + llvmMs;
  entry["compile_mlir_ms"] = mlirMs;
  entry["compile_llvm_ms"] = llvmMs;
  if (onGPU) {
    entry["device"] = std::string(cuda.getDeviceName());
    // Parameters, data, results, the arena and library workspaces.
    entry["device_peak_bytes"] = static_cast<int64_t>(cuda.getPeakBytes());
    entry["measured_peak_bytes"] = static_cast<int64_t>(cuda.getPeakBytes());
    // Offloaded values: pinned host memory, apart from the device bytes.
    entry["measured_host_peak_bytes"] =
        static_cast<int64_t>(cuda.getHostPoolPeakBytes());
    entry["host_pool_bytes"] = static_cast<int64_t>(hostPoolBytes);
    // Each convolution's cuDNN algorithm and its workspace.
    llvm::Expected<llvm::json::Value> algorithms =
        llvm::json::parse(cuda.getConvAlgorithms());
    if (!algorithms)
      return error("the CUDA runtime's convolution algorithms are not JSON: " +
                   llvm::toString(algorithms.takeError()));
    entry["conv_algorithms"] = std::move(*algorithms);
  } else {
    // Every host byte of the step: the caller's buffers, the step's
    // allocations and the CPU runtime's workspace.
    entry["measured_peak_bytes"] = static_cast<int64_t>(measuredPeakBytes);
    entry["library_workspace_bytes"] =
        static_cast<int64_t>(cpu.getWorkspaceBytes());
    // The host pool of offloaded values, apart from the step's bytes.
    entry["measured_host_peak_bytes"] =
        static_cast<int64_t>(measuredHostPeakBytes);
  }
  llvm::json::Array report;
  report.push_back(std::move(entry));
  std::string message;
  if (failed(writeJSON(std::move(report), options.report, message)))
    return error(message);
  return success();
}

} // namespace

int mlir::echo::runTraining(MLIRContext &context,
                            const TrainingRunOptions &options) {
  TrainingRun run(context, options);
  if (failed(run.checkOptions()) || failed(run.loadModel()) ||
      failed(run.prepareArguments()) || failed(run.reserveWorkspace()) ||
      failed(run.compileStep()))
    return 1;
  if (run.emitsAot())
    return failed(run.emitBundle()) ? 1 : 0;
  return failed(run.train()) || failed(run.writeReport()) ? 1 : 0;
}
