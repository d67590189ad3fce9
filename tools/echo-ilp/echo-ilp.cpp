//===- echo-ilp.cpp - The optimal recompute reference -----------*- C++ -*-===//
//
// Part of the Echo project.
//
// echo-ilp <model.mlir> --budget=<b> [--budget=<b>...] [--min-peak]
//          [--time-limit=<s>] [--max-nonzeros=<n>] [--function=<name>]
//          [-o <json>]
//
// Solves the recompute integer program (echo/Transforms/RecomputeILP.h)
// of each training step at each budget with COIN-OR CBC, and puts the
// budget strategy's plan beside every solution. The input is a model (SPEC.md
// convention; echo-autodiff builds its steps) or steps echo-autodiff built.
// Each solve, its first LP relaxation included, stops at --time-limit (60 s
// by default); a program of more than --max-nonzeros is refused before it is
// solved. What is being solved and how each solve ended is said on stderr. A
// thin main over compareBudgetWithILP.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/InitAllEcho.h"
#include "echo/Support/CommandLine.h"
#include "echo/Support/Nesting.h"
#include "echo/Transforms/Passes.h"
#include "echo/Transforms/RecomputeILP.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>

using namespace mlir;
namespace cl = llvm::cl;

/// echo-ilp's own options: --help shows these only (LLVM's stay under
/// --help-hidden).
static cl::OptionCategory ilpCategory("echo-ilp options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<model.mlir>"),
                                          cl::Required, cl::cat(ilpCategory));
static cl::list<std::string> budgetsOpt(
    "budget",
    cl::desc("A budget to solve at: bytes (1073741824, 512MiB, 800MB) or a "
             "share of strategy none's estimated bytes (0.5, 50%); repeatable"),
    cl::cat(ilpCategory));
static cl::opt<bool> minPeakOpt(
    "min-peak",
    cl::desc("Also solve for the smallest peak the program allows, then for "
             "the fewest recompute FLOPs within it"),
    cl::cat(ilpCategory));
static cl::opt<double> timeLimitOpt(
    "time-limit",
    cl::desc("Seconds (wall clock) the solver may take per solve; the best "
             "solution found by then is reported as feasible"),
    cl::init(60.0), cl::cat(ilpCategory));
static cl::opt<int64_t> maxNonzerosOpt(
    "max-nonzeros",
    cl::desc("Refuse a program of more nonzeros (CBC needs about 300 bytes "
             "each; the default is about 600 MB)"),
    cl::init(echo::RecomputeILP::defaultMaxNonzeros), cl::cat(ilpCategory));
static cl::opt<std::string>
    functionOpt("function", cl::desc("Only the training step of this name"),
                cl::init(""), cl::cat(ilpCategory));
static cl::opt<std::string> outputOpt("o",
                                      cl::desc("JSON output ('-': stdout)"),
                                      cl::value_desc("path"), cl::init(""),
                                      cl::cat(ilpCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  echo::hideUnrelatedOptions(ilpCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "Echo's optimal recompute reference (CBC)\n");

  echo::ILPComparisonOptions options;
  for (const std::string &text : budgetsOpt) {
    std::string error;
    std::optional<echo::RecomputeBudget> budget =
        echo::parseRecomputeBudget(text, error);
    if (!budget) {
      llvm::errs() << "echo-ilp: --budget=" << text << ": " << error << "\n";
      return 1;
    }
    options.budgets.push_back(*budget);
  }
  if (options.budgets.empty() && !minPeakOpt) {
    llvm::errs() << "echo-ilp: nothing to solve: give --budget=<b> or "
                    "--min-peak\n";
    return 1;
  }
  if (!std::isfinite(timeLimitOpt) || !(timeLimitOpt > 0)) {
    llvm::errs() << "echo-ilp: --time-limit must be a positive number of "
                    "seconds, got "
                 << llvm::format("%g", timeLimitOpt.getValue()) << "\n";
    return 1;
  }
  if (maxNonzerosOpt <= 0) {
    llvm::errs() << "echo-ilp: --max-nonzeros must be positive, got "
                 << maxNonzerosOpt << "\n";
    return 1;
  }
  options.maxNonzeros = maxNonzerosOpt;
  options.minPeak = minPeakOpt;
  options.solver.timeLimitSeconds = timeLimitOpt;
  options.log = &llvm::errs();

  DialectRegistry registry;
  registerAllDialects(registry);
  echo::registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << "echo-ilp: " << error << "\n";
    return 1;
  }
  // The parser recurses once per level of nesting: bounded first.
  if (failed(echo::checkMLIRNesting(*file, error))) {
    llvm::errs() << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  // Past the parser, diagnostics are about whole steps (one refused, one a
  // strategy rewrote): one line each, at the step, without its source line.
  ScopedDiagnosticHandler oneLine(&context, [&](Diagnostic &d) {
    handler.emitDiagnostic(d.getLocation(), d.str(), d.getSeverity(),
                           /*displaySourceLine=*/false);
    for (Diagnostic &note : d.getNotes())
      handler.emitDiagnostic(note.getLocation(), note.str(), note.getSeverity(),
                             /*displaySourceLine=*/false);
    return success();
  });

  auto isStep = [](func::FuncOp f) {
    return f->hasAttr("echo.train_step") && !f.isExternal();
  };
  if (llvm::none_of(module->getOps<func::FuncOp>(), isStep)) {
    // A model: echo-autodiff builds its training steps.
    PassManager pm(&context);
    pm.addPass(echo::createEchoAutodiff());
    if (failed(pm.run(*module)))
      return 1;
  }

  llvm::json::Array out;
  bool found = false;
  for (func::FuncOp func : module->getOps<func::FuncOp>()) {
    if (!isStep(func) ||
        (!functionOpt.empty() && func.getSymName() != functionOpt &&
         func.getSymName() != functionOpt + "_train"))
      continue;
    found = true;
    FailureOr<llvm::json::Object> result =
        echo::compareBudgetWithILP(func, options, llvm::outs());
    if (failed(result))
      return 1;
    out.push_back(std::move(*result));
  }
  if (!found) {
    llvm::errs() << "echo-ilp: " << inputFilename << " has no training step"
                 << (functionOpt.empty() ? "" : " named " + functionOpt)
                 << "\n";
    return 1;
  }
  if (!outputOpt.empty()) {
    if (failed(echo::writeJSON(std::move(out), outputOpt, error))) {
      llvm::errs() << "echo-ilp: " << error << "\n";
      return 1;
    }
  }
  return 0;
}
