//===- TimeModel.cpp - Seconds of a training step's ops -------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/TimeModel.h"

#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::echo;

double RooflineModel::getSeconds(int64_t flops, int64_t bytes) const {
  return std::max(static_cast<double>(flops) / flopsPerSecond,
                  static_cast<double>(bytes) / bytesPerSecond);
}

double RooflineModel::estimateSeconds(Operation *op) const {
  if (op->getNumRegions()) {
    double seconds = 0;
    for (Region &region : op->getRegions())
      for (Operation &inner : region.getOps())
        seconds += estimateSeconds(&inner);
    return seconds;
  }
  return getSeconds(estimateFlops(op), estimateBytesAccessed(op));
}

DictionaryAttr RooflineModel::toAttr(MLIRContext *context) const {
  Builder b(context);
  return b.getDictionaryAttr(
      {b.getNamedAttr("peak_gflops", b.getF64FloatAttr(flopsPerSecond / 1e9)),
       b.getNamedAttr("memory_gbps", b.getF64FloatAttr(bytesPerSecond / 1e9))});
}

std::optional<RooflineModel> RooflineModel::fromAttr(DictionaryAttr attr) {
  if (!attr)
    return std::nullopt;
  auto peak = attr.getAs<FloatAttr>("peak_gflops");
  auto bandwidth = attr.getAs<FloatAttr>("memory_gbps");
  if (!peak || !bandwidth || !(peak.getValueAsDouble() > 0) ||
      !(bandwidth.getValueAsDouble() > 0))
    return std::nullopt;
  return get(peak.getValueAsDouble(), bandwidth.getValueAsDouble());
}

RooflineModel mlir::echo::getTimeModel(func::FuncOp func) {
  return RooflineModel::fromAttr(func->getAttrOfType<DictionaryAttr>(
                                     EchoDialect::getTimeModelAttrName()))
      .value_or(RooflineModel());
}

StepSeconds mlir::echo::estimateStepSeconds(func::FuncOp func,
                                            const RooflineModel &model) {
  StepSeconds seconds;
  if (func.isExternal())
    return seconds;
  for (Operation &op : func.getBody().front()) {
    double s = model.estimateSeconds(&op);
    if (isa<RecomputeOp>(op))
      seconds.recompute += s;
    else
      seconds.step += s;
  }
  return seconds;
}
