//===- stream_triad.c - Measured memory bandwidth of the host -------------===//
//
// Part of the Echo project: bench/machine.py compiles this file at
// calibration time with `cc -O2 -march=native -pthread`.
//
//===----------------------------------------------------------------------===//
//
// STREAM's triad, a[i] = b[i] + s * c[i], over three float arrays of
// ARRAY_MIB MiB each (bench/machine.py makes them several times the last-level
// cache), split between one pinned pthread per CPU; each thread first-touches
// its own part. Bytes are counted as STREAM does: 3 x 4 bytes per element
// (two reads and a write; the write-allocate read is not counted).
//
// Usage: stream_triad THREADS ARRAY_MIB PASSES
// Prints {"threads": T, "array_bytes": B, "bytes_per_pass": P,
//         "pass_wall_s": [...]} (each pass timed between barriers).
//
//===----------------------------------------------------------------------===//

#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
  int cpu, passes;
  size_t begin, end;
  float *a, *b, *c;
  double *pass_s;
  pthread_barrier_t *barrier;
} Job;

static void *worker(void *arg) {
  Job *job = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(job->cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  float *restrict a = job->a, *restrict b = job->b, *restrict c = job->c;
  for (size_t i = job->begin; i < job->end; ++i) {
    a[i] = 0.0f;
    b[i] = 1.0f;
    c[i] = 2.0f;
  }
  const float s = 3.0f;
  for (int p = 0; p < job->passes; ++p) {
    pthread_barrier_wait(job->barrier);
    double start = now();
    for (size_t i = job->begin; i < job->end; ++i)
      a[i] = b[i] + s * c[i];
    pthread_barrier_wait(job->barrier);
    if (job->pass_s)
      job->pass_s[p] = now() - start;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s THREADS ARRAY_MIB PASSES\n", argv[0]);
    return 2;
  }
  int threads = atoi(argv[1]), passes = atoi(argv[3]);
  size_t n = (size_t)atol(argv[2]) * 1024 * 1024 / sizeof(float);
  if (threads < 1 || passes < 1 || n < (size_t)threads) {
    fprintf(stderr, "stream_triad: bad arguments\n");
    return 2;
  }
  float *a = aligned_alloc(64, n * sizeof(float));
  float *b = aligned_alloc(64, n * sizeof(float));
  float *c = aligned_alloc(64, n * sizeof(float));
  double *pass_s = calloc(passes, sizeof(double));
  if (!a || !b || !c || !pass_s) {
    fprintf(stderr, "stream_triad: out of memory\n");
    return 1;
  }
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof(allowed), &allowed);
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, threads);
  Job *jobs = calloc(threads, sizeof(Job));
  pthread_t *ids = calloc(threads, sizeof(pthread_t));
  int cpu = 0;
  for (int t = 0; t < threads; ++t) {
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &allowed))
      ++cpu;
    jobs[t] = (Job){.cpu = cpu < CPU_SETSIZE ? cpu++ : t,
                    .passes = passes,
                    .begin = n * t / threads,
                    .end = n * (t + 1) / threads,
                    .a = a,
                    .b = b,
                    .c = c,
                    .pass_s = t == 0 ? pass_s : NULL,
                    .barrier = &barrier};
    pthread_create(&ids[t], NULL, worker, &jobs[t]);
  }
  for (int t = 0; t < threads; ++t)
    pthread_join(ids[t], NULL);
  double check = 0;
  for (size_t i = 0; i < n; i += 4096)
    check += a[i];
  printf("{\"threads\": %d, \"array_bytes\": %zu, \"bytes_per_pass\": %zu, "
         "\"check\": %g, \"pass_wall_s\": [",
         threads, n * sizeof(float), 3 * n * sizeof(float), check);
  for (int p = 0; p < passes; ++p)
    printf("%s%.6f", p ? ", " : "", pass_s[p]);
  printf("]}\n");
  return 0;
}
