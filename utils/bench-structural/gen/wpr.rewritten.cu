// Benchmark input for coalescing-warp-per-row: the naive matrix-vector
// product (as in staging.cu); the rewrite changes the grid, so the driver
// launches through launch_matvec() of the original and of the rewritten file.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void matvec(const float *A, const float *x, float *y, int M,
                       int N) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned int cudal1_lane = threadIdx.x % 32u;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0 + (int)cudal1_lane; k < N; k += 32)
      sum += A[row * N + k] * x[k];
    for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
      sum += __shfl_down_sync(0xffffffffu, sum, cudal1_o);
    if (cudal1_lane == 0) {
      y[row] = sum;
    }
  }
}

#ifndef __CUDACC_RTC__
void launch_matvec(const float *A, const float *x, float *y) {
  matvec<<<((4096 + 255) / 256) * 32, 256>>>(A, x, y, 4096, 4096);
}
#endif
