// A mat-vec that accumulates into global memory: memory-register-accumulation
// (round 1) gives a register sum, which coalescing-warp-per-row (round 2)
// recognises.
#include <cuda_runtime.h>
#define N 1024

__global__ void mv(const float *A, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 0;
    for (int j = 0; j < N; j++)
      y[i] += A[i * N + j] * x[j];
  }
}

// Not composed: y is also x at its launch, so the register accumulation is
// not proven (a store to y[i] changes what later iterations read through
// x), and nothing matches in round 2.
__global__ void mv_alias(const float *A, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 0;
    for (int j = 0; j < N; j++)
      y[i] += A[i * N + j] * x[j];
  }
}

int main() {
  int n = N;
  float *A, *x, *y;
  cudaMalloc(&A, sizeof(float) * n * N);
  cudaMalloc(&x, sizeof(float) * N);
  cudaMalloc(&y, sizeof(float) * n);
  mv<<<(n + 255) / 256, 256>>>(A, x, y, n);
  mv_alias<<<(n + 255) / 256, 256>>>(A, y, y, n);
  cudaDeviceSynchronize();
  return 0;
}
