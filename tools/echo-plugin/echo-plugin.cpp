//===- echo-plugin.cpp - Echo as an mlir-opt plugin -------------*- C++ -*-===//
//
// Part of the Echo project.
//
// Lets stock `mlir-opt` use Echo:
//   mlir-opt --load-dialect-plugin=EchoPlugin.so \
//            --load-pass-plugin=EchoPlugin.so --echo-verify-model model.mlir
//
//===----------------------------------------------------------------------===//

#include "echo/InitAllEcho.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

/// Entry point of `--load-dialect-plugin`.
extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Echo", LLVM_VERSION_STRING,
          [](::mlir::DialectRegistry *registry) {
            ::mlir::echo::registerAllDialects(*registry);
          }};
}

/// Entry point of `--load-pass-plugin`.
extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "EchoPasses", LLVM_VERSION_STRING,
          []() { ::mlir::echo::registerAllPasses(); }};
}
