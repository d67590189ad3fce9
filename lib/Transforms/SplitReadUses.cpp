//===- SplitReadUses.cpp - Read-only names for tensors read many times ----===//
//
// Part of the Echo project.
//
// echo-split-read-uses (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOSPLITREADUSES
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// True when `use` only reads its tensor: an input of a destination-style
/// op, which bufferization never writes in place.
bool isInputRead(OpOperand &use) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
  return dps && dps.isDpsInput(&use);
}

struct EchoSplitReadUsesPass
    : public echo::impl::EchoSplitReadUsesBase<EchoSplitReadUsesPass> {
  using Base::Base;

  /// Gives `value`'s users read-only names, `maxUses` users each, when it
  /// has more uses than that and all of them are input reads.
  void split(Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return;
    int64_t uses = 0;
    for (OpOperand &use : value.getUses()) {
      if (!isInputRead(use))
        return;
      ++uses;
    }
    if (uses <= maxUses)
      return;
    // The uses per block, each block's users in op order (a user reading
    // the value twice appears once).
    llvm::MapVector<Block *, SmallVector<Operation *>> users;
    for (Operation *user : value.getUsers())
      users[user->getBlock()].push_back(user);
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    for (auto &[block, ops] : users) {
      llvm::sort(ops, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
      for (size_t begin = 0; begin < ops.size(); begin += maxUses) {
        size_t end = std::min<size_t>(ops.size(), begin + maxUses);
        OpBuilder b(ops[begin]);
        Location loc = value.getLoc();
        auto buffer = bufferization::ToBufferOp::create(
            b, loc, memrefType, value, /*read_only=*/b.getUnitAttr());
        auto name = bufferization::ToTensorOp::create(
            b, loc, type, buffer, /*restrict=*/true, /*writable=*/false);
        for (size_t i = begin; i < end; ++i)
          ops[i]->replaceUsesOfWith(value, name);
      }
    }
  }

  void runOnOperation() override {
    if (maxUses <= 0)
      return;
    SmallVector<Value> values;
    getOperation()->walk([&](Block *block) {
      for (BlockArgument arg : block->getArguments())
        values.push_back(arg);
      for (Operation &op : *block)
        for (Value result : op.getResults())
          values.push_back(result);
    });
    for (Value value : values)
      split(value);
  }
};

} // namespace
