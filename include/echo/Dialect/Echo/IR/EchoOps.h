//===- EchoOps.h - Echo operations ------------------------------*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_DIALECT_ECHO_IR_ECHOOPS_H
#define ECHO_DIALECT_ECHO_IR_ECHOOPS_H

#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"
#include "echo/Runtime/EchoRuntimeABI.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "echo/Dialect/Echo/IR/EchoEnums.h.inc"

#define GET_OP_CLASSES
#include "echo/Dialect/Echo/IR/EchoOps.h.inc"

#endif // ECHO_DIALECT_ECHO_IR_ECHOOPS_H
