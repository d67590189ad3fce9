//===- MemoryAnalysis.cpp - Live bytes of a training step -----------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Analysis/MemoryCategories.h"
#include "echo/Analysis/TimeModel.h"
#include "echo/Analysis/TrainingStep.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::echo;

int64_t mlir::echo::getTensorBytes(Type type) {
  // Verified Echo IR bounds every tensor (BoundedTensors, the model
  // convention), so sums of these stay in int64; anything else counts as
  // the bound, never as a wrapped-around size.
  return getCheckedTensorBytes(type).value_or(kMaxTensorBytes);
}

/// True when `result` is written over a function argument in place (an
/// optimizer's new parameter or state): its bytes are the argument's, which
/// the step counts already.
static bool updatesArgumentInPlace(OpResult result) {
  auto update = dyn_cast<InPlaceUpdateOpInterface>(result.getOwner());
  if (!update)
    return false;
  auto arg = dyn_cast<BlockArgument>(update.getUpdatedOperand(result).get());
  return arg && arg.getOwner()->isEntryBlock() &&
         isa<func::FuncOp>(arg.getOwner()->getParentOp());
}

/// Calls `fn(value, bytes, first, last)` for each result of `ops` that
/// takes device bytes, live from its op's position (`first`) to its last
/// user's (`order.getPosition`); host copies (MemoryStats::offload counts
/// them), new values of arguments written in place and `excluded` values
/// are left out.
template <typename Order, typename Fn>
static void forEachLiveValue(ArrayRef<Operation *> ops, const Order &order,
                             const DenseSet<Value> &excluded, Fn fn) {
  for (int64_t i = 0, n = ops.size(); i < n; ++i) {
    for (OpResult v : ops[i]->getResults()) {
      if (excluded.contains(v) || isHostResident(v) ||
          updatesArgumentInPlace(v))
        continue;
      int64_t bytes = getTensorBytes(v.getType());
      if (!bytes)
        continue;
      int64_t last = i;
      for (Operation *user : v.getUsers())
        last = std::max(last, order.getPosition(user));
      fn(v, bytes, i, last);
    }
  }
}

namespace {
/// Live bytes over the ops of one block: values defined in the block live
/// from their op to their last use, projected onto the block. Returns the
/// per-op timeline; `excluded` values (a region's yielded values, counted
/// by the parent) are left out, and so are new values of arguments written
/// in place.
SmallVector<int64_t> blockTimeline(const OpOrder &order,
                                   const DenseSet<Value> &excluded) {
  ArrayRef<Operation *> ops = order.getOps();
  int64_t n = ops.size();
  SmallVector<int64_t> delta(n + 1, 0);
  forEachLiveValue(ops, order, excluded,
                   [&](Value, int64_t bytes, int64_t first, int64_t last) {
                     delta[first] += bytes;
                     delta[last + 1] -= bytes;
                   });
  SmallVector<int64_t> timeline(n, 0);
  int64_t live = 0;
  for (int64_t i = 0; i < n; ++i) {
    live += delta[i];
    timeline[i] = live;
  }
  // A recompute region's temporaries add their own peak where it runs.
  for (int64_t i = 0; i < n; ++i) {
    auto rec = dyn_cast<RecomputeOp>(ops[i]);
    if (!rec)
      continue;
    Block &inner = rec.getBody().front();
    DenseSet<Value> yielded;
    for (Value v : inner.getTerminator()->getOperands())
      yielded.insert(v);
    SmallVector<int64_t> innerTimeline = blockTimeline(OpOrder(inner), yielded);
    int64_t extra = 0;
    for (int64_t b : innerTimeline)
      extra = std::max(extra, b);
    timeline[i] += extra;
  }
  return timeline;
}
} // namespace

/// The live bytes at each top-level op of `func`, arguments included, and
/// their maximum (the arguments' bytes for an empty body).
static int64_t stepTimeline(const OpOrder &order,
                            SmallVectorImpl<int64_t> &timeline) {
  int64_t argBytes = 0;
  for (BlockArgument arg : order.getBlock()->getArguments())
    argBytes += getTensorBytes(arg.getType());
  timeline.assign(blockTimeline(order, {}));
  int64_t peak = argBytes;
  for (int64_t &b : timeline) {
    b += argBytes;
    peak = std::max(peak, b);
  }
  return peak;
}

