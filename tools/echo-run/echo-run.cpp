

//===- echo-run.cpp - Run Echo training steps -------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// echo-run <model.mlir> --strategy=<s> --target=cpu|cuda --steps=<n> --seed=<n>
//          [--check-gradients] [--report=<path>] [--inputs=<dir>]
//          [--dump=<dir>]
//
// Compiles the training step of a model (SPEC.md model convention) through
// `echo-pipeline`, JIT-compiles it with mlir::ExecutionEngine and runs it on
// deterministic data. Parameters and data are drawn from --seed; the same
// batch is used at every step. The step returns gradients (or, with
// --optimizer=sgd, updated parameters); with gradients, echo-run applies
// `p -= lr * g` itself between steps.
//
// --target=cuda compiles the step with `echo-pipeline target=nvvm` and runs
// it through the Echo CUDA runtime (libEchoCudaRuntime.so, --cuda-runtime):
// parameters, data, results and the planned arena live in device memory;
// the report adds `device_peak_bytes` (what the runtime held at once) and
// times the step with CUDA events.
//
// --check-gradients compares every parameter gradient of the first step with
// central finite differences of the loss computed in double precision (the
// model is re-typed from f32 to f64 and compiled a second time), and fails
// naming the parameter when the norm-wise relative error exceeds --tolerance.
//
//===----------------------------------------------------------------------===//

#include "EchoCudaRuntime.h"
#include "EchoHostData.h"
#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"
#include "echo/InitAllEcho.h"
#include "echo/Pipelines/Pipelines.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string>
    inputFilename(cl::Positional, cl::desc("<model.mlir>"), cl::Required);
static cl::opt<echo::RecomputeStrategy> strategyOpt(
    "strategy", cl::desc("Recompute strategy: none, mirror, sublinear, echo"),
    cl::init(echo::RecomputeStrategy::Echo), ECHO_RECOMPUTE_STRATEGY_VALUES);
static cl::opt<echo::Target>
    targetOpt("target",
              cl::desc("Execution target: cpu, or cuda (an NVIDIA GPU through "
                       "the Echo CUDA runtime; nvvm is the same)"),
              cl::init(echo::Target::CPU), ECHO_TARGET_VALUES);
#ifndef ECHO_CUDA_RUNTIME_PATH
#define ECHO_CUDA_RUNTIME_PATH ""
#endif
static cl::opt<std::string>
    cudaRuntimeOpt("cuda-runtime",
                   cl::desc("The Echo CUDA runtime library for --target=cuda"),
                   cl::init(ECHO_CUDA_RUNTIME_PATH));
static cl::opt<unsigned> stepsOpt("steps", cl::desc("Training steps to run"),
                                  cl::init(1));
static cl::opt<uint64_t>
    seedOpt("seed", cl::desc("Seed of parameters and data"), cl::init(0));
static cl::opt<std::string>
    functionOpt("function",
                cl::desc("The model to train when the file has several"),
                cl::init(""));
static cl::opt<echo::Optimizer>
    optimizerOpt("optimizer",
                 cl::desc("What the compiled step returns: none (gradients, "
                          "SGD applied by echo-run) or sgd (updated "
                          "parameters, computed in the step)"),
                 cl::init(echo::Optimizer::None), ECHO_OPTIMIZER_VALUES);
static cl::opt<double> lrOpt("lr", cl::desc("SGD learning rate"),
                             cl::init(0.1));
static cl::opt<bool> checkGradients(
    "check-gradients",
    cl::desc("Compare the first step's gradients with central finite "
             "differences (in f64); exit 1 beyond --tolerance"),
    cl::init(false));
static cl::opt<double>
    toleranceOpt("tolerance",
                 cl::desc("Largest accepted norm-wise relative error of a "
                          "parameter gradient"),
                 cl::init(1e-3));
static cl::opt<unsigned> checkSamples(
    "check-samples",
    cl::desc("Elements per parameter checked by finite differences (0 = all)"),
    cl::init(64));
static cl::opt<std::string>
    reportOpt("report", cl::desc("Write a JSON run report here"), cl::init(""));
static cl::opt<std::string>
    inputsOpt("inputs", cl::desc("Read argument N from DIR/argN.npy"),
              cl::init(""));
static cl::opt<std::string>
    dumpOpt("dump", cl::desc("Write the first step's results as DIR/outN.npy"),
            cl::init(""));
static cl::opt<unsigned>
    optLevelOpt("opt-level",
                cl::desc("LLVM optimization level of the JIT (0-3); 0 "
                         "compiles fastest (tests)"),
                cl::init(2));
static cl::opt<bool> quietOpt("quiet", cl::desc("Do not print losses"),
                              cl::init(false));
static cl::opt<std::string> emitAotOpt(
    "emit-aot",
    cl::desc("Instead of running, compile the step ahead of time into "
             "DIR/echo-step, an executable that needs no MLIR or LLVM (with "
             "manifest.txt, memory.json and, for --target=cuda, the runtime "
             "library)"),
    cl::value_desc("DIR"), cl::init(""));
#ifndef ECHO_AOT_CXX
#define ECHO_AOT_CXX "c++"
#endif
#ifndef ECHO_STEP_MAIN_PATH
#define ECHO_STEP_MAIN_PATH ""
#endif
static cl::opt<std::string>
    aotCxxOpt("aot-cxx",
              cl::desc("C++ compiler driver that links --emit-aot bundles"),
              cl::init(ECHO_AOT_CXX));
