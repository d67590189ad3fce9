//===- Jit.cpp - JIT-compiled training steps ------------------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/Jit.h"

#include "EchoCountingAllocator.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::echo;

FailureOr<JitStep> JitStep::compile(ModuleOp module, StringRef function,
                                    unsigned optLevel,
                                    ArrayRef<StringRef> sharedLibs) {
  // LLVM's optimizations must know the host (vector widths, costs): without
  // a target machine the loop vectorizer sees a generic target and leaves
  // the kernels' loops scalar.
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    llvm::errs() << "echo-run: cannot describe the host: "
                 << llvm::toString(builder.takeError()) << "\n";
    return failure();
  }
  auto machine = builder->createTargetMachine();
  if (!machine) {
    llvm::errs() << "echo-run: cannot target the host: "
                 << llvm::toString(machine.takeError()) << "\n";
    return failure();
  }
  auto transformer =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, machine->get());
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.sharedLibPaths = sharedLibs;
  options.jitCodeGenOptLevel = optLevel == 0 ? llvm::CodeGenOptLevel::None
                                             : llvm::CodeGenOptLevel::Default;
  auto engine = ExecutionEngine::create(module, options);
  if (!engine) {
    llvm::errs() << "echo-run: JIT compilation failed: "
                 << llvm::toString(engine.takeError()) << "\n";
    return failure();
  }
  JitStep step;
  step.engine = std::move(*engine);
  step.entry = ("_mlir_ciface_" + function).str();
  // Strided copies that bufferization could not turn into loops call the
  // MLIR C runner's memrefCopy; memref.alloc and dealloc call the generic
  // allocation functions, which count the step's bytes.
  step.engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](StringRef name, auto *fn) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                                 llvm::JITSymbolFlags::Exported};
    };
    add("memrefCopy", &memrefCopy);
    add("_mlir_memref_to_llvm_alloc", &host::stepAlloc);
    add("_mlir_memref_to_llvm_aligned_alloc", &host::stepAlignedAlloc);
    add("_mlir_memref_to_llvm_free", &host::stepFree);
    return symbols;
  });
  step.engine->initialize();
  // Materialize now, so that the JIT's compile time is not the first step's.
  if (auto fn = step.engine->lookupPacked(step.entry); !fn) {
    llvm::errs() << "echo-run: JIT compilation failed: "
                 << llvm::toString(fn.takeError()) << "\n";
    return failure();
  }
  return step;
}

FailureOr<JitStep> JitStep::getSibling(StringRef function) const {
  JitStep step;
  step.engine = engine;
  step.entry = ("_mlir_ciface_" + function).str();
  if (auto fn = step.engine->lookupPacked(step.entry); !fn) {
    llvm::errs() << "echo-run: no compiled entry " << step.entry << ": "
                 << llvm::toString(fn.takeError()) << "\n";
    return failure();
  }
  return step;
}

LogicalResult JitStep::call(ArrayRef<HostTensor *> args,
                            ArrayRef<HostTensor *> outs) {
  SmallVector<int64_t *> descriptors;
  for (HostTensor *t : llvm::concat<HostTensor *const>(args, outs))
    descriptors.push_back(t->getDescriptor());
  return invoke(descriptors);
}

LogicalResult JitStep::invoke(ArrayRef<int64_t *> descriptors) {
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
