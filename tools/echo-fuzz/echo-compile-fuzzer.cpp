//===- echo-compile-fuzzer.cpp - libFuzzer target of the compiler path ----===//
//
// Part of the Echo project.
//
// Any input is parsed as an MLIR module (func, arith, tensor and echo
// dialects) and, if it parses and verifies, taken through what a user's
// model goes through first: echo-verify-model, echo-autodiff, then
// echo-recompute with each strategy (on copies) and the memory report of
// each step. Diagnostics are expected and swallowed; a crash, a sanitizer
// report or a hang (libFuzzer's -timeout) is a bug. utils/run-fuzzers.sh
// builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Support/Nesting.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;
using namespace mlir::echo;

namespace {

MLIRContext &getContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registry.insert<EchoDialect, func::FuncDialect, arith::ArithDialect,
                    tensor::TensorDialect>();
    auto *c = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *context;
}

/// Runs `build`'s passes on `module`; false if a pass failed.
template <typename Build> bool run(ModuleOp module, Build build) {
  PassManager pm(module.getContext());
  build(pm);
  return succeeded(pm.run(module));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = getContext();
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(
          StringRef(reinterpret_cast<const char *>(data), size), "fuzz");
  // Echo's tools refuse what nests deeper than the parser's stack allows
  // before parsing it (echo/Support/Nesting.h); so does the fuzzer.
  std::string error;
  if (failed(checkMLIRNesting(*buffer, error)))
    return 0;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 0;
  if (!run(*module, [](PassManager &pm) {
        pm.addPass(createEchoVerifyModel());
        pm.addPass(createEchoAutodiff());
      }))
    return 0;
  for (RecomputeStrategy strategy :
       {RecomputeStrategy::None, RecomputeStrategy::Mirror,
        RecomputeStrategy::Sublinear, RecomputeStrategy::Echo,
        RecomputeStrategy::Budget}) {
    OwningOpRef<ModuleOp> copy = cast<ModuleOp>((*module)->clone());
    EchoRecomputeOptions options;
    options.strategy = strategy;
    if (strategy == RecomputeStrategy::Budget)
      options.budget = "0.8"; // every candidate is made and estimated
    if (!run(*copy, [&](PassManager &pm) {
          pm.addPass(createEchoRecompute(options));
        }))
      continue;
    for (auto func : copy->getOps<func::FuncOp>())
      if (func->hasAttr(EchoDialect::getTrainStepAttrName())) {
        MemoryStats stats = computeMemoryStats(func);
        (void)llvm::json::Value(stats.toJSON());
      }
  }
  return 0;
}
