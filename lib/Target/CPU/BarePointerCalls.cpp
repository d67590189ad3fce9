//===- BarePointerCalls.cpp - One pointer per static memref argument ------===//
//
// Part of the Echo project.
//
// echo-cpu-bare-pointer-calls (see Passes.td): the step's own functions take
// a static memref as its aligned pointer, not as its expanded descriptor.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/CPU/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOBAREPOINTERCALLS
#include "echo/Target/CPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// The unit attribute upstream's conversion of `func` to the LLVM dialect
/// reads for one function's bare-pointer convention (FuncToLLVM.cpp).
constexpr llvm::StringLiteral kBarePtrAttrName = "llvm.bareptr";

/// True when each memref of `types` has a static shape, strides and offset
/// (no unranked memref): its descriptor is its aligned pointer and constants.
bool allBarePointers(TypeRange types) {
  return llvm::all_of(types, [](Type type) {
    auto memref = dyn_cast<BaseMemRefType>(type);
    return !memref || LLVMTypeConverter::canConvertToBarePtr(memref);
  });
}

struct EchoBarePointerCallsPass
    : public echo::impl::EchoBarePointerCallsBase<EchoBarePointerCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Functions referenced other than as a func.call's callee (their
    // address taken: func.constant, a symbol in an attribute), found in
    // one walk of the module.
    llvm::DenseSet<StringAttr> escaping;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(&module.getBodyRegion());
    if (!uses)
      return; // An unknown op may hold symbol uses: change nothing.
    for (const SymbolTable::SymbolUse &use : *uses)
      if (!isa<func::CallOp>(use.getUser()))
        escaping.insert(use.getSymbolRef().getRootReference());
    MLIRContext *context = &getContext();
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPrivate() ||
          func->hasAttr(kBarePtrAttrName) ||
          func->hasAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName()) ||
          escaping.contains(func.getSymNameAttr()))
        continue;
      FunctionType type = func.getFunctionType();
      if (!allBarePointers(type.getInputs()) ||
          !allBarePointers(type.getResults()))
        continue;
      func->setAttr(kBarePtrAttrName, UnitAttr::get(context));
      ++numFunctions;
    }
  }
};

} // namespace
