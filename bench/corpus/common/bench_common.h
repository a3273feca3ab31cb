// Helpers shared by the programs of the naive-style corpus (bench/corpus):
// error checking, a deterministic random generator, timers, and the
// comparison of GPU results with the CPU reference.
//
// Every program prints one timing line "GPU time: <ms> ms" (the GPU part,
// measured with CUDA events) and, as its last line, PASS or FAIL; it exits
// with 0 on PASS and 1 on FAIL.
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err = (call);                                                   \
    if (err != cudaSuccess) {                                                   \
      fprintf(stderr, "CUDA error at %s:%d: %s (%s)\n", __FILE__, __LINE__,     \
              cudaGetErrorString(err), #call);                                  \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

// After a kernel launch: launch errors now, execution errors at the next sync.
#define CUDA_CHECK_KERNEL() CUDA_CHECK(cudaGetLastError())

// ---------------------------------------------------------------------------
// Deterministic random numbers (64-bit LCG, upper bits), same on every machine.
static unsigned long long bench_rng_state = 88172645463325252ULL;

static inline void bench_srand(unsigned long long seed) {
  bench_rng_state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
}

static inline unsigned int bench_rand_u32() {
  bench_rng_state = bench_rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned int)(bench_rng_state >> 33);
}

// uniform in [lo, hi)
static inline float bench_rand_float(float lo, float hi) {
  return lo + (hi - lo) * (float)((bench_rand_u32() & 0xFFFFFF) / 16777216.0);
}

// ---------------------------------------------------------------------------
// Timers: wall clock for the CPU side, CUDA events for the GPU part.
static inline double wall_time() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void print_gpu_time(float ms) { printf("GPU time: %.3f ms\n", ms); }

static inline void print_cpu_time(double seconds) {
  printf("CPU reference time: %.3f ms\n", seconds * 1000.0);
}

// ---------------------------------------------------------------------------
// Comparison with the reference: an element is wrong when
//   |gpu - ref| > atol + rtol * |ref|   (or either is NaN/Inf when the other is not).
// Prints the largest errors and the first few wrong elements; returns how many
// elements are wrong.
template <typename G, typename R>
static inline long check_close(const char *what, const G *gpu, const R *ref, long n,
                               double rtol, double atol) {
  long bad = 0;
  double max_abs = 0.0, max_rel = 0.0;
  for (long i = 0; i < n; i++) {
    double g = (double)gpu[i], r = (double)ref[i];
    double d = fabs(g - r);
    bool ok = d <= atol + rtol * fabs(r);
    if (std::isnan(g) || std::isnan(r) || std::isinf(g) || std::isinf(r))
      ok = (std::isnan(g) && std::isnan(r)) || g == r;
    if (!ok) {
      if (bad < 5)
        printf("  %s[%ld]: gpu %.8g, reference %.8g\n", what, i, g, r);
      bad++;
    }
    if (d > max_abs) max_abs = d;
    if (fabs(r) > 0 && d / fabs(r) > max_rel) max_rel = d / fabs(r);
  }
  printf("check %s: %ld values, max abs err %.3g, max rel err %.3g, %ld outside "
         "rtol %.1g + atol %.1g\n",
         what, n, max_abs, max_rel, bad, rtol, atol);
  return bad;
}

// Exact comparison (integers).
template <typename T>
static inline long check_equal(const char *what, const T *gpu, const T *ref, long n) {
  long bad = 0;
  for (long i = 0; i < n; i++) {
    if (gpu[i] != ref[i]) {
      if (bad < 5)
        printf("  %s[%ld]: gpu %lld, reference %lld\n", what, i, (long long)gpu[i],
               (long long)ref[i]);
      bad++;
    }
  }
  printf("check %s: %ld values, %ld different\n", what, n, bad);
  return bad;
}

// Prints the verdict as the last line; the program returns its result.
static inline int finish(long bad) {
  if (bad == 0) {
    printf("PASS\n");
    return 0;
  }
  printf("FAIL\n");
  return 1;
}

#endif
