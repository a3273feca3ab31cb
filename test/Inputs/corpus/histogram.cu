// Histograms: global atomics and a shared-memory privatized version.
#include <cuda_runtime.h>
#include <cstdint>

#define NUM_BINS 256

__device__ unsigned int g_out_of_range;

__global__ void histogram_global(const uint8_t *data, size_t n,
                                 unsigned int *bins) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
}

__global__ void histogram_shared(const uint32_t *values, int n, uint32_t lo,
                                 uint32_t width, unsigned int *bins) {
  __shared__ unsigned int local[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    uint32_t bin = (values[i] - lo) / width;
    if (bin < NUM_BINS)
      atomicAdd(&local[bin], 1u);
    else
      atomicAdd(&g_out_of_range, 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
    if (local[b])
      atomicAdd(&bins[b], local[b]);
}

void histograms(const uint8_t *bytes, const uint32_t *vals, unsigned *bins, int n) {
  histogram_global<<<64, 256>>>(bytes, n, bins);
  histogram_shared<<<64, 256>>>(vals, n, 0u, 16u, bins);
}
