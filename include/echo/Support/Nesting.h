//===- Nesting.h - Bounding the nesting depth of tool inputs ----*- C++ -*-===//
//
// Part of the Echo project.
//
// MLIR's parser and llvm::json::parse descend recursively, one stack frame
// or more per level of nesting: 5,000 nested regions in an .mlir file, or a
// JSON file 100,000 brackets deep, overflow the stack and the tool dies of
// SIGSEGV. Echo's tools scan their text inputs first, which costs one pass
// over the bytes and no recursion, and refuse one nested deeper than a
// bound with a located one-line error.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_SUPPORT_NESTING_H
#define ECHO_SUPPORT_NESTING_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlir::echo {

/// The deepest nesting Echo's tools parse in MLIR source: braces,
/// parentheses, square and angle brackets outside string literals and
/// comments, counted together. Models nest a few tens deep; the parser
/// overflows an 8 MiB stack between 2,000 and 5,000 nested regions.
constexpr unsigned maxMLIRNesting = 1000;

/// The deepest nesting of objects and arrays Echo's tools parse in JSON
/// (machine calibrations nest three deep).
constexpr unsigned maxJSONNesting = 1000;

/// The offset in the MLIR source `text` of the first bracket that opens
/// level `limit + 1`, or nullopt when `text` nests no deeper than `limit`.
/// Strings ("...", with backslash escapes) and `//` comments are skipped;
/// `>` of `->` and `>=` closes nothing.
std::optional<size_t> findMLIRNestingBeyond(StringRef text, unsigned limit);

/// The offset in the JSON `text` of the first `{` or `[` (outside strings)
/// that opens level `limit + 1`, or nullopt when `text` nests no deeper than
/// `limit`.
std::optional<size_t> findJSONNestingBeyond(StringRef text, unsigned limit);

/// Fails when the MLIR source in `buffer` (MLIR bytecode is not scanned)
/// nests deeper than `limit`, with `error` as the one line a tool prints:
/// "<buffer name>:<line>:<column>: error: ...".
LogicalResult checkMLIRNesting(const llvm::MemoryBuffer &buffer,
                               std::string &error,
                               unsigned limit = maxMLIRNesting);

/// Fails when the JSON `text` nests deeper than `limit`, with `error`
/// saying how and where: "nests deeper than 1000 levels (line 1, column
/// 1001)".
LogicalResult checkJSONNesting(StringRef text, std::string &error,
                               unsigned limit = maxJSONNesting);

} // namespace mlir::echo

#endif // ECHO_SUPPORT_NESTING_H