static cl::opt<bool> planBuffersOpt(
    "plan-buffers",
    cl::desc("Place the step's buffers in one arena (echo-plan-buffers); "
             "--plan-buffers=false keeps one allocation per buffer"),
    cl::init(true));

namespace {

//===----------------------------------------------------------------------===//
// Host tensors and memref descriptors
//===----------------------------------------------------------------------===//

/// A host buffer holding one argument or result, with the strided memref
/// descriptor that the `_mlir_ciface_` entry points take.
struct HostTensor {
  RankedTensorType type;
  std::vector<uint64_t> storage; // 8-byte aligned
  std::vector<int64_t> descriptor;

  explicit HostTensor(RankedTensorType type) : type(type) {
    storage.resize((byteSize() + 7) / 8 + 1, 0);
    descriptor = mlir::echo::host::rowMajorDescriptor(storage.data(), shape());
  }
  std::vector<int64_t> shape() const {
    return std::vector<int64_t>(type.getShape().begin(), type.getShape().end());
  }
  /// Points the descriptor at `storage` (which moves when copied).
  void refreshDescriptor() {
    auto ptr = reinterpret_cast<int64_t>(storage.data());
    descriptor[0] = ptr;
    descriptor[1] = ptr;
  }
  int64_t numElements() const { return type.getNumElements(); }
  size_t byteSize() const { return echo::getTensorBytes(type); }
  void *data() { return storage.data(); }
  const void *data() const { return storage.data(); }
  bool isF32() const { return type.getElementType().isF32(); }
  bool isF64() const { return type.getElementType().isF64(); }

  double get(int64_t i) const {
    if (isF32())
      return static_cast<const float *>(data())[i];
    if (isF64())
      return static_cast<const double *>(data())[i];
    return static_cast<const int32_t *>(data())[i];
  }
  void set(int64_t i, double v) {
    if (isF32())
      static_cast<float *>(data())[i] = static_cast<float>(v);
    else if (isF64())
      static_cast<double *>(data())[i] = v;
    else
      static_cast<int32_t *>(data())[i] = static_cast<int32_t>(v);
  }
};

using echo::host::Rng;

//===----------------------------------------------------------------------===//
// NumPy .npy files
//===----------------------------------------------------------------------===//

std::string npyDescr(Type et) {
  if (et.isF32())
    return "<f4";
  if (et.isF64())
    return "<f8";
  if (et.isInteger(32))
    return "<i4";
  return "";
}

LogicalResult writeNpy(StringRef path, const HostTensor &t) {
  std::string header =
      echo::host::npyHeader(npyDescr(t.type.getElementType()), t.shape());
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "echo-run: cannot write " << path << ": " << ec.message()
                 << "\n";
    return failure();
  }
  os << header;
  os.write(static_cast<const char *>(t.data()), t.byteSize());
  return success();
}

/// Reads `path` into `t`, checking dtype and shape against the argument.
LogicalResult readNpy(StringRef path, HostTensor &t, unsigned argIndex) {
  auto fail = [&](const Twine &msg) {
    llvm::errs() << "echo-run: " << path << " (argument " << argIndex
                 << "): " << msg << "\n";
    return failure();
  };
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read: " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return fail("not a NumPy .npy file");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) |
                (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i]))
                   << (8 * i);
    offset = 12;
  }
  if (bytes.size() < offset + headerLen)
    return fail("truncated header");
  StringRef header = bytes.substr(offset, headerLen);
  std::string want = npyDescr(t.type.getElementType());
  if (!header.contains("'" + want + "'"))
    return fail("dtype must be '" + want + "' to match " +
                llvm::Twine(want == "<i4" ? "i32" : "the argument"));
  if (header.contains("'fortran_order': True"))
    return fail("Fortran order is not supported; save C order");
  size_t lp = header.find("'shape': (");
  if (lp == StringRef::npos)
    return fail("no shape in header");
  StringRef shapeText = header.substr(lp + 10);
  shapeText = shapeText.substr(0, shapeText.find(')'));
  SmallVector<int64_t> shape;
  SmallVector<StringRef> parts;
  shapeText.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef p : parts) {
    p = p.trim();
    if (p.empty())
      continue;
    int64_t v;
    if (p.getAsInteger(10, v))
      return fail("bad shape in header");
    shape.push_back(v);
  }
  if (ArrayRef<int64_t>(shape) != t.type.getShape()) {
    std::string got, exp;
    for (int64_t d : shape)
      got += std::to_string(d) + "x";
    for (int64_t d : t.type.getShape())
      exp += std::to_string(d) + "x";
    return fail("shape " + got + " does not match the argument's " + exp);
  }
  StringRef payload = bytes.substr(offset + headerLen);
  if (payload.size() < t.byteSize())
    return fail("truncated data");
  std::memcpy(t.data(), payload.data(), t.byteSize());
  return success();
}

//===----------------------------------------------------------------------===//
// Model inspection
//===----------------------------------------------------------------------===//

/// For an integer argument: the exclusive upper bound its uses accept
/// (IndexOperandOpInterface: embedding ids in [0, V), labels in [0, C)), or 2
/// when unconstrained.
int64_t integerRange(BlockArgument arg) {
  int64_t bound = INT64_MAX;
  for (OpOperand &use : arg.getUses())
    if (auto indexed = dyn_cast<echo::IndexOperandOpInterface>(use.getOwner()))
      if (int64_t b = indexed.getIndexBound(use.getOperandNumber()))
        bound = std::min(bound, b);
  return bound == INT64_MAX ? 2 : bound;
}

