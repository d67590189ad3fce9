//===- echo-opt.cpp - Echo optimizer driver ---------------------*- C++ -*-===//
//
// Part of the Echo project.
//
// mlir-opt with every upstream dialect, extension and pass, plus Echo's.
//
//===----------------------------------------------------------------------===//

#include "echo/InitAllEcho.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::echo::test {
void registerTestPasses();
} // namespace mlir::echo::test

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::echo::registerAllPasses();
  mlir::echo::test::registerTestPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::echo::registerAllDialects(registry);
  // gpu-module-to-binary (echo-pipeline target=nvvm) translates the kernels.
  mlir::registerAllGPUToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Echo optimizer driver\n", registry));
}
