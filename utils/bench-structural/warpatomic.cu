// Benchmark input for sync-warp-atomic-reduction: every thread adds its
// element to one global sum with atomicAdd.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void total(const float *in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, in[i]);
}

#ifndef __CUDACC_RTC__
void app_total() {
  float *in, *sum;
  cudaMalloc(&in, 4096 * 4096 * sizeof(float));
  cudaMalloc(&sum, sizeof(float));
  total<<<4096 * 4096 / 256, 256>>>(in, sum, 4096 * 4096);
}
#endif