/// Picks the model to train: --function, else the only model of the module.
func::FuncOp findModel(ModuleOp module) {
  SmallVector<func::FuncOp> models;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!echo::isModelCandidate(func))
      continue;
    bool hasParam = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      hasParam |= echo::isParamArgument(func, i);
    if (hasParam)
      models.push_back(func);
  }
  if (!functionOpt.empty()) {
    for (func::FuncOp f : models)
      if (f.getSymName() == functionOpt)
        return f;
    llvm::errs() << "echo-run: no model named @" << functionOpt << " in "
                 << inputFilename << "\n";
    return nullptr;
  }
  if (models.size() == 1)
    return models.front();
  if (models.empty()) {
    llvm::errs() << "echo-run: " << inputFilename
                 << " has no model (a func.func returning the scalar loss "
                    "with at least one 'echo.param' argument)\n";
  } else {
    llvm::errs() << "echo-run: " << inputFilename
                 << " has several models; pick one with --function:";
    for (func::FuncOp f : models)
      llvm::errs() << " @" << f.getSymName();
    llvm::errs() << "\n";
  }
  return nullptr;
}

/// Re-types every f32 value of `func` (signature, block arguments, results,
/// dense constants) as f64.
void retypeToF64(func::FuncOp func) {
  Builder b(func.getContext());
  auto convert = [&](Type t) -> Type {
    if (auto tt = dyn_cast<RankedTensorType>(t))
      if (tt.getElementType().isF32())
        return RankedTensorType::get(tt.getShape(), b.getF64Type());
    return t;
  };
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(convert(arg.getType()));
    for (OpResult r : op->getResults())
      r.setType(convert(r.getType()));
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      if (auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue())) {
        auto type = cast<ShapedType>(convert(dense.getType()));
        if (type != dense.getType()) {
          SmallVector<double> values;
          for (APFloat v : dense.getValues<APFloat>())
            values.push_back(v.convertToDouble());
          cst.setValueAttr(DenseElementsAttr::get(type, ArrayRef(values)));
        }
      }
    }
  });
  SmallVector<Type> inputs, results;
  for (Type t : func.getArgumentTypes())
    inputs.push_back(convert(t));
  for (Type t : func.getResultTypes())
    results.push_back(convert(t));
  func.setFunctionType(b.getFunctionType(inputs, results));
}

//===----------------------------------------------------------------------===//
// Compilation and invocation
//===----------------------------------------------------------------------===//

/// A JIT-compiled module and one of its entry points.
struct Compiled {
  std::unique_ptr<ExecutionEngine> engine;
  std::string entry; // `_mlir_ciface_<name>`

  /// Calls the entry with `args` then `outs` (results are out-parameters).
  LogicalResult call(ArrayRef<HostTensor *> args, ArrayRef<HostTensor *> outs) {
    SmallVector<int64_t *> descriptors;
    for (HostTensor *t : llvm::concat<HostTensor *const>(args, outs)) {
      t->refreshDescriptor();
      descriptors.push_back(t->descriptor.data());
    }
    return invoke(descriptors);
  }

  /// Calls the entry with one memref descriptor per argument.
  LogicalResult invoke(ArrayRef<int64_t *> descriptors) {
    SmallVector<void *> descPtrs(descriptors.begin(), descriptors.end());
    SmallVector<void *> packed;
    for (void *&p : descPtrs)
      packed.push_back(&p);
    if (llvm::Error err = engine->invokePacked(entry, packed)) {
      llvm::errs() << "echo-run: calling " << entry
                   << " failed: " << llvm::toString(std::move(err)) << "\n";
      return failure();
    }
    return success();
  }
};

