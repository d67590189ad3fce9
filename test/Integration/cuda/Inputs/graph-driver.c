/* A driver of four steps, each one copy between device buffers, under
   ECHO_CUDA_GRAPH=1 (the second step captured, the third and fourth
   replayed). With an argument, the fourth step copies from another buffer:
   a replay of the captured graph would copy the wrong one, so the runtime
   must refuse it. */
#include "EchoCudaRuntime.h"
#include <stdio.h>

#ifdef __cplusplus
extern "C"
#endif
    void
    mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);

int main(int argc, char **argv) {
  (void)argv;
  if (echoCudaInit(0) != 0) {
    fprintf(stderr, "echoCudaInit: %s\n", echoCudaGetError());
    return 1;
  }
  void *dst = echoCudaMalloc(64), *src = echoCudaMalloc(64),
       *other = echoCudaMalloc(64);
  for (int step = 1; step <= 4; ++step) {
    echoCudaTimerStart();
    mgpuMemcpy(dst, step == 4 && argc > 1 ? other : src, 64, 0);
    if (echoCudaTimerStop() < 0) {
      fprintf(stderr, "step %d: %s\n", step, echoCudaGetError());
      return 1;
    }
  }
  printf("%s\n", echoCudaGraphStatus());
  return 0;
}
