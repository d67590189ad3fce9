//===- EchoCpuDnnImpl.h - What the oneDNN calls share -----------*- C++ -*-===//
//
// Part of the Echo project.
//
// Private to libEchoCpuRuntime: the oneDNN primitives that the CPU
// runtime's bf16 GEMMs (EchoCpuMatmul.cpp) and convolutions
// (EchoCpuConv.cpp) make, their cache, and the one scratchpad they share
// (EchoCpuDnn.cpp defines what is declared here).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_CPU_ECHOCPUDNNIMPL_H
#define ECHO_RUNTIME_CPU_ECHOCPUDNNIMPL_H

#include "EchoCpuRuntimeImpl.h"

#include <cstddef>
#include <map>

namespace echo_cpu_runtime {

/// A oneDNN primitive (a bf16 matmul, a convolution) and the memory objects
/// it runs on: source, weights, destination (the matmul's A, B and C), and
/// its scratchpad.
struct DnnPrimitive {
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_t src = nullptr, weights = nullptr, dst = nullptr,
                scratchpad = nullptr;
  size_t scratchpadBytes = 0;
};

/// Destroys the oneDNN objects of `p` (those it has).
void destroy(DnnPrimitive &p);

/// True when the environment variable `name` is `value`, false when it is
/// unset or empty; any other value is an error (recorded, the step fails)
/// rather than read as the default.
bool envSelects(const char *name, const char *value);

/// The primitives made so far, by what identifies them; destroyed with the
/// runtime (oneDNN's objects are not freed by the map's own destructor).
template <typename Key, typename Value = DnnPrimitive>
struct PrimitiveCache : std::map<Key, Value> {
  ~PrimitiveCache() {
    for (auto &entry : *this)
      destroy(entry.second);
  }
};

/// Makes the primitive of `pd` (which it destroys) and its memory objects
/// for the given source, weights and destination descriptors, plus its
/// scratchpad's; false (with the error recorded) when oneDNN refuses.
bool makePrimitive(dnnl_primitive_desc_t pd, const dnnl_memory_desc_t &src,
                   const dnnl_memory_desc_t &weights,
                   const dnnl_memory_desc_t &dst, DnnPrimitive &p);

/// Points `p`'s memory objects at this call's buffers and the shared
/// scratchpad (grown to what `p` needs).
bool bindPrimitive(DnnPrimitive &p, void *src, void *weights, void *dst);

/// Grows the shared scratchpad to `bytes`.
bool reserveScratchpad(size_t bytes);

} // namespace echo_cpu_runtime

#endif // ECHO_RUNTIME_CPU_ECHOCPUDNNIMPL_H
