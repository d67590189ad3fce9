//===- BufferPlan.cpp - Liveness intervals and arena offsets --------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/BufferPlan.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::echo;

//===----------------------------------------------------------------------===//
// Preconditions
//===----------------------------------------------------------------------===//

LogicalResult mlir::echo::checkPlannable(func::FuncOp func,
                                         StringRef passName) {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << passName
                            << ": needs a function body of one block (run it "
                               "before convert-scf-to-cf)";
  WalkResult walk = func.walk([&](bufferization::DeallocOp dealloc) {
    dealloc.emitError() << passName
                        << ": run it before buffer-deallocation-pipeline "
                           "(the IR already has bufferization.dealloc)";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Liveness
//===----------------------------------------------------------------------===//

BufferLiveness::BufferLiveness(func::FuncOp func)
    : order(func.getBody().front()), aliases(func) {}

int64_t BufferLiveness::getPosition(Operation *op) const {
  int64_t position = order.getPosition(op);
  assert(position >= 0 && "op outside the planned function");
  return position;
}

ArrayRef<Value> BufferLiveness::getAliases(Value root) const {
  auto [it, inserted] = aliasCache.try_emplace(root);
  if (inserted)
    llvm::append_range(it->second, aliases.resolve(root));
  return it->second;
}

FailureOr<LiveInterval> BufferLiveness::getInterval(Value root) const {
  int64_t start = std::numeric_limits<int64_t>::max();
  int64_t end = -1;
  for (Value alias : getAliases(root)) {
    for (Operation *user : alias.getUsers()) {
      // A buffer the function hands back outlives it.
      if (user->getBlock() == order.getBlock() &&
          user->hasTrait<OpTrait::ReturnLike>())
        return failure();
      int64_t position = getPosition(user);
      start = std::min(start, position);
      end = std::max(end, position);
    }
  }
  if (end < 0)
    return failure();
  return LiveInterval{start, end};
}

//===----------------------------------------------------------------------===//
// In-place reuse
//===----------------------------------------------------------------------===//

Value mlir::echo::stripReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    Value source;
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(def))
      source = expand.getSrc();
    else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def))
      source = collapse.getSrc();
    else
      break;
    if (!cast<MemRefType>(source.getType()).getLayout().isIdentity() ||
        !cast<MemRefType>(v.getType()).getLayout().isIdentity())
      break;
    v = source;
  }
  return v;
}

bool mlir::echo::isInPlaceReuseLegal(Operation *op, Value dying, Value born) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() || dying == born)
    return false;
  if (linalgOp.getNumParallelLoops() != linalgOp.getNumLoops())
    return false;
  auto dyingType = dyn_cast<MemRefType>(dying.getType());
  auto bornType = dyn_cast<MemRefType>(born.getType());
  if (!dyingType || !bornType || !dyingType.hasStaticShape() ||
      !bornType.hasStaticShape() ||
      dyingType.getNumElements() != bornType.getNumElements() ||
      dyingType.getElementTypeBitWidth() != bornType.getElementTypeBitWidth())
    return false;
  OpOperand *init = nullptr;
  for (OpOperand &operand : linalgOp.getDpsInitsMutable()) {
    Value root = stripReshapes(operand.get());
    if (root == dying)
      return false;
    if (root != born)
      continue;
    if (init)
      return false;
    init = &operand;
  }
  if (!init || linalgOp.payloadUsesValueFromOperand(init))
    return false;
  AffineMap map = linalgOp.getMatchingIndexingMap(init);
  if (!map.isPermutation())
    return false;
  // Through reshapes (views in the same row-major order) the input and the
  // init must have one shape: index i of both is then the same element of
  // the two buffers.
  auto initType = cast<MemRefType>(init->get().getType());
  bool read = false;
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    if (stripReshapes(input->get()) != dying)
      continue;
    if (linalgOp.getMatchingIndexingMap(input) != map ||
        cast<MemRefType>(input->get().getType()).getShape() !=
            initType.getShape())
      return false;
    read = true;
  }
  return read;
}

