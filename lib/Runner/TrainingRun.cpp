//===- TrainingRun.cpp - Compile a model's step and train it --------------===//
//
// Part of the Echo project.
//
// Parameters and data are drawn from the seed (EchoHostData.h, shared with
// the ahead-of-time driver so that both train bit-identically); the same
// batch is used at every step. The step returns gradients (or, with
// optimizer=sgd, updated parameters); with gradients the runner applies
// `p -= lr * g` itself between steps. With an optimizer inside the step
// (momentum, adam, adamw) the step also takes the optimizer's state (zeros
// at first) and its hyperparameters (from the flags, the step count 1, 2,
// ...), updates parameters and state in place and returns the loss alone.
//
//===----------------------------------------------------------------------===//

#include "TrainingRunImpl.h"

#include "llvm/Support/Signals.h"

#include <csignal>

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

/// Set from the signal handler (LLVM's, through its interrupt function) when
/// SIGINT, SIGTERM or SIGHUP arrives while the steps run.
static volatile std::sig_atomic_t interruptRequested = 0;

static void requestInterrupt() { interruptRequested = 1; }

void TrainingRun::setPipelineOptions(EchoPipelineOptions &o, bool autodiff,
                                     Optimizer optimizer) const {
  o.strategy = options.strategy;
  o.target = options.target;
  o.autodiff = autodiff;
  o.optimizer = optimizer;
  o.precision = options.precision;
  o.lossScale = options.precision == Precision::F16;
  o.lr = options.lr;
  o.planBuffers = options.planBuffers;
  o.comparePlans = options.comparePlans;
  o.budget = options.budget;
  o.chunkLoss = options.chunkLoss;
  o.budgetReserve = budgetReserve;
  o.offload = options.offload;
  o.linkBandwidth = options.linkBandwidth;
  o.peakGflops = options.peakGflops;
  o.memoryGbps = options.memoryGbps;
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
  std::string chunkError;
  if (!parseLossChunks(options.chunkLoss, chunkError))
    return error("--" + chunkError);
  for (auto [name, value] :
       {std::pair<const char *, double>{"peak-gflops", options.peakGflops},
        {"memory-gbps", options.memoryGbps}})
    if (!(std::isfinite(value) && value > 0 && value < 1e9))
      return error(std::string("--") + name +
                   " must be a positive rate below 1e9, got " +
                   formatNumber(value));
  if (!std::isfinite(options.linkBandwidth))
    return error("--link-bandwidth must be finite, got " +
                 formatNumber(options.linkBandwidth));
  if (options.precision != Precision::F32 &&
      (options.checkGradients || !options.referenceDump.empty()))
    return error("--check-gradients and --reference-dump check the f32 step "
                 "(--precision=f32)");
  if (options.precision == Precision::F16 &&
      (options.optimizer != Optimizer::None || !options.emitAot.empty() ||
       !options.emitLibrary.empty()))
    return error("--precision=f16 scales the loss in echo-run's training "
                 "loop: it needs --optimizer=none and no --emit-aot or "
                 "--emit-library");
  if (options.checkGradients && options.optimizer != Optimizer::None)
    return error("--check-gradients needs --optimizer=none (the step must "
                 "return gradients)");
  if (!options.referenceDump.empty() &&
      (onGPU || options.optimizer != Optimizer::None))
    return error("--reference-dump runs on --target=cpu with "
                 "--optimizer=none (the f64 reference returns gradients)");
  // The hyperparameters the step will take, in PyTorch's ranges.
  for (StringRef name : getOptimizerHyperNames(options.optimizer)) {
    double value = name == "lr"             ? options.lr
                   : name == "momentum"     ? options.momentum
                   : name == "beta1"        ? options.beta1
                   : name == "beta2"        ? options.beta2
                   : name == "eps"          ? options.eps
                   : name == "weight_decay" ? options.weightDecay
                                            : 1.0;
    std::string why = host::checkHyperparameter(name.str(), value);
    if (!why.empty())
      return error("--" + (name == "weight_decay" ? "weight-decay" : name) +
                   ": " + why);
  }
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
  if (failed(
          parseInput(options.input, context, sourceMgr, diagnostics, module)))
    return failure();
  func::FuncOp model = findModel(*module, options.function, options.input);
  if (!model || failed(verifyModelConvention(model)))
    return failure();
  modelName = model.getSymName().str();
  trainName = modelName + "_train";
  return success();
}

