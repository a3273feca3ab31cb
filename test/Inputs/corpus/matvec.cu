// Dense linear algebra: matrix-vector products and a tiled SGEMM.
#include <cuda_runtime.h>
#include "include/cl_common.cuh"

namespace la {
namespace kernels {

__global__ void matvec_row(const float *__restrict__ A, const float *__restrict__ x,
                           float *__restrict__ y, int rows, int cols) {
  int r = GLOBAL_TID();
  if (r >= rows)
    return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c)
    acc += A[IDX2(r, c, cols)] * x[c];
  y[r] = acc;
}

// One warp per row; lanes stride over the columns.
__global__ void matvec_warp(const float *__restrict__ A, const float *__restrict__ x,
                            float *__restrict__ y, int rows, int cols) {
  int warp = GLOBAL_TID() / WARP_SIZE;
  int lane = threadIdx.x % WARP_SIZE;
  if (warp >= rows)
    return;
  float acc = 0.0f;
  for (int c = lane; c < cols; c += WARP_SIZE)
    acc += A[IDX2(warp, c, cols)] * x[c];
  acc = cl::detail::warp_reduce_sum(acc);
  if (lane == 0)
    y[warp] = acc;
}

template <int TILE>
__global__ void sgemm_tiled(int M, int N, int K, float alpha, const float *A,
                            const float *B, float beta, float *C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < CEIL_DIV(K, TILE); ++t) {
    int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[IDX2(row, ak, K)] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[IDX2(bk, col, N)] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N)
    C[IDX2(row, col, N)] = alpha * acc + beta * C[IDX2(row, col, N)];
}

} // namespace kernels
} // namespace la

void gemv_and_gemm(const float *A, const float *x, float *y, float *C, int n) {
  la::kernels::matvec_row<<<CEIL_DIV(n, 128), 128>>>(A, x, y, n, n);
  la::kernels::matvec_warp<<<CEIL_DIV(n * WARP_SIZE, 256), 256>>>(A, x, y, n, n);
  dim3 block(16, 16), grid(CEIL_DIV(n, 16), CEIL_DIV(n, 16));
  la::kernels::sgemm_tiled<16><<<grid, block>>>(n, n, n, 1.0f, A, A, 0.0f, C);
}
