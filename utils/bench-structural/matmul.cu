// Benchmark input for coalescing-matmul-tile: the naive matrix products,
// one output per thread.
//   matmul    C = alpha * A * B + beta * C with a register sum, 16x16 blocks;
//   gemm_rmw  the same product accumulated in global memory (c *= beta, then
//             c += alpha * a * b in the loop), 32x8 blocks: rewritten by
//             memory-register-accumulation, then tiled (composition).
// Row-major M x K, K x N and M x N matrices.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void matmul(const float *A, const float *B, float *C, int M, int N,
                       int K, float alpha, float beta) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * sum + beta * C[row * N + col];
  }
}

__global__ void gemm_rmw(int ni, int nj, int nk, float alpha, float beta,
                         const float *a, const float *b, float *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < ni) && (j < nj)) {
    c[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++)
      c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
  }
}

#ifndef __CUDACC_RTC__
void launch_matmul(const float *A, const float *B, float *C, int M, int N,
                   int K, float alpha, float beta) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  matmul<<<grid, block>>>(A, B, C, M, N, K, alpha, beta);
}

void launch_gemm_rmw(int ni, int nj, int nk, float alpha, float beta,
                     const float *a, const float *b, float *c) {
  dim3 block(32, 8);
  dim3 grid((nj + 31) / 32, (ni + 7) / 8);
  gemm_rmw<<<grid, block>>>(ni, nj, nk, alpha, beta, a, b, c);
}

void app_matmul() {
  float *A, *B, *C;
  cudaMalloc(&A, 1024 * 1024 * sizeof(float));
  cudaMalloc(&B, 1024 * 1024 * sizeof(float));
  cudaMalloc(&C, 1024 * 1024 * sizeof(float));
  launch_matmul(A, B, C, 1024, 1024, 1024, 1.5f, 0.5f);
  launch_gemm_rmw(1024, 1024, 1024, 1.5f, 0.5f, A, B, C);
}
#endif
