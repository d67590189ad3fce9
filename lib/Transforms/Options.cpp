//===- Options.cpp - Typed values of Echo's pass options ------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Transforms/Options.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir::echo;

llvm::StringRef mlir::echo::stringifyRecomputeStrategy(RecomputeStrategy s) {
  switch (s) {
  case RecomputeStrategy::None:
    return "none";
  case RecomputeStrategy::Mirror:
    return "mirror";
  case RecomputeStrategy::Sublinear:
    return "sublinear";
  case RecomputeStrategy::Echo:
    return "echo";
  case RecomputeStrategy::Budget:
    return "budget";
  }
  llvm_unreachable("unknown recompute strategy");
}

llvm::StringRef mlir::echo::stringifyOffloadPolicy(OffloadPolicy policy) {
  switch (policy) {
  case OffloadPolicy::None:
    return "none";
  case OffloadPolicy::Heavy:
    return "heavy";
  case OffloadPolicy::All:
    return "all";
  }
  llvm_unreachable("unknown offload policy");
}

llvm::StringRef mlir::echo::stringifyOptimizer(Optimizer optimizer) {
  switch (optimizer) {
  case Optimizer::None:
    return "none";
  case Optimizer::Sgd:
    return "sgd";
  case Optimizer::Momentum:
    return "momentum";
  case Optimizer::Adam:
    return "adam";
  case Optimizer::AdamW:
    return "adamw";
  }
  llvm_unreachable("unknown optimizer");
}

bool mlir::echo::isStatefulOptimizer(Optimizer optimizer) {
  return !getOptimizerStateNames(optimizer).empty();
}

namespace {
/// The names of an optimizer's state tensors per parameter and of its
/// hyperparameters, in the order the step takes them.
struct OptimizerNames {
  llvm::ArrayRef<llvm::StringLiteral> states, hypers;
};
} // namespace

static OptimizerNames getOptimizerNames(Optimizer optimizer) {
  static constexpr llvm::StringLiteral momentumStates[] = {"momentum_buffer"};
  static constexpr llvm::StringLiteral momentumHypers[] = {"lr", "momentum",
                                                           "weight_decay"};
  static constexpr llvm::StringLiteral adamStates[] = {"exp_avg", "exp_avg_sq"};
  static constexpr llvm::StringLiteral adamHypers[] = {
      "lr", "beta1", "beta2", "eps", "weight_decay", "step"};
  switch (optimizer) {
  case Optimizer::None:
  case Optimizer::Sgd:
    return {};
  case Optimizer::Momentum:
    return {momentumStates, momentumHypers};
  case Optimizer::Adam:
  case Optimizer::AdamW:
    return {adamStates, adamHypers};
  }
  llvm_unreachable("unknown optimizer");
}

llvm::ArrayRef<llvm::StringLiteral>
mlir::echo::getOptimizerStateNames(Optimizer optimizer) {
  return getOptimizerNames(optimizer).states;
}

llvm::ArrayRef<llvm::StringLiteral>
mlir::echo::getOptimizerHyperNames(Optimizer optimizer) {
  return getOptimizerNames(optimizer).hypers;
}

llvm::StringRef mlir::echo::stringifyArenaKind(ArenaKind arena) {
  switch (arena) {
  case ArenaKind::Alloc:
    return "alloc";
  case ArenaKind::Argument:
    return "argument";
  }
  llvm_unreachable("unknown arena kind");
}

llvm::StringRef mlir::echo::stringifyPrecision(Precision precision) {
  switch (precision) {
  case Precision::F32:
    return "f32";
  case Precision::BF16:
    return "bf16";
  case Precision::F16:
    return "f16";
  }
  llvm_unreachable("unknown precision");
}

mlir::Type mlir::echo::getPrecisionType(mlir::MLIRContext *ctx,
                                        Precision precision) {
  switch (precision) {
  case Precision::F32:
    return Float32Type::get(ctx);
  case Precision::BF16:
    return BFloat16Type::get(ctx);
  case Precision::F16:
    return Float16Type::get(ctx);
  }
  llvm_unreachable("unknown precision");
}

llvm::StringRef mlir::echo::stringifyTarget(Target target) {
  switch (target) {
  case Target::CPU:
    return "cpu";
  case Target::NVVM:
    return "nvvm";
  }
  llvm_unreachable("unknown target");
}

