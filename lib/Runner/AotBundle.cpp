//===- AotBundle.cpp - Ahead-of-time training-step executables ------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/AotBundle.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"

#include "EchoStepManifest.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/raw_sha1_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::echo;

/// The flag the errors name: --emit-aot or --emit-library (set by the
/// entry points from their options).
static const char *bundleFlag = "--emit-aot";

static LogicalResult aotError(const Twine &msg) {
  llvm::errs() << "echo-run: " << bundleFlag << ": " << msg << "\n";
  return failure();
}

static void setBundleFlag(const AotBundleOptions &options) {
  bundleFlag = options.sharedLibrary ? "--emit-library" : "--emit-aot";
}

/// Adds the constant NUL-terminated string `name` = `text` to `module`.
static void addString(llvm::Module &module, StringRef name, StringRef text) {
  llvm::Constant *init = llvm::ConstantDataArray::getString(
      module.getContext(), text, /*AddNull=*/true);
  new llvm::GlobalVariable(module, init->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, init, name);
}

/// The hex SHA-1 of `module`'s bitcode: the step hash of the manifest.
static std::string hashModule(const llvm::Module &module) {
  llvm::raw_sha1_ostream os;
  llvm::WriteBitcodeToFile(module, os);
  return llvm::toHex(os.sha1(), /*LowerCase=*/true);
}

/// Translates the lowered `module` to LLVM IR, sets the step hash of
/// `signature` from it, adds `echo_aot_step(void **)` (calls
/// `_mlir_ciface_<entry>` with the descriptors it is given),
/// `echo_aot_num_descriptors` and the texts echo-step checks the bundle's
/// files against (`echo_step_signature`, `echo_step_memory_report`),
/// optimizes and writes an object file.
static LogicalResult emitStepObject(ModuleOp module, StringRef entry,
                                    bool onGPU, unsigned optLevel,
                                    host::StepManifest &signature,
                                    StringRef memoryReport, StringRef path) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "echo-step");
  if (!llvmModule)
    return aotError("cannot translate the step to LLVM IR");
  signature.stepHash = hashModule(*llvmModule);
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
  builder->setCodeGenOptLevel(optLevel == 0
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
  if (callee->arg_size() != signature.numDescriptors())
    return aotError(llvm::formatv(
        "_mlir_ciface_{0} takes {1} descriptors, but the step's signature "
        "lists {2}",
        entry, callee->arg_size(), signature.numDescriptors()));
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
  addString(*llvmModule, "echo_step_signature", signature.print());
  addString(*llvmModule, "echo_step_memory_report", memoryReport);

  auto transformer =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, machine->get());
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

/// Writes `text` to DIR/`name`.
static LogicalResult writeBundleFile(StringRef dir, StringRef name,
                                     StringRef text) {
  SmallString<128> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return aotError("cannot write " + path + ": " + ec.message());
  os << text;
  return success();
}

/// The element type a bundle names `dtype`, if it passes it.
static std::optional<std::string> getBundleDType(Type type) {
  if (type.isF32())
    return std::string("f32");
  if (type.isInteger(32))
    return std::string("i32");
  if (type.isInteger(64))
    return std::string("i64");
  return std::nullopt;
}

/// The row-major, statically shaped memref type the driver passes for
/// operand `index` of `step` (it describes every buffer that way), or an
/// error.
static FailureOr<MemRefType> getPassedType(func::FuncOp step, unsigned index) {
  auto type = dyn_cast<MemRefType>(step.getArgumentTypes()[index]);
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity()) {
    (void)aotError(llvm::formatv(
        "operand {0} of @{1} is {2}; a bundle passes row-major, statically "
        "shaped memrefs",
        index, step.getSymName(), step.getArgumentTypes()[index]));
    return failure();
  }
  return type;
}

