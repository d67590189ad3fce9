//===- CommandLine.h - What Echo's tools show in --help ---------*- C++ -*-===//
//
// Part of the Echo project.
//
// Echo's tools link all of LLVM and MLIR, whose libraries register hundreds
// of command-line options (every backend's, AMDGPU's and MIPS's included).
// A tool's --help lists its own options only; the others still parse and
// are listed by --help-hidden.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_SUPPORT_COMMANDLINE_H
#define ECHO_SUPPORT_COMMANDLINE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::echo {

/// Hides from --help every option outside `category` and LLVM's generic
/// ones (--help, --version), as llvm::cl::HideUnrelatedOptions does, but
/// leaves them listed by --help-hidden and --help-list-hidden. Call it
/// before llvm::cl::ParseCommandLineOptions.
inline void hideUnrelatedOptions(llvm::cl::OptionCategory &category) {
  llvm::SmallVector<llvm::cl::Option *> shown;
  for (auto &entry : llvm::cl::getRegisteredOptions())
    if (entry.second->getOptionHiddenFlag() == llvm::cl::NotHidden)
      shown.push_back(entry.second);
  llvm::cl::HideUnrelatedOptions(category);
  for (llvm::cl::Option *option : shown)
    if (option->getOptionHiddenFlag() == llvm::cl::ReallyHidden)
      option->setHiddenFlag(llvm::cl::Hidden);
}

} // namespace mlir::echo

#endif // ECHO_SUPPORT_COMMANDLINE_H
