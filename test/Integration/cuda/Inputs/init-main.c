/* Links a compiled step with the Echo CUDA runtime and reports whether the
   GPU can be initialized. */
#include "EchoCudaRuntime.h"
#include <stdio.h>

int main(void) {
  if (echoCudaInit(0) != 0) {
    fprintf(stderr, "echoCudaInit: %s\n", echoCudaGetError());
    return 1;
  }
  printf("GPU: %s\n", echoCudaDeviceName());
  return 0;
}