/// Lowers `module` with `pm` and JIT-compiles it.
FailureOr<Compiled> compile(ModuleOp module, PassManager &pm,
                            StringRef function,
                            ArrayRef<StringRef> sharedLibs = {}) {
  if (failed(pm.run(module)))
    return failure();
  auto transformer = makeOptimizingTransformer(/*optLevel=*/optLevelOpt,
                                               /*sizeLevel=*/0, nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.sharedLibPaths = sharedLibs;
  options.jitCodeGenOptLevel = optLevelOpt == 0
                                   ? llvm::CodeGenOptLevel::None
                                   : llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(module, options);
  if (!engine) {
    llvm::errs() << "echo-run: JIT compilation failed: "
                 << llvm::toString(engine.takeError()) << "\n";
    return failure();
  }
  Compiled c;
  c.engine = std::move(*engine);
  c.entry = ("_mlir_ciface_" + function).str();
  // Strided copies that bufferization could not turn into loops call the
  // MLIR C runner's memrefCopy.
  c.engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("memrefCopy")] = {
        llvm::orc::ExecutorAddr::fromPtr(&memrefCopy),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  c.engine->initialize();
  // Materialize now, so that the JIT's compile time is not the first step's.
  if (auto fn = c.engine->lookupPacked(c.entry); !fn) {
    llvm::errs() << "echo-run: JIT compilation failed: "
                 << llvm::toString(fn.takeError()) << "\n";
    return failure();
  }
  return c;
}

//===----------------------------------------------------------------------===//
// --target=cuda
//===----------------------------------------------------------------------===//

/// The Echo CUDA runtime's host API (runtime/cuda/EchoCudaRuntime.h),
/// resolved from the library that the JIT-compiled step links against.
struct CudaRuntime {
  decltype(&echoCudaInit) init;
  decltype(&echoCudaGetError) getError;
  decltype(&echoCudaDeviceName) deviceName;
  decltype(&echoCudaMalloc) malloc;
  decltype(&echoCudaFree) free;
  decltype(&echoCudaCopyToDevice) copyToDevice;
  decltype(&echoCudaCopyToHost) copyToHost;
  decltype(&echoCudaPeakBytes) peakBytes;
  decltype(&echoCudaTimerStart) timerStart;
  decltype(&echoCudaTimerStop) timerStop;

  /// Loads the library and initializes GPU 0; reports what is missing.
  LogicalResult load(StringRef path) {
    if (path.empty() || !llvm::sys::fs::exists(path)) {
      llvm::errs() << "echo-run: --target=cuda needs the Echo CUDA runtime "
                      "library (not found"
                   << (path.empty() ? std::string()
                                    : (" at '" + path + "'").str())
                   << "; build Echo with the CUDA toolkit, or pass "
                      "--cuda-runtime=)\n";
      return failure();
    }
    std::string error;
    auto lib = llvm::sys::DynamicLibrary::getPermanentLibrary(
        path.str().c_str(), &error);
    if (!lib.isValid()) {
      llvm::errs() << "echo-run: cannot load " << path << ": " << error << "\n";
      return failure();
    }
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          lib.getAddressOfSymbol(name));
      return fn != nullptr;
    };
    if (!get(init, "echoCudaInit") || !get(getError, "echoCudaGetError") ||
        !get(deviceName, "echoCudaDeviceName") ||
        !get(malloc, "echoCudaMalloc") || !get(free, "echoCudaFree") ||
        !get(copyToDevice, "echoCudaCopyToDevice") ||
        !get(copyToHost, "echoCudaCopyToHost") ||
        !get(peakBytes, "echoCudaPeakBytes") ||
        !get(timerStart, "echoCudaTimerStart") ||
        !get(timerStop, "echoCudaTimerStop")) {
      llvm::errs() << "echo-run: " << path
                   << " is not the Echo CUDA runtime (missing symbols)\n";
      return failure();
    }
    if (init(0) != 0)
      return fail();
    return success();
  }
  LogicalResult fail() {
    const char *error = getError();
    llvm::errs() << "echo-run: --target=cuda: "
                 << (error ? error : "unknown CUDA runtime error") << "\n";
    return failure();
  }
};

/// The device copies of a step's arguments, results and arena.
struct CudaStep {
  CudaRuntime &cuda;
  Compiled &compiled;
  struct Buffer {
    void *ptr = nullptr;
    size_t bytes = 0;
    std::vector<int64_t> descriptor;
  };
  SmallVector<Buffer> args, outs;
  Buffer arena;

  CudaStep(CudaRuntime &cuda, Compiled &compiled)
      : cuda(cuda), compiled(compiled) {}
  ~CudaStep() {
    for (Buffer &b : llvm::concat<Buffer>(args, outs))
      cuda.free(b.ptr);
    cuda.free(arena.ptr);
  }

  LogicalResult allocate(Buffer &b, size_t bytes,
                         const std::vector<int64_t> &shape) {
    b.bytes = bytes;
    b.ptr = cuda.malloc(bytes);
    if (!b.ptr)
      return cuda.fail();
    b.descriptor = mlir::echo::host::rowMajorDescriptor(b.ptr, shape);
    return success();
  }

  LogicalResult allocate(ArrayRef<HostTensor> hostArgs,
                         ArrayRef<HostTensor> hostOuts, int64_t arenaBytes) {
    args.resize(hostArgs.size());
    outs.resize(hostOuts.size());
    for (auto [b, t] : llvm::zip(args, hostArgs))
      if (failed(allocate(b, t.byteSize(), t.shape())))
        return failure();
    for (auto [b, t] : llvm::zip(outs, hostOuts))
      if (failed(allocate(b, t.byteSize(), t.shape())))
        return failure();
    return allocate(arena, arenaBytes, {arenaBytes}); // memref<Nxi8>
  }

  /// Uploads `hostArgs`, runs the step, downloads `hostOuts`; `ms` is the
  /// device time of the step alone.
  LogicalResult call(ArrayRef<HostTensor> hostArgs,
                     MutableArrayRef<HostTensor> hostOuts, double &ms) {
    for (auto [b, t] : llvm::zip(args, hostArgs))
      if (cuda.copyToDevice(b.ptr, t.data(), b.bytes) != 0)
        return cuda.fail();
    SmallVector<int64_t *> descriptors;
    for (Buffer &b : llvm::concat<Buffer>(args, outs))
      descriptors.push_back(b.descriptor.data());
    descriptors.push_back(arena.descriptor.data());
    cuda.timerStart();
    if (failed(compiled.invoke(descriptors)))
      return failure();
    ms = cuda.timerStop();
    if (ms < 0 || cuda.getError())
      return cuda.fail();
    for (auto [b, t] : llvm::zip(outs, hostOuts))
      if (cuda.copyToHost(t.data(), b.ptr, b.bytes) != 0)
        return cuda.fail();
    return success();
  }
};

//===----------------------------------------------------------------------===//
// --emit-aot
//===----------------------------------------------------------------------===//

/// What DIR/manifest.txt records for runtime/aot/EchoStepMain.cpp.
struct AotStep {
  StringRef model, target;
  ArrayRef<HostTensor> args, outs;
  ArrayRef<echo::host::ArgumentDraw> draws;
  ArrayRef<unsigned> paramArgs;
  int64_t arenaBytes; // -1: the step allocates its own
};

LogicalResult aotError(const Twine &msg) {
  llvm::errs() << "echo-run: --emit-aot: " << msg << "\n";
  return failure();
}

