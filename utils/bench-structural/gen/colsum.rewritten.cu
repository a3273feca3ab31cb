// Benchmark input for coalescing-column-split: column means of a row-major
// matrix, one thread per column walking every row (the covariance / mean
// kernels of the naive-style corpus). The rewrite changes the grid, so the
// driver launches through the launch_* functions of the original and of the
// rewritten files. colmean2d is launched with a 32x8 block whose y index it
// never reads (8 duplicate threads per column).
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void colmean(const float *data, float *mean, int m, int n) {
  // cuda-l1 coalescing-column-split: 8 columns per block, the block's threads split the rows
  // (partial sums combined in shared memory in a fixed order).
  const unsigned int cudal1_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned int cudal1_seg = cudal1_t / 8u;
  const unsigned int cudal1_nseg = blockDim.x * blockDim.y * blockDim.z / 8u;
  __shared__ float cudal1_part_s[1024];
  int j = blockIdx.x * 8u + cudal1_t % 8u;
  if (j < m) {
    float s = 0.0f;
    for (int i = 0 + (int)cudal1_seg; i < n; i += (int)cudal1_nseg)
      s += data[i * m + j];
    cudal1_part_s[cudal1_t] = s;
  }
  __syncthreads();
  if (cudal1_seg == 0u && (j < m)) {
    float s = 0.0f;
    s = cudal1_part_s[cudal1_t];
    for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q)
      s += cudal1_part_s[cudal1_t + 8u * cudal1_q];
    mean[j] = s / n;
  }
}

__global__ void colmean2d(const float *data, float *mean, int m, int n) {
  // cuda-l1 coalescing-column-split: 8 columns per block, the block's threads split the rows
  // (partial sums combined in shared memory in a fixed order).
  const unsigned int cudal1_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned int cudal1_seg = cudal1_t / 8u;
  const unsigned int cudal1_nseg = blockDim.x * blockDim.y * blockDim.z / 8u;
  __shared__ float cudal1_part_s[1024];
  int j = blockIdx.x * 8u + cudal1_t % 8u;
  if (j < m) {
    float s = 0.0f;
    for (int i = 0 + (int)cudal1_seg; i < n; i += (int)cudal1_nseg)
      s += data[i * m + j];
    cudal1_part_s[cudal1_t] = s;
  }
  __syncthreads();
  if (cudal1_seg == 0u && (j < m)) {
    float s = 0.0f;
    s = cudal1_part_s[cudal1_t];
    for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q)
      s += cudal1_part_s[cudal1_t + 8u * cudal1_q];
    mean[j] = s / n;
  }
}

#ifndef __CUDACC_RTC__
// m columns, n rows.
void launch_colmean(const float *data, float *mean, int m, int n) {
  colmean<<<((m + 255) / 256) * 32, 256>>>(data, mean, m, n);
}
void launch_colmean2d(const float *data, float *mean, int m, int n) {
  dim3 block(32, 8);
  dim3 grid((m + 31) / 32);
  colmean2d<<<dim3((grid).x * 4, (grid).y, (grid).z), block>>>(data, mean, m, n);
}
#endif