bool BufferLiveness::canReuseInPlace(Value dying, LiveInterval dyingLive,
                                     Value born, LiveInterval bornLive) const {
  if (dyingLive.end != bornLive.start)
    return false;
  Operation *op = getOperation(bornLive.start);
  if (!isInPlaceReuseLegal(op, dying, born))
    return false;
  ArrayRef<Value> dyingAliases = getAliases(dying);
  ArrayRef<Value> bornAliases = getAliases(born);
  return llvm::none_of(op->getOperands(), [&](Value operand) {
    Value root = stripReshapes(operand);
    return (root != dying && llvm::is_contained(dyingAliases, operand)) ||
           (root != born && llvm::is_contained(bornAliases, operand));
  });
}

//===----------------------------------------------------------------------===//
// Offsets
//===----------------------------------------------------------------------===//

namespace {
/// Buffers that share an offset (an in-place chain) form one slot.
struct Slot {
  int64_t bytes = 0;
  int64_t alignment = 1;
  LiveInterval live{std::numeric_limits<int64_t>::max(), -1};
  /// The most bytes live at one position of this slot's interval.
  int64_t breadth = 0;
  int64_t length() const { return live.end - live.start + 1; }
};

struct Placement {
  SmallVector<int64_t> offsets;
  int64_t size = 0;
};

/// Places the slots in `order`, each into a gap between the slots already
/// placed that are live at the same time: the smallest gap that holds it
/// (best fit) or the lowest (first fit); above them all when none does.
/// The placed slots are kept sorted by offset, so finding the gaps is one
/// scan without sorting.
Placement place(ArrayRef<Slot> slots, ArrayRef<unsigned> order, bool bestFit) {
  struct Placed {
    int64_t begin, end;
    LiveInterval live;
  };
  Placement result;
  result.offsets.assign(slots.size(), -1);
  std::vector<Placed> placed;
  placed.reserve(slots.size());
  for (unsigned s : order) {
    const Slot &slot = slots[s];
    int64_t top = 0, best = -1, bestGap = std::numeric_limits<int64_t>::max();
    for (const Placed &p : placed) {
      if (!p.live.overlaps(slot.live))
        continue;
      int64_t candidate = llvm::alignTo(top, slot.alignment);
      if (candidate + slot.bytes <= p.begin && p.begin - candidate < bestGap) {
        best = candidate;
        bestGap = p.begin - candidate;
        if (!bestFit)
          break;
      }
      top = std::max(top, p.end);
    }
    if (best < 0)
      best = llvm::alignTo(top, slot.alignment);
    result.offsets[s] = best;
    result.size = std::max(result.size, best + slot.bytes);
    Placed entry{best, best + slot.bytes, slot.live};
    placed.insert(llvm::upper_bound(placed, entry,
                                    [](const Placed &a, const Placed &b) {
                                      return a.begin < b.begin;
                                    }),
                  entry);
  }
  return result;
}
} // namespace

