//===- FunctionRun.cpp - Run one function of a module ---------------------===//
//
// Part of the Echo project.
//
// The function is checked before anything is compiled: every argument and
// result a statically shaped tensor of f32, f64, i32 or i64 (what .npy
// files and the seed's draws hold), every input file of its argument's
// shape and dtype. Then echo-foreign-step-pipeline's phases, one by one:
// the adoption (whose memory estimate is read here), the hand-back to linalg
// on tensors, Echo's bufferization (whose buffer plan is read here) and its
// CPU lowering; then one call of the JIT-compiled function, every byte of it
// counted.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/FunctionRun.h"
#include "echo/Pipelines/ForeignStep.h"

#include "TrainingRunImpl.h"

#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

namespace {

/// One run of a function (runFunction), in the order run() calls them.
class FunctionRun {
public:
  FunctionRun(MLIRContext &context, const TrainingRunOptions &training,
              const FunctionRunOptions &options)
      : context(context), training(training), options(options) {}

  /// Parses the module; sets `isModel` when the function is an Echo model
  /// to train (and no split is named).
  LogicalResult load();
  bool isModel = false;
  /// The rest of the run, once load() found a function to run.
  int run();

private:
  /// echo-foreign-step-pipeline's options for this run.
  void setPipelineOptions(EchoForeignStepPipelineOptions &pipeline) const;
  LogicalResult checkOptions();
  LogicalResult checkSignature();
  LogicalResult prepareArguments();
  LogicalResult readInputs();
  /// Integer argument `i` read from `path` against the range the ops it
  /// indexes accept.
  LogicalResult checkArgumentIndices(unsigned i, StringRef path);
  LogicalResult compile();
  LogicalResult call();
  LogicalResult writeResults();
  /// --report: created before anything is compiled (an unwritable path
  /// fails first); writeReport fills it.
  LogicalResult openReport();
  LogicalResult writeReport();

  bool adopts() const { return options.loss >= 0 || !options.tangents.empty(); }

  MLIRContext &context;
  const TrainingRunOptions &training;
  const FunctionRunOptions &options;
  llvm::SourceMgr sourceMgr;
  std::optional<SourceMgrDiagnosticHandler> diagnostics;
  OwningOpRef<ModuleOp> module;
  std::string name;
  CpuRuntime cpu;
  SmallVector<HostTensor> args, outs;
  /// Where each argument came from: a file, or "" (drawn from the seed).
  SmallVector<std::string> sources;
  /// The adopted step's estimate (its tensor-level form) and, for every
  /// function, the buffer plan.
  MemoryStats memory;
  std::optional<JitStep> jit;
  size_t measuredPeakBytes = 0;
  double mlirMs = 0, llvmMs = 0, runMs = 0;
  std::unique_ptr<llvm::ToolOutputFile> reportFile;
};

} // namespace

/// `type` as a run takes it: a statically shaped tensor of f32, f64, i32 or
/// i64; null otherwise.
static RankedTensorType getRunnableType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return nullptr;
  Type et = tensor.getElementType();
  if (et.isF32() || et.isF64() || et.isInteger(32) || et.isInteger(64))
    return tensor;
  return nullptr;
}

LogicalResult FunctionRun::load() {
  if (failed(
          parseInput(training.input, context, sourceMgr, diagnostics, module)))
    return failure();
  name = training.function;
  auto func = module->lookupSymbol<func::FuncOp>(name);
  if (func && func.isExternal())
    return error("@" + name + " in " + training.input +
                 " is a declaration: there is no body to run");
  if (!func) {
    std::string known;
    for (auto f : module->getOps<func::FuncOp>())
      if (!f.isExternal())
        known += (known.empty() ? " (it has @" : ", @") + f.getSymName().str();
    // (A model's name is looked up here too: one message for both.)
    return error("no model named @" + name + " and no function @" + name +
                 " to run in " + training.input +
                 (known.empty() ? std::string(" (it has none)") : known + ")"));
  }
  if (!adopts() && isModelCandidate(func))
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      isModel |= isParamArgument(func, i);
  return success();
}

