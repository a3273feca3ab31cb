// Benchmark input for coalescing-warp-per-row: the naive matrix-vector
// product (as in staging.cu); the rewrite changes the grid, so the driver
// launches through launch_matvec() of the original and of the rewritten file.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void matvec(const float *A, const float *x, float *y, int M,
                       int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}

#ifndef __CUDACC_RTC__
void launch_matvec(const float *A, const float *x, float *y) {
  matvec<<<(4096 + 255) / 256, 256>>>(A, x, y, 4096, 4096);
}
#endif
