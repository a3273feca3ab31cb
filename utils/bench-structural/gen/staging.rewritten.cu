// Benchmark input for coalescing-smem-staging: the usual naive
// matrix-vector product, one thread per row, sum in a register.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void matvec(const float *A, const float *x, float *y, int M,
                       int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const bool cudal1_active0 = (row < M);
  __shared__ bool cudal1_loads[256];
  cudal1_loads[threadIdx.x] = cudal1_active0;
  __syncthreads();
  {
    float sum = 0.0f;
    for (int cudal1_k0 = 0; cudal1_k0 < N; cudal1_k0 += 32) { // cuda-l1 coalescing-smem-staging: rows of 'A' staged through shared memory
      __shared__ float cudal1_tile[256][32 + 1];
      {
        float cudal1_v[32];
        #pragma unroll
        for (unsigned int cudal1_i = 0; cudal1_i < 32u; ++cudal1_i) {
          const unsigned int cudal1_r = cudal1_i * (256u / 32u) + threadIdx.x / 32u;
          const int cudal1_c = cudal1_k0 + (int)(threadIdx.x % 32u);
          cudal1_v[cudal1_i] = cudal1_loads[cudal1_r] && cudal1_c < N ? A[((int)(blockIdx.x * blockDim.x + cudal1_r)) * N + cudal1_c] : float();
        }
        __syncthreads();
        #pragma unroll
        for (unsigned int cudal1_i = 0; cudal1_i < 32u; ++cudal1_i)
          cudal1_tile[cudal1_i * (256u / 32u) + threadIdx.x / 32u][threadIdx.x % 32u] = cudal1_v[cudal1_i];
      }
      __syncthreads();
      if (cudal1_active0) {
        const int cudal1_kend = cudal1_k0 + 32 < N ? cudal1_k0 + 32 : N;
        for (int k = cudal1_k0; k < cudal1_kend; ++k)
          sum += cudal1_tile[threadIdx.x][k - cudal1_k0] * x[k];
      }
    }
    if (cudal1_active0) {
      y[row] = sum;
    }
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
