//===- MemoryReport.cpp - echo-memory-report ------------------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Transforms/Passes.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOMEMORYREPORT
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

LogicalResult mlir::echo::writeMemoryReport(ModuleOp module, StringRef output) {
  llvm::json::Array report;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(EchoDialect::getTrainStepAttrName()))
      continue;
    FailureOr<MemoryStats> stats = getReportedMemoryStats(func);
    if (failed(stats))
      return failure();
    report.push_back(stats->toJSON());
  }
  std::string error;
  if (failed(writeJSON(std::move(report), output, error)))
    return module.emitError() << "echo-memory-report: " << error;
  return success();
}

namespace {
struct EchoMemoryReportPass
    : public echo::impl::EchoMemoryReportBase<EchoMemoryReportPass> {
  using Base::Base;
  void runOnOperation() override {
    if (attach) {
      for (auto func : getOperation().getOps<func::FuncOp>())
        if (func->hasAttr(EchoDialect::getTrainStepAttrName()))
          func->setAttr(EchoDialect::getMemoryStatsAttrName(),
                        computeMemoryStats(func).toAttr(&getContext()));
      return;
    }
    if (failed(writeMemoryReport(getOperation(), output)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
