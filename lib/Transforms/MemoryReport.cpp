//===- MemoryReport.cpp - echo-memory-report ------------------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Transforms/Passes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOMEMORYREPORT
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

LogicalResult mlir::echo::writeMemoryReport(ModuleOp module, StringRef output) {
  llvm::json::Array report;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(EchoDialect::getTrainStepAttrName()))
      report.push_back(computeMemoryStats(func).toJSON());
  std::string text =
      llvm::formatv("{0:2}", llvm::json::Value(std::move(report))).str();
  if (output == "-") {
    llvm::outs() << text << "\n";
    return success();
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(output, ec);
  if (ec)
    return module.emitError() << "echo-memory-report: cannot write '" << output
                              << "': " << ec.message();
  os << text << "\n";
  return success();
}

namespace {
struct EchoMemoryReportPass
    : public echo::impl::EchoMemoryReportBase<EchoMemoryReportPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(writeMemoryReport(getOperation(), output)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
