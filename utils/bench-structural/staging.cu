// Benchmark input for coalescing-smem-staging: the usual naive
// matrix-vector product, one thread per row, sum in a register.
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
void app_matvec() {
  float *A, *x, *y;
  cudaMalloc(&A, 4096 * 4096 * sizeof(float));
  cudaMalloc(&x, 4096 * sizeof(float));
  cudaMalloc(&y, 4096 * sizeof(float));
  matvec<<<(4096 + 255) / 256, 256>>>(A, x, y, 4096, 4096);
}
#endif