/// The live bytes of the step in `step` by category (MemoryCategory order),
/// under the rules of blockTimeline: each value counts for its category, a
/// recompute region's temporaries for recompute, the arguments for theirs
/// at every position.
static std::vector<SmallVector<int64_t>>
categoryTimelines(const TrainingStep &step) {
  ArrayRef<Operation *> ops = step.getOps();
  int64_t n = ops.size();
  std::vector<SmallVector<int64_t>> delta(kNumMemoryCategories,
                                          SmallVector<int64_t>(n + 1, 0));
  for (BlockArgument arg : step.getBlock()->getArguments())
    delta[unsigned(getValueCategory(step, arg))][0] +=
        getTensorBytes(arg.getType());
  forEachLiveValue(ops, step, /*excluded=*/{},
                   [&](Value v, int64_t bytes, int64_t first, int64_t last) {
                     unsigned category = unsigned(getValueCategory(step, v));
                     delta[category][first] += bytes;
                     delta[category][last + 1] -= bytes;
                   });
  unsigned recompute = unsigned(MemoryCategory::Recompute);
  for (int64_t i = 0; i < n; ++i) {
    if (auto rec = dyn_cast<RecomputeOp>(ops[i])) {
      Block &inner = rec.getBody().front();
      DenseSet<Value> yielded;
      for (Value v : inner.getTerminator()->getOperands())
        yielded.insert(v);
      int64_t extra = 0;
      for (int64_t b : blockTimeline(OpOrder(inner), yielded))
        extra = std::max(extra, b);
      delta[recompute][i] += extra;
      delta[recompute][i + 1] -= extra;
    }
  }
  std::vector<SmallVector<int64_t>> lines(kNumMemoryCategories);
  for (unsigned c = 0; c < kNumMemoryCategories; ++c) {
    int64_t live = 0;
    for (int64_t i = 0; i < n; ++i) {
      live += delta[c][i];
      lines[c].push_back(live);
    }
  }
  return lines;
}

int64_t mlir::echo::computePeakLiveBytes(func::FuncOp func) {
  if (func.isExternal())
    return 0;
  SmallVector<int64_t> timeline;
  return stepTimeline(OpOrder(func.getBody().front()), timeline);
}

MemoryStats mlir::echo::computeRecomputeEstimate(func::FuncOp func) {
  MemoryStats stats;
  if (func.isExternal())
    return stats;
  OpOrder order(func.getBody().front());
  stats.peakLiveBytes = stepTimeline(order, stats.timeline);
  RooflineModel model = getTimeModel(func);
  // As computeMemoryStats counts them.
  for (Operation *op : order.getOps()) {
    auto rec = dyn_cast<RecomputeOp>(op);
    if (!rec)
      continue;
    rec.getBody().walk([&](Operation *inner) {
      if (isa<YieldOp, RecomputeOp>(inner))
        return;
      ++stats.recomputedOps;
      stats.recomputeFlops += estimateFlops(inner);
    });
    stats.recomputeSeconds += model.estimateSeconds(rec);
  }
  return stats;
}

/// The offload statistics of the step in `order`, if it offloads anything.
static std::optional<MemoryStats::Offload>
computeOffloadStats(func::FuncOp func, const OpOrder &order) {
  ArrayRef<Operation *> ops = order.getOps();
  MemoryStats::Offload stats;
  SmallVector<int64_t> delta(ops.size() + 1, 0);
  for (auto [i, op] : llvm::enumerate(ops)) {
    auto offload = dyn_cast<OffloadOp>(op);
    if (!offload)
      continue;
    int64_t bytes = getTensorBytes(offload.getType());
    ++stats.values;
    stats.transferBytes += bytes;
    int64_t last = i;
    for (Operation *user : offload.getResult().getUsers()) {
      stats.transferBytes += bytes;
      last = std::max(last, order.getPosition(user));
      for (Operation *wait : user->getUsers())
        if (isa<TransferWaitOp>(wait))
          last = std::max(last, order.getPosition(wait));
    }
    delta[i] += bytes;
    delta[last + 1] -= bytes;
  }
  if (!stats.values)
    return std::nullopt;
  int64_t live = 0;
  for (int64_t d : delta) {
    live += d;
    stats.hostPeakBytes = std::max(stats.hostPeakBytes, live);
  }
  if (auto schedule = func->getAttrOfType<DictionaryAttr>(
          EchoDialect::getOffloadScheduleAttrName())) {
    if (auto t = schedule.getAs<FloatAttr>("compute_seconds"))
      stats.computeSeconds = t.getValueAsDouble();
    if (auto t = schedule.getAs<FloatAttr>("transfer_seconds"))
      stats.transferSeconds = t.getValueAsDouble();
    if (auto t = schedule.getAs<FloatAttr>("unhidden_seconds"))
      stats.unhiddenSeconds = t.getValueAsDouble();
  }
  return stats;
}