/// Translates the lowered `module` to LLVM IR, adds `echo_aot_step(void **)`
/// (calls `_mlir_ciface_<entry>` with the descriptors it is given) and
/// `echo_aot_num_descriptors`, optimizes and writes an object file.
LogicalResult emitStepObject(ModuleOp module, StringRef entry, bool onGPU,
                             StringRef path) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "echo-step");
  if (!llvmModule)
    return aotError("cannot translate the step to LLVM IR");
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return aotError(llvm::toString(builder.takeError()));
  // The host code of a GPU step only launches work: build it for any
  // x86-64 so that it runs on the GPU machine, whatever its processor.
  if (onGPU) {
    builder->setCPU("x86-64");
    builder->getFeatures() = llvm::SubtargetFeatures();
  }
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeGenOptLevel(optLevelOpt == 0
                                  ? llvm::CodeGenOptLevel::None
                                  : llvm::CodeGenOptLevel::Aggressive);
  auto machine = builder->createTargetMachine();
  if (!machine)
    return aotError(llvm::toString(machine.takeError()));
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());

  llvm::Function *callee =
      llvmModule->getFunction(("_mlir_ciface_" + entry).str());
  if (!callee)
    return aotError("the step has no _mlir_ciface_" + entry);
  llvm::Type *ptrType = llvm::PointerType::getUnqual(llvmContext);
  auto *wrapper = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(llvmContext), {ptrType},
                              /*isVarArg=*/false),
      llvm::GlobalValue::ExternalLinkage, "echo_aot_step", *llvmModule);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(llvmContext, "entry", wrapper));
  SmallVector<llvm::Value *> callArgs;
  for (unsigned i = 0; i < callee->arg_size(); ++i)
    callArgs.push_back(b.CreateLoad(
        ptrType, b.CreateConstGEP1_64(ptrType, wrapper->getArg(0), i)));
  b.CreateCall(callee, callArgs);
  b.CreateRetVoid();
  llvm::Type *i64 = llvm::Type::getInt64Ty(llvmContext);
  new llvm::GlobalVariable(*llvmModule, i64, /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i64, callee->arg_size()),
                           "echo_aot_num_descriptors");

  auto transformer =
      makeOptimizingTransformer(optLevelOpt, /*sizeLevel=*/0, machine->get());
  if (llvm::Error err = transformer(llvmModule.get()))
    return aotError(llvm::toString(std::move(err)));
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return aotError("cannot write " + path + ": " + ec.message());
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return aotError("the host target cannot emit object files");
  codegen.run(*llvmModule);
  return success();
}

/// Writes DIR/manifest.txt and DIR/memory.json.
LogicalResult writeManifest(StringRef dir, const AotStep &step,
                            const llvm::json::Object &memory) {
  auto writeFile = [&](StringRef name, auto &&write) -> LogicalResult {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return aotError("cannot write " + path + ": " + ec.message());
    write(os);
    return success();
  };
  auto shape = [](llvm::raw_ostream &os, const HostTensor &t) {
    os << t.type.getRank();
    for (int64_t d : t.type.getShape())
      os << " " << d;
    os << "\n";
  };
  if (failed(writeFile("manifest.txt", [&](llvm::raw_ostream &os) {
        os << "echo-step-bundle 1\n";
        os << "model " << step.model << "\n";
        os << "target " << step.target << "\n";
        os << "seed " << seedOpt << "\n";
        os << "optimizer " << echo::stringifyOptimizer(optimizerOpt) << "\n";
        os << llvm::formatv("lr {0:e16}\n", lrOpt.getValue());
        os << "arena_bytes " << step.arenaBytes << "\n";
        for (auto [i, t] : llvm::enumerate(step.args)) {
          bool isParam = llvm::is_contained(step.paramArgs, i);
          os << "arg " << i << " " << (t.isF32() ? "f32" : "i32") << " "
             << (isParam ? "param" : "data") << " "
             << (step.draws[i].isInteger ? step.draws[i].range : 0) << " ";
          shape(os, t);
        }
        for (auto [k, t] : llvm::enumerate(step.outs)) {
          os << "out " << k << " f32 ";
          shape(os, t);
        }
      })))
    return failure();
  return writeFile("memory.json", [&](llvm::raw_ostream &os) {
    os << llvm::json::Value(llvm::json::Object(memory)) << "\n";
  });
}

/// Copies `from` into `dir` (keeping its file name) and returns the copy.
FailureOr<std::string> copyInto(StringRef dir, StringRef from) {
  SmallString<128> to(dir);
  llvm::sys::path::append(to, llvm::sys::path::filename(from));
  if (std::error_code ec = llvm::sys::fs::copy_file(from, to))
    return aotError("cannot copy " + from + " to " + to + ": " + ec.message());
  return std::string(to);
}

