//===- EchoBase.td - Base classes of Echo ops --------------*- tablegen -*-===//
//
// Part of the Echo project.
//
// The op base classes. Per-op knowledge for the interfaces is written as
// fields on the op definition (which forward values the gradient reads, FLOPs
// per element, compute-heaviness) and turned into the interface methods here,
// so that a family of ops is one line each in EchoOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOBASE_TD
#define ECHO_DIALECT_ECHO_IR_ECHOBASE_TD

include "echo/Dialect/Echo/IR/EchoDialect.td"
include "echo/Dialect/Echo/IR/EchoInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// Every tensor an Echo op reads or writes has an element count and a byte
/// size that fit in int64, and at most kMaxTensorBytes bytes: the ops' shape
/// arithmetic, the memory model, the planner and the runtimes rely on it.
def Echo_BoundedTensors : NativeOpTrait<"BoundedTensors"> {
  let cppNamespace = "::mlir::echo";
}

/// Base class of every Echo op. Every op has a static cost and bounded
/// tensors.
class Echo_Op<string mnemonic, list<Trait> traits = []>
    : Op<Echo_Dialect, mnemonic,
         !listconcat(traits, [Echo_CostOpInterface, Echo_AutocastOpInterface,
                             Echo_BoundedTensors])> {
  /// FLOPs per element of the largest tensor the op reads or writes; used
  /// unless `hasCustomFlops` is set, in which case the op implements
  /// `estimateFlops()` in C++.
  int flopsPerElement = 0;
  bit hasCustomFlops = 0;
  /// Compute-heavy ops (GEMM, convolution) partition the recompute graph.
  bit computeHeavy = 0;
  /// The precision the op runs in under `echo-autocast`: an enumerator of
  /// AutocastPolicy (Keep, Lower, Full, Follow, FollowInput).
  string autocast = "Keep";

  /// A C++ expression for `estimateBytesAccessed()` (the bytes the op reads
  /// and writes), for ops that move less than every operand and result once;
  /// empty: the interface's default.
  code bytesAccessed = "";

  /// Ops with the LibraryCallOpInterface trait: the runtime function (one
  /// of the names of echo/Runtime/EchoRuntimeABI.h, as a C++ expression),
  /// the operands (getter suffixes) it reads in order, the C++ braced list
  /// of its i64 arguments, and an optional C++ expression for the output's
  /// initial contents (see the interface).
  string libraryCall = "";
  list<string> libraryCallInputs = [];
  code libraryCallScalars = "{}";
  code libraryCallInit = "";
  /// The call has 16-bit forms, `<libraryCall>_bf16` and `<libraryCall>_f16`,
  /// on bf16 and f16 buffers (which of them a runtime has: the options of
  /// echo-library-calls).
  bit libraryCall16Bit = 0;
  /// The index in libraryCallScalars of a flag that makes the call add to
  /// its output instead of overwriting it (-1: the call has none).
  int libraryCallAccumulateScalar = -1;
  /// A C++ expression: whether this instance is worth a library call (else
  /// it is lowered to generated code like any other op).
  code libraryCallWorthwhile = "true";
  /// For each buffer of the call (inputs, then the output), how many
  /// innermost dims the runtime needs packed (see the interface); empty:
  /// 1 for every buffer, a GEMM's rows.
  list<int> libraryCallPackedDims = [];

  /// Declarations added by subclasses (interface glue).
  code echoInterfaceDecls = "";
  /// Op-specific declarations; use this instead of `extraClassDeclaration`.
  code echoExtraDecls = "";

  let extraClassDeclaration = [{
    //===------------------------------------------------------------------===//
    // CostOpInterface
    //===------------------------------------------------------------------===//
    bool isComputeHeavy() { return }] # !if(computeHeavy, "true", "false") # [{; }
    //===------------------------------------------------------------------===//
    // AutocastOpInterface
    //===------------------------------------------------------------------===//
    ::mlir::echo::AutocastPolicy getAutocastPolicy() {
      return ::mlir::echo::AutocastPolicy::}] # autocast # [{;
    }
  }] # !if(!empty(bytesAccessed), "", [{
    int64_t estimateBytesAccessed() { return }] # bytesAccessed # [{; }
  }]) # !if(hasCustomFlops, [{
    int64_t estimateFlops();
  }], [{
    int64_t estimateFlops() {
      return ::mlir::echo::detail::estimatePerElementFlops(getOperation(), }]
        # flopsPerElement # [{);
    }
  }]) # !if(!empty(libraryCall), "", [{
    //===------------------------------------------------------------------===//
    // LibraryCallOpInterface
    //===------------------------------------------------------------------===//
    ::llvm::StringRef getLibraryCallName() { return }] # libraryCall # [{; }
    ::llvm::SmallVector<::mlir::Value> getLibraryCallInputs() {
      return {}] # !interleave(!foreach(n, libraryCallInputs, "get" # n # "()"),
                               ", ") # [{};
    }
    ::llvm::SmallVector<int64_t> getLibraryCallScalars() {
      return }] # libraryCallScalars # [{;
    }
    bool has16BitLibraryCall() { return }]
      # !if(libraryCall16Bit, "true", "false") # [{; }
    int getLibraryCallAccumulateScalar() { return }]
      # libraryCallAccumulateScalar # [{; }
    bool isLibraryCallWorthwhile() { return }]
      # libraryCallWorthwhile # [{; }
  }]) # !if(!empty(libraryCallInit), "", [{
    ::mlir::Value getLibraryCallInit() { return }] # libraryCallInit # [{; }
  }]) # !if(!empty(libraryCallPackedDims), "", [{
    ::llvm::SmallVector<int64_t> getLibraryCallPackedDims() {
      return {}] # !interleave(libraryCallPackedDims, ", ") # [{};
    }
  }]) # echoInterfaceDecls # echoExtraDecls;
}