MemoryStats mlir::echo::computeMemoryStats(func::FuncOp func) {
  MemoryStats stats;
  stats.function = func.getSymName().str();
  if (auto s = func->getAttrOfType<StringAttr>(
          EchoDialect::getRecomputeStrategyAttrName()))
    stats.strategy = s.getValue().str();
  if (func.isExternal())
    return stats;
  if (auto chunked = func->getAttrOfType<DictionaryAttr>(
          EchoDialect::getChunkedLossAttrName())) {
    if (auto chunks = chunked.getAs<IntegerAttr>("chunks"))
      stats.lossChunks = chunks.getInt();
    if (auto saved = chunked.getAs<IntegerAttr>("logits_bytes_saved"))
      stats.logitsBytesSaved = saved.getInt();
  }
  TrainingStep step(func);
  stats.peakLiveBytes = stepTimeline(step, stats.timeline);
  stats.categoryTimeline = categoryTimelines(step);
  for (BlockArgument arg : func.getArguments())
    if (func.getArgAttr(arg.getArgNumber(),
                        EchoDialect::getOptimizerStateAttrName()))
      stats.optimizerStateBytes += getTensorBytes(arg.getType());
  stats.offload = computeOffloadStats(func, step);

  int64_t lossIndex = step.getForwardEndPosition();
  RooflineModel model = getTimeModel(func);
  for (auto [at, opPtr] : llvm::enumerate(step.getOps())) {
    Operation &op = *opPtr;
    if (auto rec = dyn_cast<RecomputeOp>(op)) {
      rec.getBody().walk([&](Operation *inner) {
        if (isa<YieldOp, RecomputeOp>(inner))
          return;
        ++stats.recomputedOps;
        stats.recomputeFlops += estimateFlops(inner);
      });
      stats.recomputeSeconds += model.estimateSeconds(rec);
      continue;
    }
    int64_t flops = estimateFlops(&op);
    double seconds = model.estimateSeconds(&op);
    if (static_cast<int64_t>(at) <= lossIndex) {
      stats.forwardFlops += flops;
      stats.forwardSeconds += seconds;
    } else {
      stats.backwardFlops += flops;
      stats.backwardSeconds += seconds;
    }
    // Feature maps: forward values still live when the backward pass begins.
    if (static_cast<int64_t>(at) > lossIndex)
      continue;
    for (Value v : op.getResults())
      if (!isHostResident(v) && step.hasBackwardUse(v))
        stats.featureMapBytes += getTensorBytes(v.getType());
  }
  return stats;
}

std::optional<int64_t> MemoryStats::getStepBytes() const {
  if (!bufferPlan)
    return std::nullopt;
  int64_t total = 0;
  for (StringRef key : {"arena_bytes", "argument_bytes", "unplanned_bytes"}) {
    auto bytes = bufferPlan->getAs<IntegerAttr>(key);
    if (!bytes)
      return std::nullopt;
    total += bytes.getInt();
  }
  return total;
}

int64_t MemoryStats::getPeakPosition() const {
  int64_t peak = 0;
  for (int64_t i = 0, e = timeline.size(); i < e; ++i)
    if (timeline[i] > timeline[peak])
      peak = i;
  return peak;
}

/// An array attribute's values as a JSON array.
static llvm::json::Array toJSONArray(ArrayRef<int64_t> values) {
  llvm::json::Array array;
  for (int64_t v : values)
    array.push_back(v);
  return array;
}