/// Compiles the lowered step into DIR: step.o, the manifest, the memory
/// report and DIR/echo-step (linked with --aot-cxx).
LogicalResult emitAotBundle(ModuleOp module, StringRef entry,
                            const AotStep &step,
                            const llvm::json::Object &memory) {
  StringRef dir = emitAotOpt;
  bool onGPU = step.target == "cuda";
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return aotError("cannot create " + dir + ": " + ec.message());
  SmallString<128> object(dir), executable(dir);
  llvm::sys::path::append(object, "step.o");
  llvm::sys::path::append(executable, "echo-step");
  if (failed(emitStepObject(module, entry, onGPU, object)) ||
      failed(writeManifest(dir, step, memory)))
    return failure();

  StringRef stepMain = ECHO_STEP_MAIN_PATH;
  if (stepMain.empty() || !llvm::sys::fs::exists(stepMain))
    return aotError("the step driver library (libEchoStepMain.a) is missing" +
                    (stepMain.empty() ? Twine() : " at '" + stepMain + "'"));
  auto cxx = llvm::sys::findProgramByName(aotCxxOpt);
  if (!cxx)
    return aotError("cannot find the C++ compiler '" + aotCxxOpt +
                    "' to link the bundle (pass --aot-cxx=)");
  SmallVector<std::string> command = {*cxx, std::string(object), stepMain.str(),
                                      "-o", std::string(executable)};
  if (onGPU) {
    auto runtime = copyInto(dir, cudaRuntimeOpt);
    if (failed(runtime))
      return failure();
    command.push_back(*runtime);
  }
  // The runtime library sits beside the executable. (Linked this way, a
  // bundle needs glibc 2.34 and libstdc++ from GCC 11 or newer.)
  command.append({"-Wl,-rpath,$ORIGIN", "-lm", "-ldl"});
  SmallVector<StringRef> argv(command.begin(), command.end());
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(*cxx, argv, /*Env=*/std::nullopt, {}, 0, 0,
                                     &error);
  if (rc != 0)
    return aotError("linking " + executable + " failed" +
                    (error.empty() ? "" : ": " + error) +
                    " (command: " + llvm::join(command, " ") + ")");
  return success();
}

void setPipelineOptions(echo::EchoPipelineOptions &o, bool autodiff,
                        echo::Optimizer optimizer) {
  o.strategy = strategyOpt;
  o.target = targetOpt;
  o.autodiff = autodiff;
  o.optimizer = optimizer;
  o.lr = lrOpt;
  o.planBuffers = planBuffersOpt;
}

double median(SmallVector<double> v) {
  if (v.empty())
    return 0;
  llvm::sort(v);
  return v[v.size() / 2];
}

//===----------------------------------------------------------------------===//
// Gradient check
//===----------------------------------------------------------------------===//

/// Central differences of the f64 loss at the sampled elements of every
/// parameter, compared with `grads` (the step's f32 gradients).
LogicalResult checkAllGradients(Compiled &forward64,
                                ArrayRef<HostTensor> args64,
                                ArrayRef<unsigned> paramArgs,
                                ArrayRef<HostTensor> grads, Rng &rng) {
  SmallVector<HostTensor> args(args64.begin(), args64.end());
  SmallVector<HostTensor *> argPtrs;
  for (HostTensor &t : args)
    argPtrs.push_back(&t);
  HostTensor loss(RankedTensorType::get(
      {}, Float64Type::get(args.front().type.getContext())));
  HostTensor *outs[] = {&loss};
  auto evaluate = [&]() -> FailureOr<double> {
    if (failed(forward64.call(argPtrs, outs)))
      return failure();
    return loss.get(0);
  };

  bool ok = true;
  for (auto [k, argIndex] : llvm::enumerate(paramArgs)) {
    HostTensor &p = args[argIndex];
    const HostTensor &g = grads[k];
    int64_t n = p.numElements();
    SmallVector<int64_t> elems;
    if (checkSamples == 0 || n <= static_cast<int64_t>(checkSamples)) {
      for (int64_t i = 0; i < n; ++i)
        elems.push_back(i);
    } else {
      for (unsigned s = 0; s < checkSamples; ++s)
        elems.push_back(static_cast<int64_t>(rng.next() % n));
    }
    double diff2 = 0, ana2 = 0, num2 = 0, worst = 0;
    int64_t worstElem = -1;
    for (int64_t i : elems) {
      double orig = p.get(i);
      double h = 1e-5 * std::max(1.0, std::fabs(orig));
      p.set(i, orig + h);
      FailureOr<double> up = evaluate();
      p.set(i, orig - h);
      FailureOr<double> down = evaluate();
      p.set(i, orig);
      if (failed(up) || failed(down))
        return failure();
      double numeric = (*up - *down) / (2 * h);
      double analytic = g.get(i);
      diff2 += (numeric - analytic) * (numeric - analytic);
      ana2 += analytic * analytic;
      num2 += numeric * numeric;
      if (std::fabs(numeric - analytic) > worst) {
        worst = std::fabs(numeric - analytic);
        worstElem = i;
      }
    }
    // Norm-wise relative error; gradients that are zero up to f32 rounding
    // of the loss are compared absolutely.
    double scale = std::max({std::sqrt(ana2), std::sqrt(num2), 1e-6});
    double err = std::sqrt(diff2) / scale;
    bool pass = err <= toleranceOpt;
    llvm::outs() << llvm::formatv(
        "gradient check: param {0} (argument {1}): rel err {2:e} over {3} "
        "elements{4}\n",
        k, argIndex, err, elems.size(), pass ? "" : " FAILED");
    if (!pass) {
      llvm::outs().flush();
      llvm::errs() << llvm::formatv(
          "echo-run: gradient of parameter {0} (argument {1}) is wrong: "
          "relative error {2:e} > {3:e} (worst element {4}: analytic {5:e})\n",
          k, argIndex, err, static_cast<double>(toleranceOpt), worstElem,
          worstElem >= 0 ? g.get(worstElem) : 0.0);
      ok = false;
    }
  }
  return success(ok);
}

