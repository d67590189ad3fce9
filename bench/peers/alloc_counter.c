/* An LD_PRELOAD allocation counter for bench/peers/torch_memory.py.
 *
 * Interposes malloc, calloc, realloc, free, posix_memalign, aligned_alloc,
 * memalign and valloc over glibc's (__libc_*), and counts the live bytes
 * (malloc_usable_size of every block: what the process holds, within
 * malloc's rounding) and their high-water mark. PyTorch's CPU allocator
 * takes tensor storage with posix_memalign, so every tensor byte passes
 * here. Python reads the counters with ctypes:
 *   alloc_counter_live(), alloc_counter_peak(), alloc_counter_reset_peak().
 * Build: cc -O2 -shared -fPIC alloc_counter.c -o alloc_counter.so
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static size_t live, peak;

static void *counted(void *p) {
  if (p) {
    size_t now = __atomic_add_fetch(&live, malloc_usable_size(p),
                                    __ATOMIC_RELAXED);
    size_t seen = __atomic_load_n(&peak, __ATOMIC_RELAXED);
    while (now > seen &&
           !__atomic_compare_exchange_n(&peak, &seen, now, 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  }
  return p;
}

static void uncount(void *p) {
  if (p)
    __atomic_sub_fetch(&live, malloc_usable_size(p), __ATOMIC_RELAXED);
}

void *malloc(size_t n) { return counted(__libc_malloc(n)); }
void *calloc(size_t n, size_t m) { return counted(__libc_calloc(n, m)); }
void free(void *p) {
  uncount(p);
  __libc_free(p);
}
void *realloc(void *p, size_t n) {
  uncount(p);
  void *q = __libc_realloc(p, n);
  if (!q && p && n) /* the old block is still there */
    return counted(p), NULL;
  return counted(q);
}
void *memalign(size_t a, size_t n) { return counted(__libc_memalign(a, n)); }
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
void *valloc(size_t n) { return memalign(4096, n); }
int posix_memalign(void **out, size_t a, size_t n) {
  void *p = memalign(a, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}

size_t alloc_counter_live(void) { return live; }
size_t alloc_counter_peak(void) { return peak; }
void alloc_counter_reset_peak(void) { peak = live; }
