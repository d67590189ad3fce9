//===- LibraryCallLayouts.cpp - Packed buffers for library calls ----------===//
//
// Part of the Echo project.
//
// echo-library-call-layouts (see Passes.td): after one-shot bufferization,
// a buffer of a library call whose layout the runtimes cannot take (one the
// call's `echo.packed_dims` does not allow) is copied into a fresh, packed
// buffer, which the buffer planner places like any other.
//
//===----------------------------------------------------------------------===//

#include "echo/Conversion/Passes.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOLIBRARYCALLLAYOUTS
#include "echo/Conversion/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// True when `type`'s layout has its `packed` innermost dims dense
/// row-major (the last of unit stride, each other one stepping over the
/// ones after it whole) and the dim just outside them stepping over them
/// whole; the dims further out may have any stride. A dim of extent 1 may
/// have any stride. Unknown (dynamic) strides or extents prove nothing.
bool isPacked(MemRefType type, int64_t packed) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = type.getRank();
  int64_t inner = std::min(packed, rank);
  int64_t span = 1;
  for (int64_t d = rank - 1; d >= rank - inner; --d) {
    if (ShapedType::isDynamic(shape[d]))
      return false;
    if (shape[d] != 1 && strides[d] != span)
      return false;
    span *= shape[d];
  }
  int64_t outer = rank - inner - 1;
  if (outer < 0 || shape[outer] == 1)
    return true;
  return ShapedType::isStatic(strides[outer]) && strides[outer] >= span;
}

/// `v` without the memref.casts around it.
Value stripCasts(Value v) {
  while (auto castOp = v.getDefiningOp<memref::CastOp>())
    v = castOp.getSource();
  return v;
}

/// True when `v` or a buffer it is cast from has a type that proves the
/// layout (a cast to the runtime's dynamic type forgets what the view's
/// type says; a cast to a static layout asserts it).
bool provesPacked(Value v, int64_t packed) {
  while (true) {
    if (isPacked(cast<MemRefType>(v.getType()), packed))
      return true;
    auto castOp = v.getDefiningOp<memref::CastOp>();
    if (!castOp)
      return false;
    v = castOp.getSource();
  }
}

struct EchoLibraryCallLayoutsPass
    : public echo::impl::EchoLibraryCallLayoutsBase<
          EchoLibraryCallLayoutsPass> {
  void runOnOperation() override {
    StringRef attrName = EchoDialect::getPackedDimsAttrName();
    SmallVector<func::CallOp> calls;
    getOperation().walk([&](func::CallOp call) {
      if (call->hasAttr(attrName))
        calls.push_back(call);
    });
    for (func::CallOp call : calls) {
      rewrite(call, cast<DenseI64ArrayAttr>(call->getAttr(attrName)));
      call->removeAttr(attrName);
    }
  }

  /// Copies each buffer of `call` whose type does not prove the layout its
  /// entry of `packedDims` asks for (one entry per buffer operand, as the
  /// dialect verifies).
  void rewrite(func::CallOp call, DenseI64ArrayAttr packedDims) {
    SmallVector<OpOperand *> buffers;
    for (OpOperand &operand : call->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()))
        buffers.push_back(&operand);
    for (auto [index, operand] : llvm::enumerate(buffers)) {
      if (provesPacked(operand->get(), packedDims[index]))
        continue;
      // The last buffer is the output: the call writes it (and reads it
      // when it accumulates).
      packInto(call, *operand, /*written=*/index + 1 == buffers.size());
      ++numCopies;
    }
  }

  /// Makes `operand` of `call` a packed copy of the buffer it was (the
  /// view its casts come from, whose static shape the copy takes), copied
  /// in before the call and, when `written`, back after it.
  void packInto(func::CallOp call, OpOperand &operand, bool written) {
    Location loc = call.getLoc();
    OpBuilder b(call);
    Value view = stripCasts(operand.get());
    auto viewType = cast<MemRefType>(view.getType());
    SmallVector<Value> sizes;
    for (auto [d, extent] : llvm::enumerate(viewType.getShape()))
      if (ShapedType::isDynamic(extent))
        sizes.push_back(memref::DimOp::create(b, loc, view, d));
    auto packedType =
        MemRefType::get(viewType.getShape(), viewType.getElementType(),
                        MemRefLayoutAttrInterface(), viewType.getMemorySpace());
    Value packed = memref::AllocOp::create(b, loc, packedType, sizes);
    memref::CopyOp::create(b, loc, view, packed);
    operand.set(
        memref::CastOp::create(b, loc, operand.get().getType(), packed));
    if (written) {
      b.setInsertionPointAfter(call);
      memref::CopyOp::create(b, loc, packed, view);
    }
  }
};

} // namespace