/// The i64 arguments of the convolution library calls: strides (h, w),
/// padding (h, w), then the group count.
defvar Echo_ConvLibraryCallScalars =
    "{getStrides()[0], getStrides()[1], getPadding()[0], getPadding()[1], " #
    "static_cast<int64_t>(getGroups())}";

/// A forward op that `echo-autodiff` differentiates. The gradient of the op
/// reads exactly the operands and results listed here; `buildGradient` is
/// implemented in C++ (lib/Dialect/Echo/IR/EchoGradients.cpp).
/// The result is the operand's bytes seen with another type (the lowering
/// makes it a view, which allocates nothing): whatever keeps the result
/// alive keeps the operand's buffer, so the memory categories count that
/// buffer as the result's (echo/Analysis/MemoryCategories.h).
def Echo_ViewResult : NativeOpTrait<"ViewResult"> {
  let cppNamespace = "::mlir::echo";
}

class Echo_ForwardOp<string mnemonic, list<Trait> traits = []>
    : Echo_Op<mnemonic, !listconcat(traits, [Pure,
        Echo_DifferentiableOpInterface])> {
  list<int> gradientReadsOperands = [];
  list<int> gradientReadsResults = [];
  /// The gradient needs only a predicate of what it reads: `x > 0` (ReLU)
  /// unless `gradientReadMask` says otherwise.
  bit gradientReadBinarizable = 0;
  /// The C++ expression, of `builder`, `loc` and `value`, that builds that
  /// predicate as an `i1` value of `value`'s shape.
  code gradientReadMask =
      "::mlir::echo::buildPositiveMask(builder, loc, value)";
  /// Results that are stochastic masks (dropout's `i1` mask).
  list<int> stochasticMaskResults = [];

  let echoInterfaceDecls = [{
    //===------------------------------------------------------------------===//
    // DifferentiableOpInterface
    //===------------------------------------------------------------------===//
    ::llvm::SmallVector<unsigned> getGradientReadOperands() {
      return {}] # !interleave(gradientReadsOperands, ", ") # [{};
    }
    ::llvm::SmallVector<unsigned> getGradientReadResults() {
      return {}] # !interleave(gradientReadsResults, ", ") # [{};
    }
    bool isGradientReadBinarizable() { return }]
      # !if(gradientReadBinarizable, "true", "false") # [{; }
    ::mlir::Value buildGradientReadMask(::mlir::OpBuilder &builder,
                                        ::mlir::Location loc,
                                        ::mlir::Value value) {
      return }] # !if(gradientReadBinarizable, gradientReadMask,
        "::mlir::Value()") # [{;
    }
    bool isStochasticMaskResult(unsigned index) {
      return ::llvm::is_contained(::llvm::ArrayRef<unsigned>{}]
        # !interleave(stochasticMaskResults, ", ") # [{}, index);
    }
    ::llvm::LogicalResult buildGradient(
        ::mlir::OpBuilder &builder, ::mlir::ValueRange resultGrads,
        ::llvm::SmallVectorImpl<::mlir::Value> &operandGrads);
  }];
}

/// A gradient op `echo.<op>_grad`, built by `echo-autodiff`.
class Echo_GradOp<string mnemonic, list<Trait> traits = []>
    : Echo_Op<mnemonic, !listconcat(traits, [Pure])>;

//===----------------------------------------------------------------------===//
// Attribute constraints
//===----------------------------------------------------------------------===//

/// Two positive integers (strides, kernel sizes), height then width.
def Echo_PositivePair : ConfinedAttr<DenseI64ArrayAttr,
    [DenseArrayCount<2>, DenseArrayStrictlyPositive<DenseI64ArrayAttr>]>;

/// Two non-negative integers (zero padding on both sides), height then width.
def Echo_NonNegativePair : ConfinedAttr<DenseI64ArrayAttr,
    [DenseArrayCount<2>, DenseArrayNonNegative<DenseI64ArrayAttr>]>;

/// A positive integer (a convolution's group count).
def Echo_PositiveI64 : ConfinedAttr<I64Attr, [IntPositive]>;

#endif // ECHO_DIALECT_ECHO_IR_ECHOBASE_TD
