//===- OutlineKernels.cpp - One function per linalg op for the CPU --------===//
//
// Part of the Echo project.
//
// echo-outline-kernels (see Passes.td): keeps LLVM's per-function loop
// passes from seeing the whole training step at once.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/CPU/Passes.h"

#include "echo/Dialect/Echo/IR/EchoDialect.h"

#include "Outline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOOUTLINEKERNELS
#include "echo/Target/CPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// True for a value the kernel can rebuild instead of taking it as an
/// argument: a scalar constant.
bool isClonableConstant(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  return cst && !isa<ShapedType>(cst.getType());
}

/// True for a copy between ranked memrefs of the same shape of which one
/// is not contiguous (MLIR lowers a contiguous copy to memcpy).
bool isStridedCopy(memref::CopyOp copy) {
  auto source = dyn_cast<MemRefType>(copy.getSource().getType());
  auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
  return source && target && source.hasStaticShape() &&
         source.getShape() == target.getShape() &&
         source.getElementType() == target.getElementType() &&
         (!source.getLayout().isIdentity() || !target.getLayout().isIdentity());
}

/// Whether the ops of `op`'s body at most read memory: a body that writes
/// (a store into a captured buffer) would race once the iterations run on
/// several threads, and an op of unknown effects might.
bool bodyOnlyReads(linalg::LinalgOp op) {
  return !op->walk([&](Operation *inner) {
              if (inner == op.getOperation() || isMemoryEffectFree(inner))
                return WalkResult::advance();
              auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
              return effects && effects.onlyHasEffect<MemoryEffects::Read>()
                         ? WalkResult::advance()
                         : WalkResult::interrupt();
            }).wasInterrupted();
}

