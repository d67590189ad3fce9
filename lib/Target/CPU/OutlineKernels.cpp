//===- OutlineKernels.cpp - One function per linalg op for the CPU --------===//
//
// Part of the Echo project.
//
// echo-outline-kernels (see Passes.td): keeps LLVM's per-function loop
// passes from seeing the whole training step at once.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/CPU/Passes.h"

#include "Outline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
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

  /// The kernels outlined so far, by their printed body.
  llvm::StringMap<func::FuncOp> kernels;
  /// How many kernels each function has.
  DenseMap<func::FuncOp, unsigned> kernelsOf;
};

} // namespace
