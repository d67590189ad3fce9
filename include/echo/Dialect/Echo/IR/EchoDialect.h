//===- EchoDialect.h - Echo dialect -----------------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHODIALECT_H
#define ECHO_DIALECT_ECHO_IR_ECHODIALECT_H

#include "mlir/IR/Dialect.h"

#include "echo/Dialect/Echo/IR/EchoOpsDialect.h.inc"

#endif // ECHO_DIALECT_ECHO_IR_ECHODIALECT_H
