// Benchmark input for sync-warp-atomic-reduction: every thread adds its
// element to one global sum with atomicAdd.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void total(const float *in, float *sum, int n) {
  { // cuda-l1 sync-warp-atomic-reduction
    float cudal1_v = (float)0;
    for (unsigned int cudal1_b = blockIdx.x; (long long)cudal1_b * blockDim.x < (long long)(n); cudal1_b += gridDim.x) {
      int i = cudal1_b * blockDim.x + threadIdx.x;
      if (i < n)
        cudal1_v += (float)(in[i]);
    }
    for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
      cudal1_v += __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);
    __shared__ float cudal1_w[32];
    if ((threadIdx.x & 31u) == 0u)
      cudal1_w[(threadIdx.x >> 5)] = cudal1_v;
    __syncthreads();
    if ((threadIdx.x >> 5) == 0u) {
      cudal1_v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? cudal1_w[(threadIdx.x & 31u)] : (float)0;
      for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
        cudal1_v += __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);
      if ((threadIdx.x & 31u) == 0u)
        atomicAdd(sum, cudal1_v);
    }
  }
}

#ifndef __CUDACC_RTC__
void app_total() {
  float *in, *sum;
  cudaMalloc(&in, 4096 * 4096 * sizeof(float));
  cudaMalloc(&sum, sizeof(float));
  total<<<((4096 * 4096 / 256) < 2048 ? (4096 * 4096 / 256) : 2048), 256>>>(in, sum, ((int)(4096 * 4096) < 1ll * (4096 * 4096 / 256) * (256) ? (int)(4096 * 4096) : 1ll * (4096 * 4096 / 256) * (256)));
}
#endif
