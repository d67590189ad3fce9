//===- Options.cpp - Typed values of Echo's pass options ------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/Options.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir::echo;

llvm::StringRef mlir::echo::stringifyRecomputeStrategy(RecomputeStrategy s) {
  switch (s) {
  case RecomputeStrategy::None:
    return "none";
  case RecomputeStrategy::Mirror:
    return "mirror";
  case RecomputeStrategy::Sublinear:
    return "sublinear";
  case RecomputeStrategy::Echo:
    return "echo";
  }
  llvm_unreachable("unknown recompute strategy");
}

llvm::StringRef mlir::echo::stringifyOptimizer(Optimizer optimizer) {
  switch (optimizer) {
  case Optimizer::None:
    return "none";
  case Optimizer::Sgd:
    return "sgd";
  }
  llvm_unreachable("unknown optimizer");
}

llvm::StringRef mlir::echo::stringifyArenaKind(ArenaKind arena) {
  switch (arena) {
  case ArenaKind::Alloc:
    return "alloc";
  case ArenaKind::Argument:
    return "argument";
  }
  llvm_unreachable("unknown arena kind");
}

llvm::StringRef mlir::echo::stringifyTarget(Target target) {
  switch (target) {
  case Target::CPU:
    return "cpu";
  case Target::NVVM:
    return "nvvm";
  }
  llvm_unreachable("unknown target");
}

llvm::StringRef mlir::echo::stringifyGpuFormat(GpuFormat format) {
  switch (format) {
  case GpuFormat::Fatbin:
    return "fatbin";
  case GpuFormat::Bin:
    return "bin";
  case GpuFormat::Isa:
    return "isa";
  }
  llvm_unreachable("unknown gpu format");
}
