//===- EchoStepObject.h - What a compiled step's object provides -*- C++
//-*-===//
//
// Part of the Echo project.
//
// The symbols `echo-run --emit-aot` and `--emit-library` put into the step's
// object (lib/Runner/AotBundle.cpp), which the executable driver
// (EchoStepMain.cpp) and the shared-library front (EchoStepLibrary.cpp)
// call.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_AOT_ECHOSTEPOBJECT_H
#define ECHO_RUNTIME_AOT_ECHOSTEPOBJECT_H

#include <cstdint>

extern "C" {
/// The packed entry point echo-run adds to the step's object: calls
/// `_mlir_ciface_<model>_train` with descriptors[0 .. n).
void echo_aot_step(void **descriptors);
/// How many descriptors echo_aot_step reads.
extern const int64_t echo_aot_num_descriptors;
/// The manifest of the step, as echo-run printed it into the object
/// (EchoStepManifest.h).
extern const char echo_step_signature[];
/// The memory report echo-run computed for the step.
extern const char echo_step_memory_report[];
}

#endif // ECHO_RUNTIME_AOT_ECHOSTEPOBJECT_H
