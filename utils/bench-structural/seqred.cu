// Benchmark input for sync-sequential-reduction: the interleaved
// shared-memory tree reduction ("reduce0"), one partial sum per block.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void reduce0(const float *in, float *out) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

#ifndef __CUDACC_RTC__
void app_reduce0() {
  float *in, *out;
  cudaMalloc(&in, 4096 * 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 / 256 * sizeof(float));
  reduce0<<<4096 * 4096 / 256, 256>>>(in, out);
}
#endif
