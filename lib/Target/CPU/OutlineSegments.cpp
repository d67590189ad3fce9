//===- OutlineSegments.cpp - Bounded-size functions for the CPU -----------===//
//
// Part of the Echo project.
//
// echo-outline-segments (see Passes.td): keeps LLVM's register allocator
// from seeing a whole paper-size training step in one function.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/CPU/Passes.h"

#include "Outline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOOUTLINESEGMENTS
#include "echo/Target/CPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// An op each segment that uses it clones instead of taking its result as
/// an argument: side-effect free, without regions (a constant, a view, a
/// cast, index arithmetic).
bool isClonable(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumResults() > 0 &&
         isMemoryEffectFree(op);
}

struct EchoOutlineSegmentsPass
    : public echo::impl::EchoOutlineSegmentsBase<EchoOutlineSegmentsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxOps < 1) {
      getOperation().emitError()
          << "echo-outline-segments: max-ops must be at least 1, not "
          << static_cast<int64_t>(maxOps);
      return signalPassFailure();
    }
    SymbolTable symbols(getOperation());
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal() || !llvm::hasSingleElement(func.getBody()))
        continue;
      // Stack memory dies with the segment that allocates it: a function
      // with top-level allocas stays whole.
      Block &entry = func.getBody().front();
      if (llvm::any_of(entry, llvm::IsaPred<memref::AllocaOp>))
        continue;
      SmallVector<Operation *> members;
      for (Operation &op : entry.without_terminator())
        if (!isClonable(&op))
          members.push_back(&op);
      if (static_cast<int64_t>(members.size()) <= maxOps)
        continue;
      Operation *insertAfter = func;
      unsigned index = 0;
      for (size_t start = 0; start < members.size(); start += maxOps) {
        ArrayRef<Operation *> segment = ArrayRef(members).slice(
            start, std::min<size_t>(maxOps, members.size() - start));
        insertAfter = outline(func, segment, index++, insertAfter, symbols);
      }
      // Clonable ops whose users all moved into segments are dead now.
      Block &body = func.getBody().front();
      for (Operation &op :
           llvm::make_early_inc_range(llvm::reverse(body.getOperations())))
        if (isClonable(&op) && op.use_empty())
          op.erase();
    }
  }

  /// Moves the consecutive ops `segment` of `func` into a new function
  /// placed after `insertAfter`, and calls it where the first of them was.
  /// Returns the new function.
  Operation *outline(func::FuncOp func, ArrayRef<Operation *> segment,
                     unsigned index, Operation *insertAfter,
                     SymbolTable &symbols) {
    Block &body = func.getBody().front();
    DenseSet<Operation *> inSegment(segment.begin(), segment.end());
    // The top-level op of `func` that holds `user`.
    auto topLevel = [&](Operation *user) {
      return body.findAncestorOpInBlock(*user);
    };

    // What the segment reads from before it: arguments, or clonable ops to
    // rebuild (with what they read, transitively).
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> clones;
    SmallVector<Value> worklist;
    for (Operation *op : segment) {
      llvm::append_range(worklist, op->getOperands());
      SetVector<Value> above;
      getUsedValuesDefinedAbove(op->getRegions(), above);
      llvm::append_range(worklist, above);
    }
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (def && inSegment.contains(topLevel(def)))
        continue;
      if (def && isClonable(def) && def->getBlock() == &body) {
        if (clones.insert(def))
          llvm::append_range(worklist, def->getOperands());
        continue;
      }
      inputs.insert(v);
    }
    // Clones and the segment's ops, in the block's order: a clone may read
    // a value the segment defines (a view of an allocation it makes).
    SmallVector<Operation *> order(clones.begin(), clones.end());
    llvm::append_range(order, segment);
    llvm::sort(order, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });

    // What the ops after it (or the terminator) read from the segment.
    llvm::SetVector<Value> outputs;
    for (Operation *op : segment)
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers())
          if (!inSegment.contains(topLevel(user)))
            outputs.insert(result);

    Location loc = segment.front()->getLoc();
    OpBuilder b(func.getContext());
    b.setInsertionPointAfter(insertAfter);
    IRMapping mapping;
    func::FuncOp callee = createOutlinedFunction(
        b, loc, (func.getSymName() + "_segment_" + Twine(index)).str(),
        inputs.getArrayRef(), ValueRange(outputs.getArrayRef()).getTypes(),
        mapping);
    symbols.insert(callee);
    OpBuilder inner = OpBuilder::atBlockBegin(&callee.getBody().front());
    for (Operation *op : order)
      inner.clone(*op, mapping);
    SmallVector<Value> returned;
    for (Value v : outputs)
      returned.push_back(mapping.lookup(v));
    func::ReturnOp::create(inner, loc, returned);

    OpBuilder call(segment.front());
    auto callOp = func::CallOp::create(call, loc, callee, inputs.getArrayRef());
    for (auto [output, result] : llvm::zip(outputs, callOp.getResults())) {
      Value value = output;
      value.replaceUsesWithIf(result, [&](OpOperand &use) {
        return !inSegment.contains(topLevel(use.getOwner()));
      });
    }
    for (Operation *op : llvm::reverse(segment)) {
      op->dropAllUses();
      op->erase();
    }
    ++numSegments;
    return callee;
  }
};

} // namespace
