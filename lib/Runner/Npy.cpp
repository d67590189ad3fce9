//===- Npy.cpp - NumPy .npy files of host tensors -------------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/Npy.h"

#include "EchoHostData.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::echo;

/// The .npy dtype of an element type, or "" when it has none here.
static std::string npyDescr(Type et) {
  if (et.isF32())
    return "<f4";
  if (et.isF64())
    return "<f8";
  if (et.isInteger(32))
    return "<i4";
  if (et.isInteger(64))
    return "<i8";
  return "";
}

LogicalResult mlir::echo::writeNpy(StringRef path, const HostTensor &t) {
  std::string header =
      host::npyHeader(npyDescr(t.getType().getElementType()), t.getShape());
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "echo-run: cannot write " << path << ": " << ec.message()
                 << "\n";
    return failure();
  }
  os << header;
  os.write(static_cast<const char *>(t.data()), t.getByteSize());
  return success();
}

LogicalResult mlir::echo::readNpy(StringRef path, HostTensor &t,
                                  unsigned argIndex) {
  auto fail = [&](const Twine &msg) {
    llvm::errs() << "echo-run: " << path << " (argument " << argIndex
                 << "): " << msg << "\n";
    return failure();
  };
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("cannot read: " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  host::NpyArray array;
  std::string error;
  if (!host::parseNpy(bytes.data(), bytes.size(), array, error))
    return fail(error);
  std::string want = npyDescr(t.getType().getElementType());
  if (array.descr != want)
    return fail("dtype '" + array.descr + "' does not match the argument's '" +
                want + "' (" + (want == "<i4" ? "i32" : "its element type") +
                ")");
  if (ArrayRef<int64_t>(array.shape) != t.getType().getShape()) {
    auto format = [](ArrayRef<int64_t> shape) {
      std::string text = "(";
      for (auto [i, d] : llvm::enumerate(shape))
        text += (i ? ", " : "") + std::to_string(d);
      return text + (shape.size() == 1 ? ",)" : ")");
    };
    return fail("shape " + format(array.shape) +
                " does not match the argument's " +
                format(t.getType().getShape()));
  }
  std::memcpy(t.data(), array.data, t.getByteSize());
  return success();
}
