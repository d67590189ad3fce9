//===- Offload.cpp - Stashed values moved to host memory and back ---------===//
//
// Part of the Echo project.
//
// SuperNeurons' unified tensor pool as a decision beside recomputation: a
// stashed value is copied to the host after its last forward reader and
// back before its first backward reader, both on the copy stream, so that
// the device holds it only while it is produced and while it is consumed.
// The schedule places the copies under a bandwidth model (OffloadModel):
// the copy back starts late enough to hold its device bytes briefly, early
// enough to end before the value is read.
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/Recompute.h"

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::echo;

double OffloadModel::getTransferSeconds(int64_t bytes) const {
  return static_cast<double>(bytes) / linkBytesPerSecond;
}

/// A float tensor the runtime can move (echo.offload's operand type).
static bool isOffloadable(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() &&
         isa<FloatType>(type.getElementType()) && !isHostResident(value);
}

SmallVector<OffloadedValue> mlir::echo::selectOffloads(func::FuncOp func,
                                                       OffloadPolicy policy) {
  SmallVector<OffloadedValue> values;
  if (policy == OffloadPolicy::None || func.isExternal())
    return values;
  TrainingStep step(func);
  if (!step.getLossOp())
    return values;
  for (int64_t p = 0; p <= step.getForwardEndPosition(); ++p) {
    Operation *op = step.getOp(p);
    if (policy == OffloadPolicy::Heavy && !isComputeHeavy(op))
      continue;
    for (OpResult result : op->getResults())
      if (isOffloadable(result) && step.hasBackwardUse(result))
        values.push_back({p, result.getResultNumber()});
  }
  return values;
}

namespace {
/// One offloaded value and its schedule, in positions of the step before
/// anything is inserted ("before p": right before the op at position p).
struct Transfer {
  Value value;
  /// Its place in the request (ties are broken by it).
  int64_t index = 0;
  double seconds = 0;
  /// Its last forward reader (or its definition): the offload goes after.
  int64_t lastForward = 0;
  /// Its first backward reader: the fetch's wait goes before it.
  int64_t firstBackward = 0;
  /// The offload's wait goes before this op.
  int64_t offloadWait = 0;
  /// The fetch goes before this op.
  int64_t fetchAt = 0;
  SmallVector<OpOperand *> backwardUses;
};
} // namespace

/// Places the copies of `transfers` on one copy stream, given the compute
/// stream's op start times `start`.
static void scheduleTransfers(MutableArrayRef<Transfer> transfers,
                              ArrayRef<double> start) {
  // Offloads, in the order they are issued: each starts when its value's
  // last forward reader ends and the stream is free; its wait goes before
  // the first op that starts after it ends (at the latest, before the
  // first backward reader).
  llvm::sort(transfers, [](const Transfer &a, const Transfer &b) {
    return std::make_pair(a.lastForward, a.index) <
           std::make_pair(b.lastForward, b.index);
  });
  double streamFree = 0;
  for (Transfer &t : transfers) {
    double end = std::max(start[t.lastForward + 1], streamFree) + t.seconds;
    streamFree = end;
    // start is non-decreasing: the first op of the gap starting at `end`.
    t.offloadWait = std::min<int64_t>(
        std::lower_bound(start.begin() + t.lastForward + 1,
                         start.begin() + t.firstBackward + 1, end) -
            start.begin(),
        t.firstBackward);
  }
  // Fetches, latest deadline first: each ends at its first backward reader
  // or when the next fetch must start, whichever is earlier, and is issued
  // before the last op that starts no later than that; never before its
  // offload's wait.
  SmallVector<Transfer *> byDeadline =
      llvm::map_to_vector(transfers, [](Transfer &t) { return &t; });
  llvm::sort(byDeadline, [](const Transfer *a, const Transfer *b) {
    return std::make_pair(a->firstBackward, b->index) >
           std::make_pair(b->firstBackward, a->index);
  });
  double nextStart = std::numeric_limits<double>::infinity();
  for (Transfer *t : byDeadline) {
    double begin = std::min(start[t->firstBackward], nextStart) - t->seconds;
    // The last op of [offloadWait, firstBackward] starting by `begin`.
    t->fetchAt = std::max<int64_t>(
        std::upper_bound(start.begin() + t->offloadWait,
                         start.begin() + t->firstBackward + 1, begin) -
            start.begin() - 1,
        t->offloadWait);
    nextStart = std::min(begin, start[t->fetchAt]);
  }
}

/// The copy stream running `transfers` (scheduled) in issue order: the
/// seconds the compute stream waits at the transfers' waits, and in
/// `transferSeconds` the copies' seconds in all.
static double simulateCopies(ArrayRef<Transfer> transfers,
                             ArrayRef<double> start,
                             double *transferSeconds = nullptr) {
  struct Copy {
    int64_t issuedBefore;
    bool fetch;
    const Transfer *transfer;
  };
  SmallVector<Copy> copies;
  for (const Transfer &t : transfers) {
    copies.push_back({t.lastForward + 1, false, &t});
    copies.push_back({t.fetchAt, true, &t});
  }
  llvm::sort(copies, [](const Copy &a, const Copy &b) {
    return std::make_tuple(a.issuedBefore, a.fetch, a.transfer->index) <
           std::make_tuple(b.issuedBefore, b.fetch, b.transfer->index);
  });
  double streamFree = 0, unhidden = 0, total = 0;
  for (const Copy &copy : copies) {
    double end =
        std::max(start[copy.issuedBefore], streamFree) + copy.transfer->seconds;
    streamFree = end;
    total += copy.transfer->seconds;
    int64_t waitAt =
        copy.fetch ? copy.transfer->firstBackward : copy.transfer->offloadWait;
    // Within a picosecond is rounding (a fetch placed to end exactly at its
    // deadline), not waiting.
    if (end - start[waitAt] > 1e-12)
      unhidden += end - start[waitAt];
  }
  if (transferSeconds)
    *transferSeconds = total;
  return unhidden;
}

