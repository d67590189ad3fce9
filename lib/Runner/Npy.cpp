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
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read: " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return fail("not a NumPy .npy file");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) |
                (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i]))
                   << (8 * i);
    offset = 12;
  }
  if (bytes.size() < offset + headerLen)
    return fail("truncated header");
  StringRef header = bytes.substr(offset, headerLen);
  std::string want = npyDescr(t.getType().getElementType());
  if (!header.contains("'" + want + "'"))
    return fail("dtype must be '" + want + "' to match " +
                llvm::Twine(want == "<i4" ? "i32" : "the argument"));
  if (header.contains("'fortran_order': True"))
    return fail("Fortran order is not supported; save C order");
  size_t lp = header.find("'shape': (");
  if (lp == StringRef::npos)
    return fail("no shape in header");
  StringRef shapeText = header.substr(lp + 10);
  shapeText = shapeText.substr(0, shapeText.find(')'));
  SmallVector<int64_t> shape;
  SmallVector<StringRef> parts;
  shapeText.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef p : parts) {
    p = p.trim();
    if (p.empty())
      continue;
    int64_t v;
    if (p.getAsInteger(10, v))
      return fail("bad shape in header");
    shape.push_back(v);
  }
  if (ArrayRef<int64_t>(shape) != t.getType().getShape()) {
    std::string got, exp;
    for (int64_t d : shape)
      got += std::to_string(d) + "x";
    for (int64_t d : t.getType().getShape())
      exp += std::to_string(d) + "x";
    return fail("shape " + got + " does not match the argument's " + exp);
  }
  StringRef payload = bytes.substr(offset + headerLen);
  if (payload.size() < t.getByteSize())
    return fail("truncated data");
  std::memcpy(t.data(), payload.data(), t.getByteSize());
  return success();
}
