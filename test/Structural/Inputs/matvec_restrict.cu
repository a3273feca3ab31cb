// The naive matrix-vector product with __restrict__ parameters and a visible
// launch: both coalescing-warp-per-row (it may change the grid) and
// coalescing-smem-staging (the parameters cannot alias) have a fix for the
// same loop. Their edits overlap, so at most one is applied; under
// --fix --verify=run the GPU picks the faster (utils/structural-gpu-run.sh).
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void matvec(const float *__restrict__ A,
                       const float *__restrict__ x, float *__restrict__ y,
                       int M, int N) {
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