llvm::StringRef mlir::echo::stringifyGpuFormat(GpuFormat format) {
  switch (format) {
  case GpuFormat::Fatbin:
    return "fatbin";
  case GpuFormat::Bin:
    return "bin";
  case GpuFormat::Isa:
    return "isa";
  }
  llvm_unreachable("unknown gpu format");
}

int64_t RecomputeBudget::resolve(int64_t noneBytes) const {
  if (!isFraction)
    return bytes;
  return static_cast<int64_t>(
      std::floor(fraction * static_cast<double>(noneBytes)));
}

std::string RecomputeBudget::str() const {
  if (!isFraction)
    return std::to_string(bytes);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%g", fraction);
  return text;
}

std::optional<RecomputeBudget>
mlir::echo::parseRecomputeBudget(llvm::StringRef text, std::string &error) {
  auto fail = [&](llvm::StringRef why) -> std::optional<RecomputeBudget> {
    error = ("budget '" + text + "' " + why +
             "; expected bytes (1073741824, 512MiB, 1.5GiB, 800MB), a "
             "fraction of none's bytes with a point (0.5) or a percentage "
             "(50%)")
                .str();
    return std::nullopt;
  };
  llvm::StringRef s = text.trim();
  if (s.empty())
    return fail("is empty");
  size_t numberEnd = s.find_first_not_of("0123456789.");
  llvm::StringRef number = s.substr(0, numberEnd);
  llvm::StringRef unit =
      numberEnd == llvm::StringRef::npos ? "" : s.substr(numberEnd).trim();
  double value = 0;
  if (number.empty() || number.count('.') > 1 || number == "." ||
      number.getAsDouble(value) || !std::isfinite(value))
    return fail("does not start with a number");
  RecomputeBudget budget;
  if (unit == "%") {
    if (!(value > 0 && value <= 100))
      return fail("is not a percentage in (0, 100]");
    budget.isFraction = true;
    budget.fraction = value / 100;
    return budget;
  }
  if (unit.empty() && number.contains('.')) {
    if (!(value > 0 && value <= 1))
      return fail("is not a fraction in (0, 1]");
    budget.isFraction = true;
    budget.fraction = value;
    return budget;
  }
  double scale = llvm::StringSwitch<double>(unit)
                     .Cases({"", "B"}, 1.0)
                     .Cases({"K", "KiB"}, 1024.0)
                     .Cases({"M", "MiB"}, 1024.0 * 1024)
                     .Cases({"G", "GiB"}, 1024.0 * 1024 * 1024)
                     .Case("KB", 1e3)
                     .Case("MB", 1e6)
                     .Case("GB", 1e9)
                     .Default(0.0);
  if (scale == 0.0)
    return fail(("has an unknown unit '" + unit + "'").str());
  double bytes = std::floor(value * scale);
  // Tensors are bounded at 2^50 bytes and a model at 2^60 (BoundedTensors,
  // the model convention); a budget above that is a typo.
  if (!(bytes >= 1) || bytes > std::ldexp(1.0, 60))
    return fail("is not a byte count in [1, 2^60]");
  budget.bytes = static_cast<int64_t>(bytes);
  return budget;
}

std::optional<int64_t> mlir::echo::parseLossChunks(llvm::StringRef text,
                                                   std::string &error) {
  if (text == "auto")
    return kAutoLossChunks;
  if (text == "off")
    return 0;
  int64_t chunks = 0;
  if (!text.getAsInteger(10, chunks) && chunks >= 2)
    return chunks;
  error = ("chunk-loss must be auto, off or a number of chunks >= 2, got '" +
           text + "'")
              .str();
  return std::nullopt;
}

std::optional<RecomputeBudget>
mlir::echo::checkRecomputeBudgetOptions(RecomputeStrategy strategy,
                                        llvm::StringRef budget, int64_t reserve,
                                        std::string &error) {
  bool isBudget = strategy == RecomputeStrategy::Budget;
  if (isBudget && budget.empty()) {
    error = "strategy=budget needs budget= (bytes, or a share of none's: "
            "0.5, 50%)";
    return std::nullopt;
  }
  if (!isBudget && !budget.empty()) {
    error = ("budget= is for strategy=budget, not strategy=" +
             stringifyRecomputeStrategy(strategy))
                .str();
    return std::nullopt;
  }
  if (reserve < 0 || (reserve > 0 && !isBudget)) {
    error = "budget-reserve must be a byte count >= 0 with strategy=budget, "
            "got " +
            std::to_string(reserve);
    return std::nullopt;
  }
  if (!isBudget)
    return RecomputeBudget();
  return parseRecomputeBudget(budget, error);
}
