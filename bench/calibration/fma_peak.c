//===- fma_peak.c - Measured fp32 FMA peak of the host --------------------===//
//
// Part of the Echo project: bench/machine.py compiles this file at
// calibration time with `cc -O2 -march=native -pthread`.
//
//===----------------------------------------------------------------------===//
//
// One pthread per CPU (pinned), each running fused multiply-adds on
// register-resident vectors: NACC independent accumulators, more than an FMA
// pipeline's latency times its ports, so the loop is bound by FMA throughput
// alone. Every vector width the compiler may emit for this machine is timed
// (256-bit with FMA3, 512-bit with AVX-512F): some cores run two 512-bit FMAs
// a cycle, others split them.
//
// Usage: fma_peak THREADS MILLISECONDS
// Prints one JSON object per width:
//   {"width_bits": W, "threads": T, "flops": F, "wall_s": S,
//    "thread_flops": [...], "thread_cpu_s": [...]}
// thread_cpu_s is each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID): the
// rate flops / cpu_s is what one core delivers while it runs, whatever else
// shares the machine.
//
//===----------------------------------------------------------------------===//

#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/// Accumulators per thread: 16 covers 2 ports x a 4-8 cycle latency and
/// leaves registers for the two constants (32 zmm; 16 ymm hold 12 + 2).
#define NACC512 16
#define NACC256 12
/// Inner iterations between clock reads.
#define CHUNK 200000

static double now(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
  int cpu, width;
  double seconds;
  pthread_barrier_t *start;
  double flops, cpu_s, wall_s, sink;
} Job;

/// The accumulators, as a list macro: X(i) for each.
#define ACC256(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define ACC512(X) ACC256(X) X(12) X(13) X(14) X(15)

#ifdef __FMA__
/// 256-bit FMAs: acc = acc * a + b, a fixed point well inside the normal
/// range (no denormals, no overflow).
static double run256(double seconds, double *flops) {
  __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f);
#define DECL(i) __m256 r##i = _mm256_set1_ps(1.0f + 1e-3f * (i));
#define STEP(i) r##i = _mm256_fmadd_ps(r##i, a, b);
#define SUM(i) s = _mm256_add_ps(s, r##i);
  ACC256(DECL);
  double start = now(CLOCK_MONOTONIC), n = 0;
  do {
    for (int k = 0; k < CHUNK; ++k) {
      ACC256(STEP);
      __asm__ volatile("" : "+x"(a));
    }
    n += CHUNK;
  } while (now(CLOCK_MONOTONIC) - start < seconds);
  __m256 s = _mm256_setzero_ps();
  ACC256(SUM);
#undef DECL
#undef STEP
#undef SUM
  *flops = n * NACC256 * 8 * 2;
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0];
}
#endif

#ifdef __AVX512F__
static double run512(double seconds, double *flops) {
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f);
#define DECL(i) __m512 r##i = _mm512_set1_ps(1.0f + 1e-3f * (i));
#define STEP(i) r##i = _mm512_fmadd_ps(r##i, a, b);
#define SUM(i) s = _mm512_add_ps(s, r##i);
  ACC512(DECL);
  double start = now(CLOCK_MONOTONIC), n = 0;
  do {
    for (int k = 0; k < CHUNK; ++k) {
      ACC512(STEP);
      __asm__ volatile("" : "+v"(a));
    }
    n += CHUNK;
  } while (now(CLOCK_MONOTONIC) - start < seconds);
  __m512 s = _mm512_setzero_ps();
  ACC512(SUM);
#undef DECL
#undef STEP
#undef SUM
  *flops = n * NACC512 * 16 * 2;
  return _mm512_reduce_add_ps(s);
}
#endif

static void *worker(void *arg) {
  Job *job = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(job->cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  pthread_barrier_wait(job->start);
  double wall = now(CLOCK_MONOTONIC), cpu = now(CLOCK_THREAD_CPUTIME_ID);
  job->flops = 0;
#ifdef __AVX512F__
  if (job->width == 512)
    job->sink = run512(job->seconds, &job->flops);
#endif
#ifdef __FMA__
  if (job->width == 256)
    job->sink = run256(job->seconds, &job->flops);
#endif
  job->cpu_s = now(CLOCK_THREAD_CPUTIME_ID) - cpu;
  job->wall_s = now(CLOCK_MONOTONIC) - wall;
  return NULL;
}

static void measure(int width, int threads, double seconds) {
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof(allowed), &allowed);
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, threads);
  Job *jobs = calloc(threads, sizeof(Job));
  pthread_t *ids = calloc(threads, sizeof(pthread_t));
  int cpu = 0;
  for (int t = 0; t < threads; ++t) {
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &allowed))
      ++cpu;
    jobs[t] = (Job){.cpu = cpu < CPU_SETSIZE ? cpu++ : t,
                    .width = width,
                    .seconds = seconds,
                    .start = &start};
    pthread_create(&ids[t], NULL, worker, &jobs[t]);
  }
  double flops = 0, wall = 0, sink = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    flops += jobs[t].flops;
    wall = jobs[t].wall_s > wall ? jobs[t].wall_s : wall;
    sink += jobs[t].sink;
  }
  printf("{\"width_bits\": %d, \"threads\": %d, \"flops\": %.0f, "
         "\"wall_s\": %.6f, \"sink\": %g, \"thread_flops\": [",
         width, threads, flops, wall, sink);
  for (int t = 0; t < threads; ++t)
    printf("%s%.0f", t ? ", " : "", jobs[t].flops);
  printf("], \"thread_cpu_s\": [");
  for (int t = 0; t < threads; ++t)
    printf("%s%.6f", t ? ", " : "", jobs[t].cpu_s);
  printf("]}\n");
  free(jobs);
  free(ids);
  pthread_barrier_destroy(&start);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s THREADS MILLISECONDS\n", argv[0]);
    return 2;
  }
  int threads = atoi(argv[1]);
  double seconds = atof(argv[2]) * 1e-3;
  if (threads < 1 || seconds <= 0) {
    fprintf(stderr, "fma_peak: bad arguments\n");
    return 2;
  }
#ifdef __FMA__
  measure(256, threads, seconds);
#endif
#ifdef __AVX512F__
  measure(512, threads, seconds);
#endif
#if !defined(__FMA__) && !defined(__AVX512F__)
  fprintf(stderr, "fma_peak: the compiler targets no FMA instructions here\n");
  return 1;
#endif
  return 0;
}
