//===- MergeGPUModules.cpp - One gpu.module for every kernel --------------===//
//
// Part of the Echo project.
//
// echo-merge-gpu-modules (see Passes.td): gpu-kernel-outlining makes one
// gpu.module per kernel and gpu-module-to-binary runs ptxas once per module;
// one module for the whole step means one ptxas run.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOMERGEGPUMODULES
#include "echo/Target/GPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {
struct EchoMergeGPUModulesPass
    : public echo::impl::EchoMergeGPUModulesBase<EchoMergeGPUModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernelModules(
        module.getOps<gpu::GPUModuleOp>());
    if (kernelModules.size() < 2)
      return;
    for (gpu::GPUModuleOp kernels : kernelModules)
      if (kernels.getTargetsAttr() || kernels.getOffloadingHandlerAttr()) {
        kernels.emitError("echo-merge-gpu-modules: run before a target is "
                          "attached");
        return signalPassFailure();
      }
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    OpBuilder b(kernelModules.front());
    auto merged = gpu::GPUModuleOp::create(b, module.getLoc(), "echo_kernels");
    symbols.insert(merged);

    // Old (module, kernel) reference -> new kernel name. A module's symbols
    // are renamed after the module (unique in the host module's table).
    DenseMap<SymbolRefAttr, StringAttr> renamed;
    for (gpu::GPUModuleOp kernels : kernelModules) {
      SmallVector<Operation *> members =
          llvm::to_vector(llvm::map_range(kernels.getBody()->getOperations(),
                                          [](Operation &op) { return &op; }));
      for (Operation *op : members) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol) {
          op->emitError("echo-merge-gpu-modules: expects only symbols in an "
                        "outlined kernel module");
          return signalPassFailure();
        }
        StringAttr oldName = symbol.getNameAttr();
        StringAttr newName =
            members.size() == 1 ? kernels.getNameAttr()
                                : StringAttr::get(ctx, kernels.getName() + "_" +
                                                           oldName.getValue());
        if (failed(SymbolTable::replaceAllSymbolUses(oldName, newName,
                                                     kernels.getOperation())))
          return signalPassFailure();
        SymbolTable::setSymbolName(op, newName);
        renamed[SymbolRefAttr::get(kernels.getNameAttr(),
                                   {FlatSymbolRefAttr::get(oldName)})] =
            newName;
      }
      for (Operation *op : members)
        op->moveBefore(merged.getBody(), merged.getBody()->end());
      kernels.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = renamed.find(launch.getKernel());
      if (it != renamed.end())
        launch.setKernelAttr(SymbolRefAttr::get(
            merged.getNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
  }
};
} // namespace