LogicalResult mlir::echo::detail::checkIndices(const HostTensor &t,
                                               BlockArgument arg,
                                               StringRef path) {
  std::optional<IndexUse> use = getIndexUse(arg);
  if (!use)
    return success();
  std::optional<int64_t> ignored = getIgnoredIndex(arg);
  ArrayRef<int64_t> shape = t.getType().getShape();
  for (int64_t e = 0, n = t.getNumElements(); e < n; ++e) {
    // i32 or i64 (echo-run --function): exact in a double below 2^53.
    auto value = static_cast<int64_t>(t.get(e));
    if ((value >= 0 && value < use->bound) || (ignored && value == *ignored))
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
        path, arg.getArgNumber(), value, position, use->bound,
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
    bool isSeed = static_cast<bool>(
        model.getArgAttr(i, EchoDialect::getRngSeedAttrName()));
    if (!tt || !(tt.getElementType().isF32() ||
                 tt.getElementType().isInteger(32) || isSeed))
      return model.emitError()
             << "echo-run supports f32 and i32 arguments and the step's "
                "i64 seed; argument "
             << i << " is " << type;
    HostTensor t(tt);
    bool isParam = isParamArgument(model, i);
    if (isParam)
      paramArgs.push_back(i);
    if (isSeed) {
      // A fresh value at every step (setHyperparameters).
      seedArg = i;
      t.set(0, static_cast<double>(host::stepSeed(options.seed, 0)));
      AotArgument info;
      info.isSeed = true;
      argInfo.push_back(info);
      args.push_back(std::move(t));
      continue;
    }
    bool isInteger = tt.getElementType().isInteger(32);
    host::ArgumentDraw draw =
        isInteger ? host::ArgumentDraw::forInteger(
                        getIntegerRange(model.getArgument(i)))
                  : host::ArgumentDraw::forFloat(isParam, t.getShape());
    draw.fill(t.data(), t.getNumElements(), options.seed, i);
    // An integer the step indexes with has its bound (checked by the step
    // library); one it does not is drawn in [0, 2) and has none.
    bool bounded = isInteger && getIndexUse(model.getArgument(i));
    AotArgument info;
    info.isParam = isParam;
    info.range = bounded ? draw.range : 0;
    if (bounded)
      info.ignored = getIgnoredIndex(model.getArgument(i));
    argInfo.push_back(info);
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
  // An optimizer inside the step: its state per parameter (zeros, or from
  // --inputs like any argument), then its hyperparameters (set before each
  // step), as echo-autodiff appends them.
  for (unsigned i : paramArgs) {
    for (size_t k = 0; k < getOptimizerStateNames(options.optimizer).size();
         ++k) {
      unsigned index = args.size();
      HostTensor t(args[i].getType());
      AotArgument info;
      info.isState = true;
      argInfo.push_back(info);
      if (!options.inputs.empty()) {
        SmallString<128> path(options.inputs);
        llvm::sys::path::append(path, "arg" + std::to_string(index) + ".npy");
        if (llvm::sys::fs::exists(path) && failed(readNpy(path, t, index)))
          return failure();
      }
      stateArgs.push_back(index);
      args.push_back(std::move(t));
    }
  }
  SmallVector<StringRef> hyperNames(getOptimizerHyperNames(options.optimizer));
  // f16: the loss scale, which echo-autodiff (loss-scale) appends.
  if (options.precision == Precision::F16)
    hyperNames.push_back("loss_scale");
  for (StringRef name : hyperNames) {
    hyperArgs.push_back({static_cast<unsigned>(args.size()), name.str()});
    AotArgument info;
    info.hyper = name.str();
    argInfo.push_back(info);
    args.emplace_back(RankedTensorType::get({}, Float32Type::get(&context)));
  }
  setHyperparameters(0);
  outs.emplace_back(RankedTensorType::get({}, Float32Type::get(&context)));
  if (!inPlace)
    for (unsigned i : paramArgs)
      outs.emplace_back(args[i].getType());
  return success();
}

void TrainingRun::setHyperparameters(unsigned index) {
  if (seedArg)
    args[*seedArg].set(
        0, static_cast<double>(host::stepSeed(options.seed, index)));
  for (auto &[arg, name] : hyperArgs) {
    double value = name == "lr"             ? options.lr
                   : name == "momentum"     ? options.momentum
                   : name == "beta1"        ? options.beta1
                   : name == "beta2"        ? options.beta2
                   : name == "eps"          ? options.eps
                   : name == "weight_decay" ? options.weightDecay
                   : name == "loss_scale"   ? lossScale
                                            : double(index + 1); // step
    args[arg].set(0, value);
  }
}

SmallVector<unsigned> TrainingRun::getUpdatedArgs() const {
  if (!inPlace)
    return {};
  SmallVector<unsigned> updated(paramArgs);
  llvm::append_range(updated, stateArgs);
  return updated;
}

LogicalResult TrainingRun::checkStepArguments(func::FuncOp step) const {
  // echo-autodiff appends the state and the hyperparameters; the runner
  // drew them by the same convention (Options.h).
  if (step.getNumArguments() != args.size())
    return error(llvm::formatv("@{0} takes {1} arguments, but echo-run drew "
                               "{2} for --optimizer={3}",
                               step.getSymName(), step.getNumArguments(),
                               args.size(),
                               stringifyOptimizer(options.optimizer)));
  for (auto [i, t] : llvm::enumerate(args)) {
    bool isState = static_cast<bool>(
        step.getArgAttr(i, EchoDialect::getOptimizerStateAttrName()));
    auto hyper =
        step.getArgAttrOfType<StringAttr>(i, EchoDialect::getHyperAttrName());
    bool isSeed = static_cast<bool>(
        step.getArgAttr(i, EchoDialect::getRngSeedAttrName()));
    const AotArgument &info = argInfo[i];
    if (step.getArgumentTypes()[i] != t.getType() || isState != info.isState ||
        (hyper ? hyper.getValue() : StringRef()) != info.hyper ||
        isSeed != info.isSeed)
      return error(llvm::formatv("argument {0} of @{1} is not what echo-run "
                                 "drew for it ({2})",
                                 i, step.getSymName(), t.getType()));
  }
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
    trainOptions.chunkLoss = "off";
  }
  PassManager trainPm(&context, ModuleOp::getOperationName(),
                      OpPassManager::Nesting::Implicit);
  // The candidate steps echo-recompute lowers to compare their buffer
  // plans, for the bufferization below (the chosen one is not lowered
  // twice).
  auto lowered = std::make_shared<LoweredStepCache>();
  buildEchoTrainingPipeline(trainPm, trainOptions, lowered);
  if (failed(runPasses(trainPm, *trainModule, options.verifyEach)))
    return failure();
  auto trainFunc = trainModule->lookupSymbol<func::FuncOp>(trainName);
  if (!trainFunc)
    return error("no training step @" + trainName);
  if (failed(checkStepArguments(trainFunc)))
    return failure();
  // Only the step runs: the model's own forward function is not compiled
  // (a fifth of the LLVM code of a paper-size step).
  if (auto model = trainModule->lookupSymbol<func::FuncOp>(modelName))
    if (SymbolTable::symbolKnownUseEmpty(model, *trainModule))
      model.erase();
  memory = computeMemoryStats(trainFunc);
  // Bufferize and plan, read the plan, then lower to LLVM.
  PassManager bufferPm(&context, ModuleOp::getOperationName(),
                       OpPassManager::Nesting::Implicit);
  buildEchoBufferizationPipeline(bufferPm, trainOptions, lowered);
  if (failed(runPasses(bufferPm, *trainModule, options.verifyEach)))
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
  bundle.hypers["momentum"] = options.momentum;
  bundle.hypers["beta1"] = options.beta1;
  bundle.hypers["beta2"] = options.beta2;
  bundle.hypers["eps"] = options.eps;
  bundle.hypers["weight_decay"] = options.weightDecay;
  // The manifest describes the step from its bufferized signature, the last
  // form that still has memref types and the arena's attribute.
  FailureOr<host::StepManifest> signature =
      describeAotStep(trainModule->lookupSymbol<func::FuncOp>(trainName),
                      bundle, argInfo, args, outs);
  if (failed(signature) ||
      failed(runPasses(*llvmPm, *trainModule, options.verifyEach)))
    return failure();
  // The bundle's report states its precision as echo-run's does.
  llvm::json::Object report = memory.toJSON();
  report["precision"] = stringifyPrecision(options.precision).str();
  return emitAotBundle(*trainModule, bundle, *signature, report);
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
  SmallVector<unsigned> updatedArgs = getUpdatedArgs();
  // From here an interrupt stops the steps after the current one, and the
  // report keeps those done: it is no longer removed on a signal. LLVM's
  // handler calls the interrupt function once, then restores the default
  // action, so a second signal kills echo-run.
  if (reportFile)
    llvm::sys::DontRemoveFileOnSignal(options.report);
  llvm::sys::SetInterruptFunction(requestInterrupt);
  for (unsigned i = 0; i < options.steps; ++i) {
    if (interruptRequested) {
      interrupted = true;
      break;
    }
    setHyperparameters(i);
    if (gpuStep) {
      double ms = 0;
      if (failed(gpuStep->call(args, outs, ms, updatedArgs)))
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
    // Line by line: an interrupted run's output ends with a whole line.
    if (!options.quiet) {
      llvm::outs() << llvm::formatv("step {0} loss {1:f6}\n", i, loss);
      llvm::outs().flush();
    }
    if (!std::isfinite(loss))
      return error(
          llvm::formatv("the loss of step {0} is not finite ({1})", i, loss));
    // With an optimizer inside, the step's results are the loss and the
    // arguments it updated: the parameters, then the states.
    SmallVector<const HostTensor *> results;
    for (const HostTensor &t : outs)
      results.push_back(&t);
    for (unsigned arg : updatedArgs)
      results.push_back(&args[arg]);
    if (i == 0 && !options.dump.empty() &&
        failed(writeResults(options.dump, results)))
      return failure();
    if (i == 0 && !options.referenceDump.empty() && failed(dumpReference()))
      return failure();
    if (i == 0 && options.checkGradients && failed(checkFirstGradients()))
      return failure();

    // Advance the parameters (an integer one has no gradient: it stays).
    // An optimizer inside the step has done so in place.
    if (inPlace)
      continue;
    if (options.precision == Precision::F16 && !unscaleGradients())
      continue;
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

bool TrainingRun::unscaleGradients() {
  float inverse = static_cast<float>(1.0 / lossScale);
  bool finite = true;
  for (auto [k, argIndex] : llvm::enumerate(paramArgs)) {
    HostTensor &grad = outs[k + 1];
    if (!grad.isF32())
      continue;
    auto *g = static_cast<float *>(grad.data());
    for (int64_t e = 0, n = grad.getNumElements(); e < n; ++e) {
      g[e] *= inverse;
      finite &= std::isfinite(g[e]);
    }
  }
  if (!finite) {
    lossScale *= 0.5;
    goodSteps = 0;
    ++skippedSteps;
    return false;
  }
  if (++goodSteps == kLossScaleGrowthInterval) {
    lossScale *= 2.0;
    goodSteps = 0;
  }
  return true;
}

LogicalResult TrainingRun::jitCompile() {
  SmallVector<StringRef> sharedLibs;
  if (onGPU)
    sharedLibs.push_back(options.cudaRuntime);
  if (usesCpuRuntime)
    sharedLibs.push_back(options.cpuRuntime);
  Timer timer;
  if (failed(runPasses(*llvmPm, *trainModule, options.verifyEach)))
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

int mlir::echo::runTraining(MLIRContext &context,
                            const TrainingRunOptions &options) {
  TrainingRun run(context, options);
  if (failed(run.checkOptions()) || failed(run.openReport()) ||
      failed(run.loadModel()) || failed(run.prepareArguments()) ||
      failed(run.reserveWorkspace()) || failed(run.compileStep()))
    return 1;
  if (run.emitsAot())
    return failed(run.emitBundle()) ? 1 : 0;
  if (failed(run.train()))
    return 1;
  if (failed(run.writeReport()))
    return 1;
  if (run.wasInterrupted()) {
    llvm::errs() << llvm::formatv(
        "echo-run: interrupted after {0} of {1} steps{2}\n", run.getStepsDone(),
        options.steps, options.report.empty() ? "" : "; the report has them");
    // The shell's status of a process SIGINT ended.
    return 128 + SIGINT;
  }
  return 0;
}
