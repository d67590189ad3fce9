//===- Nesting.cpp - Bounding the nesting depth of tool inputs ------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Support/Nesting.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::echo;

/// The 1-based line and column of `offset` in `text`.
static std::pair<size_t, size_t> getLineAndColumn(StringRef text,
                                                  size_t offset) {
  StringRef before = text.take_front(offset);
  size_t lineStart = before.rfind('\n');
  size_t column =
      lineStart == StringRef::npos ? offset + 1 : offset - lineStart;
  return {before.count('\n') + 1, column};
}

/// The offset just past the string literal that opens at `at` (a '"'):
/// after its closing quote, or at the end of its line when it has none
/// (the parser reports that; here it only must not swallow the file).
static size_t skipString(StringRef text, size_t at, bool stopAtNewline) {
  for (size_t i = at + 1, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '\\')
      ++i;
    else if (c == '"')
      return i + 1;
    else if (c == '\n' && stopAtNewline)
      return i;
  }
  return text.size();
}

std::optional<size_t> mlir::echo::findMLIRNestingBeyond(StringRef text,
                                                        unsigned limit) {
  size_t depth = 0;
  for (size_t i = 0, e = text.size(); i < e;) {
    char c = text[i];
    if (c == '"') {
      i = skipString(text, i, /*stopAtNewline=*/true);
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      size_t end = text.find('\n', i);
      i = end == StringRef::npos ? e : end;
      continue;
    }
    switch (c) {
    case '{':
    case '(':
    case '[':
    case '<':
      if (++depth > limit)
        return i;
      break;
    case '>':
      // An arrow (->) or a comparison (>=, in integer sets) closes nothing.
      if ((i > 0 && text[i - 1] == '-') || (i + 1 < e && text[i + 1] == '='))
        break;
      [[fallthrough]];
    case '}':
    case ')':
    case ']':
      // Unbalanced closers are the parser's to report.
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
    ++i;
  }
  return std::nullopt;
}

std::optional<size_t> mlir::echo::findJSONNestingBeyond(StringRef text,
                                                        unsigned limit) {
  size_t depth = 0;
  for (size_t i = 0, e = text.size(); i < e;) {
    char c = text[i];
    if (c == '"') {
      i = skipString(text, i, /*stopAtNewline=*/false);
      continue;
    }
    if (c == '{' || c == '[') {
      if (++depth > limit)
        return i;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
    ++i;
  }
  return std::nullopt;
}

LogicalResult mlir::echo::checkMLIRNesting(const llvm::MemoryBuffer &buffer,
                                           std::string &error, unsigned limit) {
  StringRef text = buffer.getBuffer();
  // MLIR bytecode ("ML\xefR") is binary: its bytes are no brackets.
  if (text.starts_with("ML\xef"
                       "R"))
    return success();
  std::optional<size_t> at = findMLIRNestingBeyond(text, limit);
  if (!at)
    return success();
  auto [line, column] = getLineAndColumn(text, *at);
  error = llvm::formatv("{0}:{1}:{2}: error: nesting deeper than {3} levels "
                        "(braces, parentheses, square and angle brackets); "
                        "Echo's tools parse no deeper",
                        buffer.getBufferIdentifier(), line, column, limit);
  return failure();
}

LogicalResult mlir::echo::checkJSONNesting(StringRef text, std::string &error,
                                           unsigned limit) {
  std::optional<size_t> at = findJSONNestingBeyond(text, limit);
  if (!at)
    return success();
  auto [line, column] = getLineAndColumn(text, *at);
  error = llvm::formatv("nests deeper than {0} levels (line {1}, column {2})",
                        limit, line, column);
  return failure();
}
