//===- RuntimeLibrary.cpp - Opening an Echo runtime library ---------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "RuntimeLibrary.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::optional<llvm::sys::DynamicLibrary>
mlir::echo::detail::openRuntimeLibrary(StringRef path, StringRef missing,
                                       StringRef hint) {
  if (path.empty() || !llvm::sys::fs::exists(path)) {
    llvm::errs() << "echo-run: " << missing << " (not found"
                 << (path.empty() ? std::string()
                                  : (" at '" + path + "'").str())
                 << "; " << hint << ")\n";
    return std::nullopt;
  }
  std::string error;
  auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(
      path.str().c_str(), &error);
  if (!library.isValid()) {
    llvm::errs() << "echo-run: cannot load " << path << ": " << error << "\n";
    return std::nullopt;
  }
  return library;
}