/// The report's `categories` and timelines by category: the estimate's at
/// its peak, and the plan's (`echo.buffer_plan`'s `categories`,
/// `category_timeline`, `slots`) where it has them.
static void addCategories(const MemoryStats &stats, llvm::json::Object &o) {
  if (stats.categoryTimeline.size() != kNumMemoryCategories ||
      stats.timeline.empty())
    return;
  int64_t peak = stats.getPeakPosition();
  DictionaryAttr planned, plannedLines;
  if (stats.bufferPlan) {
    planned = stats.bufferPlan->getAs<DictionaryAttr>("categories");
    plannedLines = stats.bufferPlan->getAs<DictionaryAttr>("category_timeline");
  }
  llvm::json::Object categories, lines;
  for (unsigned c = 0; c < kNumMemoryCategories; ++c) {
    StringRef name = getMemoryCategoryName(MemoryCategory(c));
    llvm::json::Object entry;
    if (MemoryCategory(c) == MemoryCategory::HostOffload) {
      // Host bytes, apart from the device's: the host pool's peak.
      entry["estimated"] = stats.offload ? stats.offload->hostPeakBytes : 0;
      categories[name] = std::move(entry);
      continue;
    }
    entry["estimated"] = stats.categoryTimeline[c][peak];
    if (planned)
      if (auto bytes = planned.getAs<IntegerAttr>(name))
        entry["planned"] = bytes.getInt();
    categories[name] = std::move(entry);
    lines[name] = toJSONArray(stats.categoryTimeline[c]);
  }
  if (planned)
    if (auto free = planned.getAs<IntegerAttr>("free"))
      categories["free"] = llvm::json::Object{{"planned", free.getInt()}};
  o["categories"] = std::move(categories);
  o["peak_position"] = peak;
  o["category_timeline"] = std::move(lines);
  if (!plannedLines)
    return;
  llvm::json::Object planLines;
  for (NamedAttribute line : plannedLines)
    if (auto values = dyn_cast<DenseI64ArrayAttr>(line.getValue()))
      planLines[line.getName().getValue()] = toJSONArray(values.asArrayRef());
  o["planned_category_timeline"] = std::move(planLines);
  if (auto position = stats.bufferPlan->getAs<IntegerAttr>("peak_position"))
    o["planned_peak_position"] = position.getInt();
  if (auto slots = stats.bufferPlan->getAs<ArrayAttr>("slots")) {
    llvm::json::Array buffers;
    for (auto slot : slots.getAsRange<DictionaryAttr>()) {
      llvm::json::Object buffer;
      for (NamedAttribute field : slot) {
        if (auto i = dyn_cast<IntegerAttr>(field.getValue()))
          buffer[field.getName().getValue()] = i.getInt();
        else if (auto str = dyn_cast<StringAttr>(field.getValue()))
          buffer[field.getName().getValue()] = str.getValue();
      }
      buffers.push_back(std::move(buffer));
    }
    o["planned_buffers"] = std::move(buffers);
  }
}

llvm::json::Object MemoryStats::toJSON() const {
  llvm::json::Array line;
  for (int64_t b : timeline)
    line.push_back(b);
  llvm::json::Object o{
      {"function", function},
      {"strategy", strategy},
      {"peak_live_bytes", peakLiveBytes},
      {"feature_map_bytes", featureMapBytes},
      {"optimizer_state_bytes", optimizerStateBytes},
      {"planned_bytes", plannedBytes ? llvm::json::Value(*plannedBytes)
                                     : llvm::json::Value(nullptr)},
      {"step_bytes", nullptr},
      {"recomputed_ops", recomputedOps},
      {"forward_flops", forwardFlops},
      {"backward_flops", backwardFlops},
      {"recompute_flops", recomputeFlops},
      {"forward_seconds", forwardSeconds},
      {"backward_seconds", backwardSeconds},
      {"recompute_seconds", recomputeSeconds},
      {"loss_chunks", lossChunks},
      {"logits_bytes_saved", logitsBytesSaved},
      {"timeline", std::move(line)},
  };
  if (offload) {
    o["offloaded_values"] = offload->values;
    o["host_peak_bytes"] = offload->hostPeakBytes;
    o["transfer_bytes"] = offload->transferBytes;
    o["compute_seconds"] = offload->computeSeconds;
    o["transfer_seconds"] = offload->transferSeconds;
    o["unhidden_transfer_seconds"] = offload->unhiddenSeconds;
  }
  if (bufferPlan) {
    llvm::json::Object plan;
    for (NamedAttribute entry : *bufferPlan) {
      // The plan's peak position is the report's planned_peak_position.
      if (entry.getName() == "peak_position")
        continue;
      if (auto i = dyn_cast<IntegerAttr>(entry.getValue()))
        plan[entry.getName().getValue()] = i.getInt();
      else if (auto str = dyn_cast<StringAttr>(entry.getValue()))
        plan[entry.getName().getValue()] = str.getValue();
    }
    // Beside the estimate's timeline: the planned step's bytes per op of
    // the bufferized step.
    if (auto line = bufferPlan->getAs<DenseI64ArrayAttr>("timeline")) {
      llvm::json::Array planned;
      for (int64_t bytes : line.asArrayRef())
        planned.push_back(bytes);
      o["planned_timeline"] = std::move(planned);
    }
    if (auto arena = bufferPlan->getAs<IntegerAttr>("arena_bytes"))
      o["planned_bytes"] = arena.getInt();
    if (std::optional<int64_t> step = getStepBytes())
      o["step_bytes"] = *step;
    o["plan"] = std::move(plan);
  }
  addCategories(*this, o);
  return o;
}

