//===- AotBundle.cpp - Ahead-of-time training-step executables ------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/AotBundle.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::echo;

static LogicalResult aotError(const Twine &msg) {
  llvm::errs() << "echo-run: --emit-aot: " << msg << "\n";
  return failure();
}

/// Translates the lowered `module` to LLVM IR, adds `echo_aot_step(void **)`
/// (calls `_mlir_ciface_<entry>` with the descriptors it is given) and
/// `echo_aot_num_descriptors`, optimizes and writes an object file.
static LogicalResult emitStepObject(ModuleOp module, StringRef entry,
                                    bool onGPU, unsigned optLevel,
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

/// Writes DIR/manifest.txt (what runtime/aot/EchoStepMain.cpp reads) and
/// DIR/memory.json.
static LogicalResult writeManifest(const AotBundleOptions &options,
                                   ArrayRef<HostTensor> args,
                                   ArrayRef<AotArgument> argInfo,
                                   ArrayRef<HostTensor> outs,
                                   const llvm::json::Object &memory) {
  auto writeFile = [&](StringRef name, auto &&write) -> LogicalResult {
    SmallString<128> path(options.dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return aotError("cannot write " + path + ": " + ec.message());
    write(os);
    return success();
  };
  auto shape = [](llvm::raw_ostream &os, const HostTensor &t) {
    os << t.getType().getRank();
    for (int64_t d : t.getType().getShape())
      os << " " << d;
    os << "\n";
  };
  bool onGPU = options.target == Target::NVVM;
  if (failed(writeFile("manifest.txt", [&](llvm::raw_ostream &os) {
        os << "echo-step-bundle 1\n";
        os << "model " << options.model << "\n";
        os << "target " << (onGPU ? "cuda" : "cpu") << "\n";
        if (onGPU)
          os << "chip " << options.chip << "\n";
        os << "seed " << options.seed << "\n";
        os << "optimizer " << stringifyOptimizer(options.optimizer) << "\n";
        os << llvm::formatv("lr {0:e16}\n", options.lr);
        os << "arena_bytes " << options.arenaBytes << "\n";
        for (auto [i, t] : llvm::enumerate(args)) {
          os << "arg " << i << " " << (t.isF32() ? "f32" : "i32") << " "
             << (argInfo[i].isParam ? "param" : "data") << " "
             << argInfo[i].range << " ";
          shape(os, t);
        }
        for (auto [k, t] : llvm::enumerate(outs)) {
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
                                        ArrayRef<HostTensor> args,
                                        ArrayRef<AotArgument> argInfo,
                                        ArrayRef<HostTensor> outs,
                                        const llvm::json::Object &memory) {
  StringRef dir = options.dir;
  bool onGPU = options.target == Target::NVVM;
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return aotError("cannot create " + dir + ": " + ec.message());
  SmallString<128> object(dir), executable(dir);
  llvm::sys::path::append(object, "step.o");
  llvm::sys::path::append(executable, "echo-step");
  if (failed(emitStepObject(module, options.entry, onGPU, options.optLevel,
                            object)) ||
      failed(writeManifest(options, args, argInfo, outs, memory)))
    return failure();

  StringRef stepMain = options.stepMainLibrary;
  if (stepMain.empty() || !llvm::sys::fs::exists(stepMain))
    return aotError("the step driver library (libEchoStepMain.a) is missing" +
                    (stepMain.empty() ? Twine() : " at '" + stepMain + "'"));
  auto cxx = llvm::sys::findProgramByName(options.cxx);
  if (!cxx)
    return aotError("cannot find the C++ compiler '" + options.cxx +
                    "' to link the bundle (pass --aot-cxx=)");
  SmallVector<std::string> command = {*cxx, std::string(object), stepMain.str(),
                                      "-o", std::string(executable)};
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