OffloadSchedule mlir::echo::offloadValues(func::FuncOp func,
                                          ArrayRef<OffloadedValue> values,
                                          const OffloadModel &model) {
  OffloadSchedule schedule;
  TrainingStep step(func);
  if (!step.getLossOp())
    return schedule;
  ArrayRef<Operation *> ops = step.getOps();
  int64_t n = ops.size();
  // start[p]: when op p starts on the compute stream; start[n]: the end.
  SmallVector<double> start(n + 1, 0.0);
  for (int64_t p = 0; p < n; ++p)
    start[p + 1] = start[p] + model.estimateSeconds(ops[p]);
  schedule.computeSeconds = start[n];

  SmallVector<Transfer> transfers;
  DenseSet<Value> seen;
  for (const OffloadedValue &request : values) {
    if (request.position < 0 || request.position > step.getForwardEndPosition())
      continue;
    Operation *def = ops[request.position];
    if (request.result >= def->getNumResults())
      continue;
    Value value = def->getResult(request.result);
    if (!isOffloadable(value) || !seen.insert(value).second)
      continue;
    Transfer t;
    t.value = value;
    t.index = transfers.size();
    t.seconds = model.getTransferSeconds(getTensorBytes(value.getType()));
    t.lastForward = request.position;
    t.firstBackward = n;
    for (OpOperand &use : value.getUses()) {
      int64_t p = step.getPosition(use.getOwner());
      if (step.isBackwardUse(use)) {
        t.firstBackward = std::min(t.firstBackward, p);
        t.backwardUses.push_back(&use);
      } else {
        t.lastForward = std::max(t.lastForward, p);
      }
    }
    // Nothing runs between the two readers, or the value is returned.
    if (t.firstBackward >= n || t.firstBackward <= t.lastForward + 1 ||
        isa<func::ReturnOp>(ops[t.firstBackward]))
      continue;
    transfers.push_back(std::move(t));
  }

  // Greedily, the copies that free the most device bytes × seconds first:
  // a value is kept when, with it, every kept copy still frees its device
  // bytes for part of its gap (its offload is done before its fetch must
  // start; else the device would hold it through the gap anyway) and the
  // copy stream, in issue order, still hides every copy behind compute.
  auto freedArea = [&](const Transfer &t) {
    return static_cast<double>(getTensorBytes(t.value.getType())) *
           (start[t.firstBackward] - start[t.lastForward + 1]);
  };
  SmallVector<Transfer> byValue = std::move(transfers);
  llvm::sort(byValue, [&](const Transfer &a, const Transfer &b) {
    double fa = freedArea(a), fb = freedArea(b);
    return fa != fb ? fa > fb : a.index < b.index;
  });
  transfers.clear();
  for (Transfer &candidate : byValue) {
    int64_t index = candidate.index;
    transfers.push_back(std::move(candidate));
    scheduleTransfers(transfers, start);
    if (llvm::any_of(
            transfers,
            [](const Transfer &t) { return t.fetchAt <= t.offloadWait; }) ||
        simulateCopies(transfers, start) > 0)
      llvm::erase_if(transfers,
                     [&](const Transfer &t) { return t.index == index; });
  }
  scheduleTransfers(transfers, start);

  double transferSeconds = 0;
  schedule.unhiddenSeconds = simulateCopies(transfers, start, &transferSeconds);
  schedule.transferSeconds = transferSeconds;

  // The rewrite: offloads, then their waits, then fetches, then theirs, so
  // that ops inserted before the same op keep that order.
  for (Transfer &t : transfers) {
    OpBuilder b = OpBuilder::atBlockBegin(ops[0]->getBlock());
    b.setInsertionPointAfter(ops[t.lastForward]);
    Value host = OffloadOp::create(b, t.value.getLoc(), t.value);
    b.setInsertionPoint(ops[t.offloadWait]);
    TransferWaitOp::create(b, t.value.getLoc(), t.value);
    t.value = host;
  }
  for (Transfer &t : transfers) {
    OpBuilder b(ops[t.fetchAt]);
    Value fetched = FetchOp::create(b, t.value.getLoc(), t.value);
    b.setInsertionPoint(ops[t.firstBackward]);
    TransferWaitOp::create(b, t.value.getLoc(), fetched);
    for (OpOperand *use : t.backwardUses)
      use->set(fetched);
  }
  schedule.values = transfers.size();
  if (transfers.empty())
    return schedule;

  Builder b(func.getContext());
  func->setAttr(
      EchoDialect::getOffloadScheduleAttrName(),
      b.getDictionaryAttr({
          b.getNamedAttr("values", b.getI64IntegerAttr(schedule.values)),
          b.getNamedAttr("link_bytes_per_second",
                         b.getF64FloatAttr(model.linkBytesPerSecond)),
          b.getNamedAttr("device_flops_per_second",
                         b.getF64FloatAttr(model.device.flopsPerSecond)),
          b.getNamedAttr("device_bytes_per_second",
                         b.getF64FloatAttr(model.device.bytesPerSecond)),
          b.getNamedAttr("compute_seconds",
                         b.getF64FloatAttr(schedule.computeSeconds)),
          b.getNamedAttr("transfer_seconds",
                         b.getF64FloatAttr(schedule.transferSeconds)),
          b.getNamedAttr("unhidden_seconds",
                         b.getF64FloatAttr(schedule.unhiddenSeconds)),
      }));
  return schedule;
}