/// The loop of `op` that its kernel splits across threads: the outermost
/// parallel loop of at least two iterations, when every loop's extent is
/// static, the loops run at least `minWork` iterations in all and the body
/// writes nothing but the op's outputs.
std::optional<unsigned> getSplitLoop(linalg::LinalgOp op, int64_t minWork) {
  if (minWork <= 0 || !isa<TilingInterface>(op.getOperation()) ||
      !bodyOnlyReads(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t work = 1;
  for (int64_t range : ranges) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    work = range > 0 && work > INT64_MAX / range ? INT64_MAX : work * range;
  }
  if (work < minWork)
    return std::nullopt;
  for (auto [loop, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::parallel && ranges[loop] >= 2)
      return loop;
  return std::nullopt;
}

struct EchoOutlineKernelsPass
    : public echo::impl::EchoOutlineKernelsBase<EchoOutlineKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      // A copy between strided views (into a padded buffer's interior)
      // would call the C runner's memrefCopy, element by element on one
      // thread: as a linalg.copy it is a kernel like the others.
      for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
        if (auto copy = dyn_cast<memref::CopyOp>(op))
          if (isStridedCopy(copy)) {
            OpBuilder b(copy);
            linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                                   copy.getTarget());
            copy.erase();
          }
      SmallVector<linalg::LinalgOp> ops;
      for (Operation &op : func.getBody().front())
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
          if (linalgOp.hasPureBufferSemantics())
            ops.push_back(linalgOp);
      if (static_cast<int64_t>(ops.size()) < minOps)
        continue;
      // Kernels follow their function, in order.
      Operation *insertAfter = func;
      for (linalg::LinalgOp op : ops)
        if (Operation *kernel = outline(func, op, insertAfter, symbols))
          insertAfter = kernel;
    }
  }

  /// Moves `op` into a kernel and calls it in its place. A kernel identical
  /// to one outlined before (the same op on buffers of the same types: an
  /// unrolled RNN's steps) is reused. Returns a new kernel, placed after
  /// `insertAfter`, or null when one was reused.
  Operation *outline(func::FuncOp func, linalg::LinalgOp op,
                     Operation *insertAfter, SymbolTable &symbols) {
    Operation *operation = op.getOperation();
    // Arguments: the operands, then what the body uses from above, except
    // scalar constants, which the kernel clones.
    llvm::SetVector<Value> inputs;
    for (Value operand : operation->getOperands())
      if (!isClonableConstant(operand))
        inputs.insert(operand);
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(operation->getRegions(), captured);
    for (Value v : captured)
      if (!isClonableConstant(v))
        inputs.insert(v);

    OpBuilder b(func.getContext());
    IRMapping mapping;
    func::FuncOp kernel = createOutlinedFunction(
        b, op.getLoc(),
        (func.getSymName() + "_kernel_" + Twine(kernelsOf[func]++)).str(),
        inputs.getArrayRef(), {}, mapping);
    OpBuilder inner = OpBuilder::atBlockBegin(&kernel.getBody().front());
    auto cloneConstant = [&](Value v) {
      if (isClonableConstant(v) && !mapping.contains(v))
        inner.clone(*v.getDefiningOp(), mapping);
    };
    for (Value operand : operation->getOperands())
      cloneConstant(operand);
    for (Value v : captured)
      cloneConstant(v);
    inner.clone(*operation, mapping);
    func::ReturnOp::create(inner, op.getLoc());

    // The kernel, printed under a fixed name and without locations,
    // identifies it.
    std::string key;
    {
      std::string name = kernel.getSymName().str();
      kernel.setSymName("kernel");
      llvm::raw_string_ostream os(key);
      kernel->print(os, OpPrintingFlags().printGenericOpForm());
      kernel.setSymName(name);
    }
    func::FuncOp callee;
    Operation *created = nullptr;
    auto [it, inserted] = kernels.try_emplace(key, kernel);
    if (inserted) {
      b.setInsertionPointAfter(insertAfter);
      b.insert(kernel);
      symbols.insert(kernel);
      callee = kernel;
      created = kernel;
      ++numKernels;
      if (std::optional<unsigned> loop = getSplitLoop(op, parallelMinWork))
        created = splitAcrossThreads(kernel, *loop, symbols);
    } else {
      callee = it->second;
      kernel.erase();
      --kernelsOf[func];
      ++numReused;
    }
    OpBuilder call(operation);
    func::CallOp::create(call, op.getLoc(), callee, inputs.getArrayRef());
    operation->erase();
    return created;
  }

  /// Moves `kernel`'s body into `@<kernel>_part(args..., lo, hi)`, which
  /// runs the iterations [lo, hi) of the op's loop `loop` (the op tiled to
  /// that range: views of its operands), marked `echo.parallel_part`, and
  /// makes the kernel call it on the whole range. `echo-cpu-parallel-calls`
  /// then turns that call into the runtime's `echo_cpu_parallel_for`, which
  /// runs the range in parts on the runtime's threads. Each output element
  /// is computed by one part, by the same loops as before: the results are
  /// bitwise the same. Returns the part, placed after the kernel.
  Operation *splitAcrossThreads(func::FuncOp kernel, unsigned loop,
                                SymbolTable &symbols) {
    MLIRContext *context = kernel.getContext();
    Location loc = kernel.getLoc();
    auto part = cast<func::FuncOp>(kernel->clone());
    part.setSymName((kernel.getSymName() + "_part").str());
    Block &body = part.getBody().front();
    Type index = IndexType::get(context);
    BlockArgument lo = body.addArgument(index, loc);
    BlockArgument hi = body.addArgument(index, loc);
    part.setType(FunctionType::get(context, body.getArgumentTypes(), {}));
    part->setAttr(EchoDialect::getParallelPartAttrName(),
                  UnitAttr::get(context));
    auto op = *body.getOps<linalg::LinalgOp>().begin();
    OpBuilder b(op);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t extent = ranges[loop];
    SmallVector<OpFoldResult> offsets, sizes;
    for (int64_t range : ranges) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(range));
    }
    offsets[loop] = lo;
    sizes[loop] = arith::SubIOp::create(b, loc, hi, lo).getResult();
    if (failed(cast<TilingInterface>(op.getOperation())
                   .getTiledImplementation(b, offsets, sizes))) {
      part.erase();
      return kernel;
    }
    op->erase();
    // The tiling's index math that nothing reads (sizes it derived).
    for (Operation &dead : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isOpTriviallyDead(&dead))
        dead.erase();
    OpBuilder after(kernel);
    after.setInsertionPointAfter(kernel);
    after.insert(part);
    symbols.insert(part);

    // The kernel calls its part on the whole range.
    Block &entry = kernel.getBody().front();
    entry.clear();
    OpBuilder call = OpBuilder::atBlockEnd(&entry);
    SmallVector<Value> args(entry.getArguments());
    args.push_back(arith::ConstantIndexOp::create(call, loc, 0));
    args.push_back(arith::ConstantIndexOp::create(call, loc, extent));
    func::CallOp::create(call, loc, part, args);
    func::ReturnOp::create(call, loc);
    ++numParallel;
    return part;
  }

  /// The kernels outlined so far, by their printed body.
  llvm::StringMap<func::FuncOp> kernels;
  /// How many kernels each function has.
  DenseMap<func::FuncOp, unsigned> kernelsOf;
};

} // namespace
