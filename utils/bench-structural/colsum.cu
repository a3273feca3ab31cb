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
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
      s += data[i * m + j];
    mean[j] = s / n;
  }
}

__global__ void colmean2d(const float *data, float *mean, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
      s += data[i * m + j];
    mean[j] = s / n;
  }
}

#ifndef __CUDACC_RTC__
// m columns, n rows.
void launch_colmean(const float *data, float *mean, int m, int n) {
  colmean<<<(m + 255) / 256, 256>>>(data, mean, m, n);
}
void launch_colmean2d(const float *data, float *mean, int m, int n) {
  dim3 block(32, 8);
  dim3 grid((m + 31) / 32);
  colmean2d<<<grid, block>>>(data, mean, m, n);
}
#endif
