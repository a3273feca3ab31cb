// Shared by divmod-bench.cu and divmod-sweep.cu: error checks, the
// multiply-high divider and a median timer.
#ifndef DIVMOD_COMMON_CUH
#define DIVMOD_COMMON_CUH
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

// q = (umulhi(x, m) + x) >> s for 0 <= x < 2^31 and 1 <= d < 2^31
// (round-up magic number; Granlund & Montgomery 1994).
struct Div {
  unsigned m, s, d;
  __device__ explicit Div(unsigned d_) : d(d_) {
    s = d_ > 1 ? 32 - __clz(d_ - 1) : 0;
    m = (unsigned)(((1ull << 32) * ((1ull << s) - d_)) / d_ + 1);
  }
  __device__ unsigned div(unsigned x) const { return (__umulhi(x, m) + x) >> s; }
  __device__ unsigned mod(unsigned x) const { return x - div(x) * d; }
};

// The median of \p reps timed launches of f (after one warm-up).
template <class F> float timeit(F f, int reps = 15) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  f(); CK(cudaDeviceSynchronize());
  std::vector<float> ts;
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}
#endif
