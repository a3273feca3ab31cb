// Benchmark input for algebraic-invariant-factor: a scaled sum of products
// of shared-memory values (no global traffic in the loop, so the multiply per
// iteration is a visible part of the work).
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void dot_scaled(const float *a, const float *b, float *out,
                           float alpha, int n) {
  __shared__ float tile[256];
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = a[row] + b[threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += alpha * tile[(k + threadIdx.x) & 255] * tile[(3 * k) & 255];
  out[row] = acc;
}

#ifndef __CUDACC_RTC__
void launch_dot_scaled(const float *a, const float *b, float *out) {
  dot_scaled<<<4096 * 4096 / 256 / 16, 256>>>(a, b, out, 0.75f, 4096);
}
#endif