FailureOr<host::StepManifest>
mlir::echo::describeAotStep(func::FuncOp step, const AotBundleOptions &options,
                            ArrayRef<AotArgument> argInfo,
                            ArrayRef<HostTensor> args,
                            ArrayRef<HostTensor> outs) {
  setBundleFlag(options);
  host::StepManifest m;
  bool onGPU = options.target == Target::NVVM;
  m.model = options.model;
  m.target = onGPU ? "cuda" : "cpu";
  if (onGPU)
    m.chip = options.chip;
  m.seed = options.seed;
  m.optimizer = stringifyOptimizer(options.optimizer).str();
  m.lr = options.lr;

  unsigned numOperands = step.getNumArguments();
  bool hasArena = numOperands > 0 &&
                  step.getArgAttr(numOperands - 1,
                                  EchoDialect::getArenaAttrName()) != nullptr;
  unsigned numTensors = numOperands - (hasArena ? 1 : 0);
  if (argInfo.size() != args.size() || numTensors != args.size() + outs.size())
    return aotError(llvm::formatv(
        "@{0} takes {1} buffers, but echo-run draws {2} arguments and "
        "returns {3} results",
        step.getSymName(), numTensors, args.size(), outs.size()));
  // The step's own types are what the bundle describes; echo-run's tensors
  // must agree with them (else echo-run and the bundle would train apart).
  for (unsigned i = 0; i < numTensors; ++i) {
    FailureOr<MemRefType> type = getPassedType(step, i);
    if (failed(type))
      return failure();
    bool isArg = i < args.size();
    const HostTensor &drawn = isArg ? args[i] : outs[i - args.size()];
    std::optional<std::string> dtype = getBundleDType(type->getElementType());
    if (!dtype || type->getShape() != drawn.getType().getShape() ||
        type->getElementType() != drawn.getType().getElementType())
      return aotError(llvm::formatv(
          "operand {0} of @{1} is {2}, but echo-run's {3} {4} is {5}", i,
          step.getSymName(), *type, isArg ? "argument" : "result",
          isArg ? i : i - args.size(), drawn.getType()));
    host::StepTensor t;
    t.dtype = *dtype;
    t.shape.assign(type->getShape().begin(), type->getShape().end());
    if (isArg) {
      const AotArgument &info = argInfo[i];
      t.role = info.isParam         ? host::ArgRole::Param
               : info.isState       ? host::ArgRole::State
               : info.isSeed        ? host::ArgRole::Seed
               : info.hyper.empty() ? host::ArgRole::Data
                                    : host::ArgRole::Hyper;
      t.hyper = info.hyper;
      t.range = info.range;
      t.hasIgnored = info.ignored.has_value();
      t.ignored = info.ignored.value_or(0);
      m.args.push_back(std::move(t));
    } else {
      m.outs.push_back(std::move(t));
    }
  }
  // The values of the hyperparameters the step takes, but for lr (its own
  // line) and the step count (the driver's).
  for (const char *key : host::StepManifest::hyperKeys()) {
    if (llvm::none_of(argInfo,
                      [&](const AotArgument &a) { return a.hyper == key; }))
      continue;
    auto value = options.hypers.find(key);
    if (value == options.hypers.end())
      return aotError(llvm::formatv("@{0} takes hyperparameter '{1}', which "
                                    "has no value",
                                    step.getSymName(), key));
    host::StepManifest::Hyper h;
    h.key = key;
    h.value = value->second;
    m.hypers.push_back(h);
  }
  if (hasArena) {
    FailureOr<MemRefType> arena = getPassedType(step, numOperands - 1);
    if (failed(arena))
      return failure();
    m.arenaBytes = arena->getNumElements() *
                   arena->getElementType().getIntOrFloatBitWidth() / 8;
  }
  return m;
}

