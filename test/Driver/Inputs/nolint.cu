#include <cuda_runtime.h>

__global__ void k(const float *__restrict__ a, float *out,
                  const float *__restrict__ b, int n) {
  int i = threadIdx.x;
  // NOLINTNEXTLINE(coalescing-*)
  float x = a[i * n];
  for (int j = 0; j < n; ++j) {
    out[i] += x * b[j];
    out[i * n + j] = 0.5f; // NOLINT(coalescing-uncoalesced-access)
  }
  // NOLINTBEGIN
  out[i * n] = a[i * n + 1];
  // NOLINTEND
  out[i * n + 2] = a[i * n + 2]; // NOLINT
}

__global__ void unused() {}

void launch(const float *a, float *o, int n) {
  // 1024 blocks of 100 threads
  int blocks = 1024;
  k<<<1024, 100>>>(a, o, a, n);
}
