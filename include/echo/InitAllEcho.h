//===- InitAllEcho.h - Register everything Echo provides --------*- C++ -*-===//
//
// Part of the Echo project.
//
// For tools and downstream compilers that embed Echo: one call registers the
// dialect, one the passes.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_INITALLECHO_H
#define ECHO_INITALLECHO_H

#include "echo/Conversion/Passes.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Interfaces/ExternalModels.h"
#include "echo/Pipelines/ForeignStep.h"
#include "echo/Pipelines/Pipelines.h"
#include "echo/Target/CPU/Passes.h"
#include "echo/Target/GPU/Passes.h"
#include "echo/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::echo {

/// Adds the Echo dialect to `registry`, and Echo's models of foreign ops
/// (TOSA, linalg, tensor, arith, math), which attach when their dialect is
/// loaded.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<EchoDialect>();
  registerExternalModels(registry);
}

/// Registers Echo's passes and pipelines with the global registry.
inline void registerAllPasses() {
  registerEchoPasses();
  registerEchoConversionPasses();
  registerEchoCPUPasses();
  registerEchoGPUPasses();
  registerEchoPipelines();
  registerEchoForeignStepPipeline();
}

} // namespace mlir::echo

#endif // ECHO_INITALLECHO_H
