//===- EchoCpuDnn.cpp - The oneDNN primitives' shared pieces --------------===//
//
// Part of the Echo project.
//
// What the CPU runtime's oneDNN calls share (EchoCpuDnnImpl.h): making a
// primitive and its memory objects, pointing them at a call's buffers, and
// the one runtime-owned scratchpad every primitive uses, the largest any
// call asked for (echoCpuWorkspaceBytes), which also holds the convolutions'
// reordered copies.
//
//===----------------------------------------------------------------------===//

#include "EchoCpuDnnImpl.h"

#include <cstdlib>
#include <cstring>

namespace echo_cpu_runtime {

/// Destroys the oneDNN objects of `p` (those it has).
void destroy(DnnPrimitive &p) {
  Dnn &d = rt.dnn;
  if (p.primitive)
    d.primitiveDestroy(p.primitive);
  for (dnnl_memory_t m : {p.src, p.weights, p.dst, p.scratchpad})
    if (m)
      d.memoryDestroy(m);
  p = DnnPrimitive();
}

/// True when the environment variable `name` is `value`, false when it is
/// unset or empty; any other value is an error (recorded, the step fails)
/// rather than read as the default.
bool envSelects(const char *name, const char *value) {
  const char *set = std::getenv(name);
  if (!set || !*set)
    return false;
  if (std::strcmp(set, value) == 0)
    return true;
  fail("%s=%s: the only value it takes is '%s' (unset: the default)", name, set,
       value);
  return false;
}

/// Makes the primitive of `pd` (which it destroys) and its memory objects
/// for the given source, weights and destination descriptors, plus its
/// scratchpad's; false (with the error recorded) when oneDNN refuses.
bool makePrimitive(dnnl_primitive_desc_t pd, const dnnl_memory_desc_t &src,
                   const dnnl_memory_desc_t &weights,
                   const dnnl_memory_desc_t &dst, DnnPrimitive &p) {
  Dnn &d = rt.dnn;
  const dnnl_memory_desc_t *scratch =
      d.pdQueryMd(pd, dnnl_query_scratchpad_md, 0);
  p.scratchpadBytes = scratch ? d.mdGetSize(scratch) : 0;
  bool ok =
      dnnOk(d.primitiveCreate(&p.primitive, pd), "oneDNN primitive") &&
      dnnOk(d.memoryCreate(&p.src, &src, rt.engine, DNNL_MEMORY_NONE),
            "oneDNN memory") &&
      dnnOk(d.memoryCreate(&p.weights, &weights, rt.engine, DNNL_MEMORY_NONE),
            "oneDNN memory") &&
      dnnOk(d.memoryCreate(&p.dst, &dst, rt.engine, DNNL_MEMORY_NONE),
            "oneDNN memory") &&
      (!scratch || dnnOk(d.memoryCreate(&p.scratchpad, scratch, rt.engine,
                                        DNNL_MEMORY_NONE),
                         "oneDNN memory"));
  d.pdDestroy(pd);
  if (!ok)
    destroy(p);
  return ok;
}

/// Points `p`'s memory objects at this call's buffers and the shared
/// scratchpad (grown to what `p` needs).
bool bindPrimitive(DnnPrimitive &p, void *src, void *weights, void *dst) {
  Dnn &d = rt.dnn;
  return reserveScratchpad(p.scratchpadBytes) &&
         dnnOk(d.memorySetHandle(p.src, src), "oneDNN memory") &&
         dnnOk(d.memorySetHandle(p.weights, weights), "oneDNN memory") &&
         dnnOk(d.memorySetHandle(p.dst, dst), "oneDNN memory") &&
         (!p.scratchpad || dnnOk(d.memorySetHandle(p.scratchpad, rt.scratchpad),
                                 "oneDNN memory"));
}

/// Grows the shared scratchpad to `bytes`.
bool reserveScratchpad(size_t bytes) {
  if (bytes <= rt.scratchpadBytes)
    return true;
  // The old contents are not needed: free them first, so that the
  // workspace never holds two scratchpads.
  if (rt.release)
    rt.release(rt.scratchpad);
  else
    free(rt.scratchpad);
  rt.scratchpad = nullptr;
  rt.scratchpadBytes = 0;
  void *grown = nullptr;
  if (rt.allocate)
    grown = rt.allocate(64, bytes);
  else if (posix_memalign(&grown, 64, bytes) != 0)
    grown = nullptr;
  if (!grown) {
    failOutOfMemory("cannot allocate a %zu-byte oneDNN scratchpad", bytes);
    return false;
  }
  rt.scratchpad = grown;
  rt.scratchpadBytes = bytes;
  return true;
}

} // namespace echo_cpu_runtime