ArenaPlan
mlir::echo::planArena(ArrayRef<ArenaBuffer> buffers,
                      ArrayRef<std::pair<unsigned, unsigned>> inPlace) {
  unsigned n = buffers.size();
  ArenaPlan plan;
  plan.offsets.assign(n, 0);
  if (n == 0) {
    plan.heuristic = "empty";
    return plan;
  }

  // Union the in-place chains into slots.
  SmallVector<unsigned> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  for (auto [dying, born] : inPlace)
    parent[find(born)] = find(dying);
  SmallVector<unsigned> slotOf(n);
  SmallVector<Slot> slots;
  DenseMap<unsigned, unsigned> slotOfRoot;
  for (unsigned i = 0; i < n; ++i) {
    auto [it, inserted] = slotOfRoot.try_emplace(find(i), slots.size());
    if (inserted)
      slots.emplace_back();
    slotOf[i] = it->second;
    Slot &slot = slots[it->second];
    const ArenaBuffer &buffer = buffers[i];
    slot.alignment = std::max(slot.alignment, buffer.alignment);
    slot.bytes = std::max(slot.bytes, buffer.bytes);
    slot.live.start = std::min(slot.live.start, buffer.live.start);
    slot.live.end = std::max(slot.live.end, buffer.live.end);
  }
  // Padding to the alignment is part of every placement's cost.
  for (Slot &slot : slots)
    slot.bytes =
        llvm::alignTo(std::max<int64_t>(slot.bytes, 1), slot.alignment);

  unsigned m = slots.size();
  plan.slotOf = slotOf;
  for (const Slot &slot : slots)
    plan.slotBytes.push_back(slot.bytes);

  // The lower bound: the most bytes live at one position.
  int64_t lastPosition = 0;
  for (const Slot &slot : slots)
    lastPosition = std::max(lastPosition, slot.live.end);
  SmallVector<int64_t> delta(lastPosition + 2, 0);
  for (const Slot &slot : slots) {
    delta[slot.live.start] += slot.bytes;
    delta[slot.live.end + 1] -= slot.bytes;
  }
  // Live bytes per position, and a sparse table for the range maxima
  // (each slot's breadth).
  SmallVector<SmallVector<int64_t>> rangeMax(1);
  int64_t live = 0;
  for (int64_t d : ArrayRef(delta).drop_back()) {
    live += d;
    rangeMax[0].push_back(live);
    plan.lowerBound = std::max(plan.lowerBound, live);
  }
  plan.liveBytes = rangeMax[0];
  for (size_t width = 1; 2 * width <= rangeMax[0].size(); width *= 2) {
    const SmallVector<int64_t> &prev = rangeMax.back();
    SmallVector<int64_t> next(prev.size() - width);
    for (size_t i = 0; i < next.size(); ++i)
      next[i] = std::max(prev[i], prev[i + width]);
    rangeMax.push_back(std::move(next));
  }
  for (Slot &slot : slots) {
    int64_t length = slot.length();
    unsigned level = llvm::Log2_64(length);
    const SmallVector<int64_t> &row = rangeMax[level];
    slot.breadth = std::max(row[slot.live.start],
                            row[slot.live.end + 1 - (int64_t(1) << level)]);
  }

  // Several orders, as XLA's heap simulator does; keep the smallest arena.
  using Less = std::function<bool(const Slot &, const Slot &)>;
  const std::pair<const char *, Less> heuristics[] = {
      // TFLite's greedy by breadth: the buffers of the busiest positions
      // first, so that the peak packs without holes.
      {"breadth",
       [](const Slot &a, const Slot &b) {
         return std::make_tuple(-a.breadth, -a.bytes, a.live.start) <
                std::make_tuple(-b.breadth, -b.bytes, b.live.start);
       }},
      {"size",
       [](const Slot &a, const Slot &b) {
         return std::make_tuple(-a.bytes, -a.length(), a.live.start) <
                std::make_tuple(-b.bytes, -b.length(), b.live.start);
       }},
      {"breadth-lifetime",
       [](const Slot &a, const Slot &b) {
         return std::make_tuple(-a.breadth, -a.length(), -a.bytes) <
                std::make_tuple(-b.breadth, -b.length(), -b.bytes);
       }},
      {"breadth-start",
       [](const Slot &a, const Slot &b) {
         return std::make_tuple(-a.breadth, a.live.start, -a.bytes) <
                std::make_tuple(-b.breadth, b.live.start, -b.bytes);
       }},
      {"area",
       [](const Slot &a, const Slot &b) {
         return std::make_tuple(-a.bytes * a.length(), -a.bytes) <
                std::make_tuple(-b.bytes * b.length(), -b.bytes);
       }},
      {"lifetime",
       [](const Slot &a, const Slot &b) {
         return std::make_tuple(-a.length(), -a.bytes) <
                std::make_tuple(-b.length(), -b.bytes);
       }},
      {"start",
       [](const Slot &a, const Slot &b) {
         return std::make_tuple(a.live.start, -a.bytes) <
                std::make_tuple(b.live.start, -b.bytes);
       }},
  };
  Placement best;
  best.size = std::numeric_limits<int64_t>::max();
  SmallVector<unsigned> order(m);
  for (bool bestFit : {true, false}) {
    for (const auto &heuristic : heuristics) {
      const Less &less = heuristic.second;
      std::iota(order.begin(), order.end(), 0u);
      llvm::sort(order, [&](unsigned a, unsigned b) {
        if (less(slots[a], slots[b]))
          return true;
        return !less(slots[b], slots[a]) && a < b;
      });
      Placement placement = place(slots, order, bestFit);
      if (placement.size < best.size) {
        best = std::move(placement);
        plan.heuristic =
            (Twine(heuristic.first) + (bestFit ? "/best-fit" : "/first-fit"))
                .str();
      }
      if (best.size == plan.lowerBound)
        break;
    }
    if (best.size == plan.lowerBound)
      break;
  }
  plan.size = best.size;
  for (unsigned i = 0; i < n; ++i)
    plan.offsets[i] = best.offsets[slotOf[i]];
  return plan;
}