DictionaryAttr MemoryStats::toAttr(MLIRContext *context) const {
  Builder b(context);
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr("function", b.getStringAttr(function)),
      b.getNamedAttr("strategy", b.getStringAttr(strategy)),
      b.getNamedAttr("peak_live_bytes", b.getI64IntegerAttr(peakLiveBytes)),
      b.getNamedAttr("feature_map_bytes", b.getI64IntegerAttr(featureMapBytes)),
      b.getNamedAttr("optimizer_state_bytes",
                     b.getI64IntegerAttr(optimizerStateBytes)),
      b.getNamedAttr("recomputed_ops", b.getI64IntegerAttr(recomputedOps)),
      b.getNamedAttr("forward_flops", b.getI64IntegerAttr(forwardFlops)),
      b.getNamedAttr("backward_flops", b.getI64IntegerAttr(backwardFlops)),
      b.getNamedAttr("recompute_flops", b.getI64IntegerAttr(recomputeFlops)),
      b.getNamedAttr("forward_seconds", b.getF64FloatAttr(forwardSeconds)),
      b.getNamedAttr("backward_seconds", b.getF64FloatAttr(backwardSeconds)),
      b.getNamedAttr("recompute_seconds", b.getF64FloatAttr(recomputeSeconds)),
      b.getNamedAttr("loss_chunks", b.getI64IntegerAttr(lossChunks)),
      b.getNamedAttr("logits_bytes_saved",
                     b.getI64IntegerAttr(logitsBytesSaved)),
      b.getNamedAttr("timeline", b.getDenseI64ArrayAttr(timeline)),
  };
  if (categoryTimeline.size() == kNumMemoryCategories) {
    SmallVector<NamedAttribute> lines;
    for (unsigned c = 0; c < kNumMemoryCategories; ++c)
      lines.push_back(
          b.getNamedAttr(getMemoryCategoryName(MemoryCategory(c)),
                         b.getDenseI64ArrayAttr(categoryTimeline[c])));
    entries.push_back(
        b.getNamedAttr("category_timeline", b.getDictionaryAttr(lines)));
  }
  if (offload)
    entries.push_back(b.getNamedAttr(
        "offload",
        b.getDictionaryAttr({
            b.getNamedAttr("values", b.getI64IntegerAttr(offload->values)),
            b.getNamedAttr("host_peak_bytes",
                           b.getI64IntegerAttr(offload->hostPeakBytes)),
            b.getNamedAttr("transfer_bytes",
                           b.getI64IntegerAttr(offload->transferBytes)),
            b.getNamedAttr("compute_seconds",
                           b.getF64FloatAttr(offload->computeSeconds)),
            b.getNamedAttr("transfer_seconds",
                           b.getF64FloatAttr(offload->transferSeconds)),
            b.getNamedAttr("unhidden_seconds",
                           b.getF64FloatAttr(offload->unhiddenSeconds)),
        })));
  return b.getDictionaryAttr(entries);
}

