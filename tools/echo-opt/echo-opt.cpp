//===- echo-opt.cpp - Echo optimizer driver ---------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// mlir-opt with every upstream dialect, extension and pass, plus Echo's.
// The input is read here and its nesting bounded (echo/Support/Nesting.h)
// before MlirOptMain parses it: the parser recurses once per level, and
// 5,000 nested regions overflowed its stack.
//
//===----------------------------------------------------------------------===//

#include "echo/InitAllEcho.h"
#include "echo/Support/Nesting.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

namespace mlir::echo::test {
void registerTestPasses();
} // namespace mlir::echo::test

using namespace mlir;

int main(int argc, char **argv) {
  registerAllPasses();
  echo::registerAllPasses();
  echo::test::registerTestPasses();

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  echo::registerAllDialects(registry);
  // gpu-module-to-binary (echo-pipeline target=nvvm) translates the kernels.
  registerAllGPUToLLVMIRTranslations(registry);

  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "Echo optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // Listing dialects or passes reads no input: MlirOptMain's own path.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  // From here as MlirOptMain does it, with the input bounded before it is
  // parsed.
  llvm::InitLLVM y(argc, argv);
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (failed(echo::checkMLIRNesting(*file, error))) {
    llvm::errs() << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  // Keep the output file only when the run succeeded.
  output->keep();
  return 0;
}