void FunctionRun::setPipelineOptions(
    EchoForeignStepPipelineOptions &pipeline) const {
  pipeline.function = name;
  pipeline.loss = options.loss;
  pipeline.tangents = ArrayRef<int64_t>(options.tangents);
  pipeline.strategy = training.strategy;
  pipeline.budget = training.budget;
  pipeline.peakGflops = training.peakGflops;
  pipeline.memoryGbps = training.memoryGbps;
  pipeline.planBuffers = training.planBuffers;
  pipeline.comparePlans = training.comparePlans;
  pipeline.libraryCalls = training.libraryCalls;
}

LogicalResult FunctionRun::checkOptions() {
  if (!options.trainingOnlyFlags.empty())
    return error("--" + options.trainingOnlyFlags.front() +
                 " trains an Echo model; @" + name +
                 " is run once as a function (--function without a model)");
  if (training.target != Target::CPU)
    return error("--function runs a function on the CPU (--target=cpu)");
  if (options.strategyGiven && !adopts())
    return error("--strategy and --budget plan an adopted step: name its "
                 "split with --loss=<result#> or --tangents=<arg#,...>");
  if (options.loss >= 0 && !options.tangents.empty())
    return error("give either --loss or --tangents, not both");
  if (training.optLevel > 3)
    return error("--opt-level must be 0 to 3");
  EchoForeignStepPipelineOptions pipeline;
  setPipelineOptions(pipeline);
  if (failed(validateEchoForeignStepPipelineOptions(
          pipeline, [](const Twine &msg) {
            // "echo-foreign-step-pipeline: " names the pipeline; here the
            // flags are echo-run's.
            return error(StringRef(msg.str()).split(": ").second);
          })))
    return failure();
  if (training.libraryCalls && failed(cpu.load(training.cpuRuntime)))
    return failure();
  return success();
}

LogicalResult FunctionRun::checkSignature() {
  auto func = module->lookupSymbol<func::FuncOp>(name);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (!getRunnableType(type))
      return error(llvm::formatv(
          "argument #{0} of @{1} has type {2}; --function runs functions of "
          "statically shaped f32, f64, i32 and i64 tensors",
          i, name, type));
  for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
    if (!getRunnableType(type))
      return error(llvm::formatv(
          "result #{0} of @{1} has type {2}; --function runs functions of "
          "statically shaped f32, f64, i32 and i64 tensors",
          i, name, type));
  return success();
}

LogicalResult FunctionRun::prepareArguments() {
  auto func = module->lookupSymbol<func::FuncOp>(name);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    HostTensor t(getRunnableType(type));
    // Drawn as echo-run draws a model's arguments, each from its own stream
    // of the seed: `echo.param` ones as parameters, other floats in
    // U(-1, 1), integers in the range the ops they index accept
    // (IndexOperandOpInterface), else [0, 2).
    bool isInteger = isa<IntegerType>(t.getType().getElementType());
    host::ArgumentDraw draw =
        isInteger ? host::ArgumentDraw::forInteger(
                        getIntegerRange(func.getArgument(i)))
                  : host::ArgumentDraw::forFloat(isParamArgument(func, i),
                                                 t.getShape());
    std::vector<float> floats(isInteger ? 0 : t.getNumElements());
    std::vector<int32_t> ints(isInteger ? t.getNumElements() : 0);
    draw.fill(isInteger ? static_cast<void *>(ints.data()) : floats.data(),
              t.getNumElements(), training.seed, i);
    for (int64_t e = 0; e < t.getNumElements(); ++e)
      t.set(e, isInteger ? double(ints[e]) : double(floats[e]));
    args.push_back(std::move(t));
    sources.push_back("");
  }
  for (Type type : func.getResultTypes())
    outs.emplace_back(getRunnableType(type));
  return readInputs();
}

LogicalResult FunctionRun::checkArgumentIndices(unsigned i, StringRef path) {
  if (!isa<IntegerType>(args[i].getType().getElementType()))
    return success();
  auto func = module->lookupSymbol<func::FuncOp>(name);
  return checkIndices(args[i], func.getArgument(i), path);
}