/// Copies `from` into `dir` (keeping its file name) and returns the copy.
static FailureOr<std::string> copyInto(StringRef dir, StringRef from) {
  SmallString<128> to(dir);
  llvm::sys::path::append(to, llvm::sys::path::filename(from));
  if (std::error_code ec = llvm::sys::fs::copy_file(from, to))
    return aotError("cannot copy " + from + " to " + to + ": " + ec.message());
  return std::string(to);
}

/// Compiles the lowered step into DIR: step.o, the manifest, the memory
/// report and DIR/echo-step (linked with the C++ compiler driver).
LogicalResult mlir::echo::emitAotBundle(ModuleOp module,
                                        const AotBundleOptions &options,
                                        const host::StepManifest &signature,
                                        const llvm::json::Object &memory) {
  setBundleFlag(options);
  StringRef dir = options.dir;
  bool onGPU = options.target == Target::NVVM;
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return aotError("cannot create " + dir + ": " + ec.message());
  SmallString<128> object(dir), executable(dir);
  llvm::sys::path::append(object, "step.o");
  llvm::sys::path::append(executable, options.sharedLibrary ? "libechostep.so"
                                                            : "echo-step");
  host::StepManifest manifest = signature;
  std::string memoryReport;
  llvm::raw_string_ostream(memoryReport)
      << llvm::json::Value(llvm::json::Object(memory)) << "\n";
  if (failed(emitStepObject(module, options.entry, onGPU, options.optLevel,
                            manifest, memoryReport, object)) ||
      failed(writeBundleFile(dir, "manifest.txt", manifest.print())) ||
      failed(writeBundleFile(dir, "memory.json", memoryReport)))
    return failure();

  StringRef stepMain = options.stepMainLibrary;
  if (stepMain.empty() || !llvm::sys::fs::exists(stepMain))
    return aotError(Twine("the step ") +
                    (options.sharedLibrary
                         ? "library's front (libEchoStepLibrary.a)"
                         : "driver library (libEchoStepMain.a)") +
                    " is missing" +
                    (stepMain.empty() ? Twine() : " at '" + stepMain + "'"));
  auto cxx = llvm::sys::findProgramByName(options.cxx);
  if (!cxx)
    return aotError("cannot find the C++ compiler '" + options.cxx +
                    "' to link the bundle (pass --aot-cxx=)");
  SmallVector<std::string> command = {*cxx, std::string(object)};
  // Nothing in the step refers to a library's C front: link it whole.
  if (options.sharedLibrary)
    command.append(
        {"-Wl,--whole-archive", stepMain.str(), "-Wl,--no-whole-archive"});
  else
    command.push_back(stepMain.str());
  command.append({"-o", std::string(executable)});
  // A library loaded into another program binds its own symbols first (the
  // allocation functions, memrefCopy): two steps loaded side by side keep
  // their own allocators.
  // It exports only its C front (echo_step_*): the runtime's and the step's
  // own symbols stay inside.
  if (options.sharedLibrary) {
    if (failed(writeBundleFile(dir, "exports.map",
                               "{ global: echo_step_*; local: *; };\n")))
      return failure();
    SmallString<128> exports(dir);
    llvm::sys::path::append(exports, "exports.map");
    command.append({"-shared", "-Wl,-Bsymbolic",
                    ("-Wl,--version-script=" + exports).str()});
  }
  // The CUDA runtime library sits beside the executable; the CPU runtime
  // (for library calls) is linked in. (Linked this way, a bundle needs
  // glibc 2.34 and libstdc++ from GCC 11 or newer.)
  if (onGPU) {
    auto runtime = copyInto(dir, options.cudaRuntime);
    if (failed(runtime))
      return failure();
    command.push_back(*runtime);
  } else if (!options.cpuRuntimeArchive.empty()) {
    if (!llvm::sys::fs::exists(options.cpuRuntimeArchive))
      return aotError("the CPU runtime's archive is missing at '" +
                      options.cpuRuntimeArchive + "'");
    command.push_back(options.cpuRuntimeArchive);
  }
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
