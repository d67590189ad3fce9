//===- Machine.cpp - The time model's rates from a calibration ------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/Machine.h"
#include "echo/Support/Nesting.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace mlir::echo;

std::optional<MachineRates>
mlir::echo::readMachineCalibration(llvm::StringRef path, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read the machine calibration '" + path.str() +
            "': " + buffer.getError().message();
    return std::nullopt;
  }
  // llvm::json::parse recurses once per level: bounded first.
  std::string deep;
  if (failed(checkJSONNesting((*buffer)->getBuffer(), deep))) {
    error = "the machine calibration '" + path.str() + "' " + deep;
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    error = "the machine calibration '" + path.str() +
            "' is not JSON: " + llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *record = parsed->getAsObject();
  const llvm::json::Object *measured =
      record ? record->getObject("measured") : nullptr;
  if (!measured) {
    error = "the machine calibration '" + path.str() +
            "' has no \"measured\" object (write it with bench/machine.py)";
    return std::nullopt;
  }
  MachineRates rates;
  for (auto [key, into] :
       {std::pair<llvm::StringRef, double *>{"sgemm_gflops", &rates.peakGflops},
        {"triad_gbps", &rates.memoryGbps}}) {
    std::optional<double> value = measured->getNumber(key);
    if (!value || !std::isfinite(*value) || *value <= 0 || *value >= 1e9) {
      error = "the machine calibration '" + path.str() + "' has no measured." +
              key.str() + " (a positive rate below 1e9)";
      return std::nullopt;
    }
    *into = *value;
  }
  return rates;
}
