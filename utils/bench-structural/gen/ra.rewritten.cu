// Benchmark input for memory-register-accumulation: a naive matrix-vector
// product that accumulates straight into global memory. The pointers are
// not __restrict__: the tool proves from the launch site below that they
// are separate allocations.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void matvec_rmw(const float *A, const float *x, float *y, int M,
                           int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float y_acc = 0.0f;
    for (int k = 0; k < N; ++k)
      y_acc += A[row * N + k] * x[k];
    y[row] = y_acc;
  }
}

#ifndef __CUDACC_RTC__
// The application's launch (the bench driver launches with the same
// configuration on its own buffers).
void app_matvec_rmw() {
  float *A, *x, *y;
  cudaMalloc(&A, 4096 * 4096 * sizeof(float));
  cudaMalloc(&x, 4096 * sizeof(float));
  cudaMalloc(&y, 4096 * sizeof(float));
  matvec_rmw<<<(4096 + 255) / 256, 256>>>(A, x, y, 4096, 4096);
}
#endif