FailureOr<MemoryStats> MemoryStats::fromAttr(DictionaryAttr attr) {
  MemoryStats stats;
  auto getString = [&](StringRef key, std::string &into) {
    auto value = attr.getAs<StringAttr>(key);
    if (value)
      into = value.getValue().str();
    return static_cast<bool>(value);
  };
  auto getInt = [&](StringRef key, int64_t &into) {
    auto value = attr.getAs<IntegerAttr>(key);
    if (value)
      into = value.getInt();
    return static_cast<bool>(value);
  };
  auto timeline = attr.getAs<DenseI64ArrayAttr>("timeline");
  if (!getString("function", stats.function) ||
      !getString("strategy", stats.strategy) ||
      !getInt("peak_live_bytes", stats.peakLiveBytes) ||
      !getInt("feature_map_bytes", stats.featureMapBytes) ||
      !getInt("recomputed_ops", stats.recomputedOps) ||
      !getInt("forward_flops", stats.forwardFlops) ||
      !getInt("backward_flops", stats.backwardFlops) ||
      !getInt("recompute_flops", stats.recomputeFlops) || !timeline)
    return failure();
  stats.timeline.assign(timeline.asArrayRef().begin(),
                        timeline.asArrayRef().end());
  // Absent from statistics recorded before the optimizer state was counted.
  if (attr.contains("optimizer_state_bytes") &&
      !getInt("optimizer_state_bytes", stats.optimizerStateBytes))
    return failure();
  // Absent from statistics recorded before the time model: 0.
  for (auto [key, into] : {std::pair<StringRef, double *>{
                               "forward_seconds", &stats.forwardSeconds},
                           {"backward_seconds", &stats.backwardSeconds},
                           {"recompute_seconds", &stats.recomputeSeconds}})
    if (auto value = attr.getAs<FloatAttr>(key))
      *into = value.getValueAsDouble();
  // Absent from statistics recorded before the chunked loss: not chunked.
  (void)getInt("loss_chunks", stats.lossChunks);
  (void)getInt("logits_bytes_saved", stats.logitsBytesSaved);
  // Absent from statistics recorded before the memory categories.
  if (auto lines = attr.getAs<DictionaryAttr>("category_timeline")) {
    stats.categoryTimeline.assign(kNumMemoryCategories, {});
    for (unsigned c = 0; c < kNumMemoryCategories; ++c) {
      auto line = lines.getAs<DenseI64ArrayAttr>(
          getMemoryCategoryName(MemoryCategory(c)));
      if (!line)
        return failure();
      stats.categoryTimeline[c].assign(line.asArrayRef().begin(),
                                       line.asArrayRef().end());
    }
  }
  if (attr.contains("offload")) {
    auto offload = attr.getAs<DictionaryAttr>("offload");
    if (!offload)
      return failure();
    MemoryStats::Offload o;
    auto values = offload.getAs<IntegerAttr>("values");
    auto host = offload.getAs<IntegerAttr>("host_peak_bytes");
    auto transfer = offload.getAs<IntegerAttr>("transfer_bytes");
    auto compute = offload.getAs<FloatAttr>("compute_seconds");
    auto seconds = offload.getAs<FloatAttr>("transfer_seconds");
    auto unhidden = offload.getAs<FloatAttr>("unhidden_seconds");
    if (!values || !host || !transfer || !compute || !seconds || !unhidden)
      return failure();
    o.values = values.getInt();
    o.hostPeakBytes = host.getInt();
    o.transferBytes = transfer.getInt();
    o.computeSeconds = compute.getValueAsDouble();
    o.transferSeconds = seconds.getValueAsDouble();
    o.unhiddenSeconds = unhidden.getValueAsDouble();
    stats.offload = o;
  }
  return stats;
}

FailureOr<MemoryStats> mlir::echo::getReportedMemoryStats(func::FuncOp func) {
  MemoryStats stats;
  if (auto recorded = func->getAttrOfType<DictionaryAttr>(
          EchoDialect::getMemoryStatsAttrName())) {
    FailureOr<MemoryStats> fromAttr = MemoryStats::fromAttr(recorded);
    if (failed(fromAttr))
      return func.emitError()
             << "'" << EchoDialect::getMemoryStatsAttrName()
             << "' lacks a key of the memory report or has the wrong kind";
    stats = std::move(*fromAttr);
  } else {
    stats = computeMemoryStats(func);
  }
  if (auto plan = func->getAttrOfType<DictionaryAttr>(
          EchoDialect::getBufferPlanAttrName()))
    stats.bufferPlan = plan;
  return stats;
}

LogicalResult mlir::echo::writeJSON(llvm::json::Value value, StringRef output,
                                    std::string &error) {
  std::string text = llvm::formatv("{0:2}\n", value).str();
  if (output == "-") {
    llvm::outs() << text;
    return success();
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(output, ec);
  if (ec) {
    error = ("cannot write '" + output + "': " + ec.message()).str();
    return failure();
  }
  os << text;
  return success();
}