int run(MLIRContext &context) {
  bool onGPU = targetOpt == echo::Target::NVVM;
  if (onGPU && checkGradients) {
    llvm::errs() << "echo-run: --check-gradients runs on --target=cpu (its "
                    "finite differences are computed in f64)\n";
    return 1;
  }
  if (optLevelOpt > 3) {
    llvm::errs() << "echo-run: --opt-level must be 0 to 3\n";
    return 1;
  }
  bool sgdInGraph = optimizerOpt == echo::Optimizer::Sgd;
  if (checkGradients && sgdInGraph) {
    llvm::errs() << "echo-run: --check-gradients needs --optimizer=none "
                    "(the step must return gradients)\n";
    return 1;
  }
  {
    echo::EchoPipelineOptions o;
    setPipelineOptions(o, true, optimizerOpt);
    if (failed(echo::validateEchoPipelineOptions(o, [](const Twine &msg) {
          llvm::errs() << "echo-run: " << msg << "\n";
          return failure();
        })))
      return 1;
  }

  bool emitAot = !emitAotOpt.empty();
  if (emitAot && (checkGradients || !inputsOpt.empty() || !dumpOpt.empty())) {
    llvm::errs() << "echo-run: --emit-aot compiles the step without running "
                    "it: --check-gradients, --inputs and --dump do not apply "
                    "(the bundle's echo-step takes --dump)\n";
    return 1;
  }
  if (emitAot && onGPU &&
      (cudaRuntimeOpt.empty() || !llvm::sys::fs::exists(cudaRuntimeOpt))) {
    llvm::errs() << "echo-run: --emit-aot with --target=cuda needs the Echo "
                    "CUDA runtime library to put in the bundle (not found"
                 << (cudaRuntimeOpt.empty() ? std::string()
                                            : (" at '" + cudaRuntimeOpt + "'"))
                 << "; build Echo with the CUDA toolkit, or pass "
                    "--cuda-runtime=)\n";
    return 1;
  }

  // The driver and the GPU are checked before anything is compiled (a
  // bundle is compiled here and runs elsewhere).
  CudaRuntime cuda;
  if (onGPU && !emitAot && failed(cuda.load(cudaRuntimeOpt)))
    return 1;

  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << "echo-run: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  func::FuncOp model = findModel(*module);
  if (!model)
    return 1;
  if (failed(echo::verifyModelConvention(model)))
    return 1;
  std::string modelName = model.getSymName().str();
  std::string trainName = modelName + "_train";

  // Arguments: parameters and data drawn from the seed (or --inputs).
  SmallVector<HostTensor> args;
  SmallVector<unsigned> paramArgs;
  SmallVector<echo::host::ArgumentDraw> draws;
  for (auto [i, type] : llvm::enumerate(model.getArgumentTypes())) {
    auto tt = dyn_cast<RankedTensorType>(type);
    if (!tt ||
        !(tt.getElementType().isF32() || tt.getElementType().isInteger(32))) {
      model.emitError() << "echo-run supports f32 and i32 arguments; argument "
                        << i << " is " << type;
      return 1;
    }
    HostTensor t(tt);
    bool isParam = echo::isParamArgument(model, i);
    if (isParam)
      paramArgs.push_back(i);
    echo::host::ArgumentDraw draw =
        tt.getElementType().isInteger(32)
            ? echo::host::ArgumentDraw::forInteger(
                  integerRange(model.getArgument(i)))
            : echo::host::ArgumentDraw::forFloat(isParam, t.shape());
    draw.fill(t.data(), t.numElements(), seedOpt, i);
    draws.push_back(draw);
    if (!inputsOpt.empty()) {
      SmallString<128> path(inputsOpt);
      llvm::sys::path::append(path, "arg" + std::to_string(i) + ".npy");
      if (llvm::sys::fs::exists(path) && failed(readNpy(path, t, i)))
        return 1;
    }
    args.push_back(std::move(t));
  }
  // The data of --check-gradients, in f64, before any update.
  SmallVector<HostTensor> args64;
  if (checkGradients) {
    for (HostTensor &t : args) {
      RankedTensorType tt = t.type;
      if (tt.getElementType().isF32())
        tt = RankedTensorType::get(tt.getShape(), Float64Type::get(&context));
      HostTensor c(tt);
      for (int64_t e = 0; e < t.numElements(); ++e)
        c.set(e, t.get(e));
      args64.push_back(std::move(c));
    }
  }

  // Compile the training step: autodiff and recomputation, the memory
  // report on the tensor-level step, then the lowering.
  OwningOpRef<ModuleOp> trainModule = module->clone();
  echo::EchoPipelineOptions trainOptions;
  setPipelineOptions(trainOptions, true, optimizerOpt);
  PassManager trainPm(&context, ModuleOp::getOperationName(),
                      OpPassManager::Nesting::Implicit);
  echo::buildEchoTrainingPipeline(trainPm, trainOptions);
  if (failed(trainPm.run(*trainModule)))
    return 1;
  auto trainFunc = trainModule->lookupSymbol<func::FuncOp>(trainName);
  if (!trainFunc) {
    llvm::errs() << "echo-run: no training step @" << trainName << "\n";
    return 1;
  }
  echo::MemoryStats memory = echo::computeMemoryStats(trainFunc);
  // Bufferize and plan, read the plan, then lower to LLVM.
  PassManager bufferPm(&context, ModuleOp::getOperationName(),
                       OpPassManager::Nesting::Implicit);
  echo::buildEchoBufferizationPipeline(bufferPm, trainOptions);
  if (failed(bufferPm.run(*trainModule)))
    return 1;
  trainFunc = trainModule->lookupSymbol<func::FuncOp>(trainName);
  if (auto plan = trainFunc->getAttrOfType<DictionaryAttr>(
          echo::EchoDialect::getBufferPlanAttrName()))
    memory.bufferPlan = plan;
  PassManager pm(&context, ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  echo::buildEchoLLVMPipeline(pm, trainOptions);
  int64_t arenaBytes = 0;
  if (memory.bufferPlan)
    if (auto bytes = memory.bufferPlan->getAs<IntegerAttr>("arena_bytes"))
      arenaBytes = bytes.getInt();

  SmallVector<HostTensor> outs;
  outs.emplace_back(RankedTensorType::get({}, Float32Type::get(&context)));
  for (unsigned i : paramArgs)
    outs.emplace_back(args[i].type);

  if (emitAot) {
    if (failed(pm.run(*trainModule)))
      return 1;
    AotStep step{modelName, onGPU ? "cuda" : "cpu", args, outs, draws,
                 paramArgs, onGPU ? arenaBytes : -1};
    return failed(
        emitAotBundle(*trainModule, trainName, step, memory.toJSON()));
  }

  SmallVector<StringRef> sharedLibs;
  if (onGPU)
    sharedLibs.push_back(cudaRuntimeOpt);
  FailureOr<Compiled> train = compile(*trainModule, pm, trainName, sharedLibs);
  if (failed(train))
    return 1;

  std::optional<CudaStep> gpuStep;
  if (onGPU) {
    gpuStep.emplace(cuda, *train);
    if (failed(gpuStep->allocate(args, outs, arenaBytes)))
      return 1;
  }

  SmallVector<double> losses, times;
  for (unsigned step = 0; step < stepsOpt; ++step) {
    SmallVector<HostTensor *> argPtrs, outPtrs;
    for (HostTensor &t : args)
      argPtrs.push_back(&t);
    for (HostTensor &t : outs)
      outPtrs.push_back(&t);
    if (gpuStep) {
      double ms = 0;
      if (failed(gpuStep->call(args, outs, ms)))
        return 1;
      times.push_back(ms);
    } else {
      auto start = std::chrono::steady_clock::now();
      if (failed(train->call(argPtrs, outPtrs)))
        return 1;
      auto end = std::chrono::steady_clock::now();
      times.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    double loss = outs[0].get(0);
    losses.push_back(loss);
    if (!quietOpt)
      llvm::outs() << llvm::formatv("step {0} loss {1:f6}\n", step, loss);
    if (!std::isfinite(loss)) {
      llvm::errs() << "echo-run: the loss of step " << step
                   << " is not finite (" << loss << ")\n";
      return 1;
    }

    if (step == 0 && !dumpOpt.empty()) {
      if (auto ec = llvm::sys::fs::create_directories(dumpOpt)) {
        llvm::errs() << "echo-run: cannot create " << dumpOpt << ": "
                     << ec.message() << "\n";
        return 1;
      }
      for (auto [k, t] : llvm::enumerate(outs)) {
        SmallString<128> path(dumpOpt);
        llvm::sys::path::append(path, "out" + std::to_string(k) + ".npy");
        if (failed(writeNpy(path, t)))
          return 1;
      }
    }

    if (step == 0 && checkGradients) {
      OwningOpRef<ModuleOp> fdModule = module->clone();
      auto fdModel = fdModule->lookupSymbol<func::FuncOp>(modelName);
      retypeToF64(fdModel);
      PassManager fdPm(&context, ModuleOp::getOperationName(),
                       OpPassManager::Nesting::Implicit);
      echo::EchoPipelineOptions fdOptions;
      setPipelineOptions(fdOptions, false, echo::Optimizer::None);
      // The forward pass only.
      fdOptions.strategy = echo::RecomputeStrategy::None;
      echo::buildEchoPipeline(fdPm, fdOptions);
      FailureOr<Compiled> forward64 = compile(*fdModule, fdPm, modelName);
      if (failed(forward64))
        return 1;
      Rng rng(seedOpt ^ 0x5DEECE66DULL);
      if (failed(checkAllGradients(*forward64, args64, paramArgs,
                                   ArrayRef(outs).drop_front(), rng)))
        return 1;
    }

    // Advance the parameters (an integer one has no gradient: it stays).
    for (auto [k, argIndex] : llvm::enumerate(paramArgs)) {
      HostTensor &p = args[argIndex];
      if (p.isF32())
        mlir::echo::host::updateParameter(
            static_cast<float *>(p.data()),
            static_cast<const float *>(outs[k + 1].data()), p.numElements(),
            sgdInGraph, lrOpt);
    }
  }

  if (!reportOpt.empty()) {
    llvm::json::Array losses_;
    for (double l : losses)
      losses_.push_back(l);
    llvm::json::Object entry = memory.toJSON();
    entry["target"] = onGPU ? "cuda" : "cpu";
    entry["steps"] = static_cast<int64_t>(stepsOpt);
    entry["losses"] = std::move(losses_);
    // The first step includes one-time page faults; report the median.
    entry["step_time_ms"] = median(times);
    if (onGPU) {
      entry["device"] = std::string(cuda.deviceName());
      // Parameters, data, results, the arena and library workspaces.
      entry["device_peak_bytes"] = static_cast<int64_t>(cuda.peakBytes());
    }
    llvm::json::Array report;
    report.push_back(std::move(entry));
    std::string error;
    if (failed(echo::writeJSON(std::move(report), reportOpt, error))) {
      llvm::errs() << "echo-run: " << error << "\n";
      return 1;
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerAllPasses();
  echo::registerAllPasses();
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
  return run(context);
}