LogicalResult FunctionRun::readInputs() {
  StringRef inputs = training.inputs;
  if (inputs.empty())
    return success();
  unsigned count = args.size();
  // A list: one file per argument, in order; an empty entry is drawn.
  if (inputs.contains(',') || inputs.ends_with(".npy")) {
    SmallVector<StringRef> files;
    inputs.split(files, ',');
    if (files.size() != count)
      return error(llvm::formatv(
          "--inputs lists {0} file(s) but @{1} takes {2} argument(s) (one "
          "per argument, in order; leave an entry empty to draw it from "
          "--seed)",
          files.size(), name, count));
    for (auto [i, path] : llvm::enumerate(files)) {
      if (path.empty())
        continue;
      if (failed(readNpy(path, args[i], i)) ||
          failed(checkArgumentIndices(i, path)))
        return failure();
      sources[i] = path.str();
    }
    return success();
  }
  // A directory: argN.npy where it exists.
  if (!llvm::sys::fs::is_directory(inputs))
    return error("--inputs=" + inputs +
                 ": neither a directory of argN.npy files nor a "
                 "comma-separated list of .npy files");
  std::error_code ec;
  llvm::Regex argFile("^arg([0-9]+)\\.npy$");
  for (llvm::sys::fs::directory_iterator it(inputs, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef file = llvm::sys::path::filename(it->path());
    SmallVector<StringRef> match;
    unsigned index;
    if (!argFile.match(file, &match))
      continue;
    // arg01.npy would never be read (argument 1 is arg1.npy): refused, not
    // silently drawn instead.
    if (match[1].getAsInteger(10, index) ||
        file != "arg" + std::to_string(index) + ".npy")
      return error(llvm::formatv("{0}: not an argument's file (argument N is "
                                 "argN.npy, N without leading zeros)",
                                 it->path()));
    if (index >= count)
      return error(llvm::formatv("{0}: @{1} takes {2} argument(s); there is "
                                 "no argument {3}",
                                 it->path(), name, count, match[1]));
  }
  if (ec)
    return error("--inputs=" + inputs + ": " + ec.message());
  for (unsigned i = 0; i < count; ++i) {
    SmallString<128> path(inputs);
    llvm::sys::path::append(path, "arg" + std::to_string(i) + ".npy");
    if (!llvm::sys::fs::exists(path))
      continue;
    if (failed(readNpy(path, args[i], i)) ||
        failed(checkArgumentIndices(i, path)))
      return failure();
    sources[i] = std::string(path);
  }
  return success();
}

LogicalResult FunctionRun::compile() {
  echo::detail::Timer timer;
  EchoForeignStepPipelineOptions pipeline;
  setPipelineOptions(pipeline);
  // Only @f and what it calls are compiled.
  for (auto other : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (other.getSymName() != name &&
        SymbolTable::symbolKnownUseEmpty(other, *module))
      other.erase();
  auto run = [&](function_ref<void(OpPassManager &)> build) {
    PassManager pm(&context, ModuleOp::getOperationName(),
                   OpPassManager::Nesting::Implicit);
    build(pm);
    return runPasses(pm, *module, training.verifyEach);
  };
  if (adopts()) {
    if (failed(run(
            [&](OpPassManager &pm) { buildEchoAdoptPipeline(pm, pipeline); })))
      return failure();
    memory = computeMemoryStats(module->lookupSymbol<func::FuncOp>(name));
  }
  memory.function = name;
  EchoPipelineOptions lowering;
  setForeignLoweringOptions(pipeline, lowering);
  if (failed(run([&](OpPassManager &pm) {
        buildEchoHandBackPipeline(pm);
        buildEchoBufferizationPipeline(pm, lowering);
      })))
    return failure();
  if (auto plan = module->lookupSymbol<func::FuncOp>(name)
                      ->getAttrOfType<DictionaryAttr>(
                          EchoDialect::getBufferPlanAttrName()))
    memory.bufferPlan = plan;
  if (failed(
          run([&](OpPassManager &pm) { buildEchoLLVMPipeline(pm, lowering); })))
    return failure();
  mlirMs = timer.lap();
  SmallVector<StringRef> sharedLibs;
  if (training.libraryCalls)
    sharedLibs.push_back(training.cpuRuntime);
  FailureOr<JitStep> step =
      JitStep::compile(*module, name, training.optLevel, sharedLibs);
  if (failed(step))
    return failure();
  llvmMs = timer.lap();
  jit.emplace(std::move(*step));
  return success();
}

LogicalResult FunctionRun::call() {
  SmallVector<HostTensor *> argPtrs, outPtrs;
  for (HostTensor &t : args)
    argPtrs.push_back(&t);
  for (HostTensor &t : outs)
    outPtrs.push_back(&t);
  host::CountingAllocator &allocator = host::getStepAllocator();
  allocator.resetPeak();
  auto start = std::chrono::steady_clock::now();
  if (failed(jit->call(argPtrs, outPtrs)) ||
      (training.libraryCalls && failed(cpu.check())))
    return failure();
  auto end = std::chrono::steady_clock::now();
  // The arguments and results (allocated before) and every byte the call
  // allocated: the arena, what was left out of it, the libraries'
  // workspace.
  measuredPeakBytes = allocator.peakBytes();
  runMs = std::chrono::duration<double, std::milli>(end - start).count();
  if (!training.quiet)
    for (auto [i, t] : llvm::enumerate(outs)) {
      double sum = 0;
      for (int64_t e = 0; e < t.getNumElements(); ++e)
        sum += t.get(e);
      llvm::outs() << llvm::formatv("@{0} result {1} {2}: sum {3:e}\n", name, i,
                                    t.getType(), sum);
    }
  return success();
}

LogicalResult FunctionRun::writeResults() {
  if (training.dump.empty())
    return success();
  if (std::error_code ec = llvm::sys::fs::create_directories(training.dump))
    return error("cannot create --dump=" + training.dump + ": " + ec.message());
  for (auto [i, t] : llvm::enumerate(outs)) {
    SmallString<128> path(training.dump);
    llvm::sys::path::append(path, "out" + std::to_string(i) + ".npy");
    if (failed(writeNpy(path, t)))
      return failure();
  }
  return success();
}

LogicalResult FunctionRun::writeReport() {
  if (!reportFile)
    return success();
  llvm::json::Object entry;
  if (adopts()) {
    // The estimate (peak_live_bytes, feature_map_bytes, ...) of the
    // tensor-level step and its buffer plan.
    entry = memory.toJSON();
  } else {
    entry["function"] = name;
    std::optional<int64_t> stepBytes = memory.getStepBytes();
    entry["step_bytes"] = stepBytes ? llvm::json::Value(*stepBytes) : nullptr;
    if (memory.bufferPlan)
      if (auto arena = memory.bufferPlan->getAs<IntegerAttr>("arena_bytes"))
        entry["planned_bytes"] = arena.getInt();
  }
  entry["adopted"] = adopts();
  entry["target"] = "cpu";
  entry["measured_peak_bytes"] = static_cast<int64_t>(measuredPeakBytes);
  entry["library_workspace_bytes"] =
      static_cast<int64_t>(training.libraryCalls ? cpu.getWorkspaceBytes() : 0);
  llvm::json::Array inputs;
  for (const std::string &source : sources)
    inputs.push_back(source.empty() ? llvm::json::Value(nullptr)
                                    : llvm::json::Value(source));
  entry["inputs"] = std::move(inputs);
  entry["seed"] = static_cast<int64_t>(training.seed);
  entry["compile_ms"] = mlirMs + llvmMs;
  entry["run_ms"] = runMs;
  return writeReportEntry(std::move(entry), *reportFile, training.report);
}

LogicalResult FunctionRun::openReport() {
  if (training.report.empty())
    return success();
  std::error_code ec;
  reportFile = std::make_unique<llvm::ToolOutputFile>(training.report, ec,
                                                      llvm::sys::fs::OF_Text);
  if (!ec)
    return success();
  reportFile.reset();
  return error("cannot write the report '" + training.report +
               "': " + ec.message());
}

int FunctionRun::run() {
  if (failed(checkOptions()) || failed(openReport()) ||
      failed(checkSignature()) || failed(prepareArguments()) ||
      failed(compile()) || failed(call()) || failed(writeResults()) ||
      failed(writeReport()))
    return 1;
  return 0;
}

int mlir::echo::runFunction(MLIRContext &context,
                            const TrainingRunOptions &training,
                            const FunctionRunOptions &options) {
  {
    // Its diagnostics handler and module go before a training run parses
    // the file again.
    FunctionRun run(context, training, options);
    if (failed(run.load()))
      return 1;
    if (!run.isModel)
      return run.run();
  }
  return runTraining(context, training);
}
