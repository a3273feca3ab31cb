// Well-written dense and sparse matrix kernels: no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

// C = alpha * A * B + beta * C, row-major, with BM x BN tiles of C per block
// and TM x TN outputs per thread. Thread (ty, tx) owns rows ty + i * (BM/TM)
// and columns tx + j * (BN/TN), so a warp reads consecutive words of the B
// tile and at most two distinct words of the A tile per step (no bank
// conflict), and writes consecutive columns of C.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    sgemm_regblock(int M, int N, int K, float alpha,
                   const float *__restrict__ A, const float *__restrict__ B,
                   float beta, float *__restrict__ C) {
  constexpr int TX = BN / TN, TY = BM / TM, NT = TX * TY;
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int tx = tid % TX, ty = tid / TX;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int e = tid; e < BM * BK; e += NT) {
      const int r = e / BK, c = e % BK;
      const int gr = row0 + r, gc = k0 + c;
      As[r][c] = (gr < M && gc < K) ? A[(size_t)gr * K + gc] : 0.0f;
    }
#pragma unroll
    for (int e = tid; e < BK * BN; e += NT) {
      const int r = e / BN, c = e % BN;
      const int gr = k0 + r, gc = col0 + c;
      Bs[r][c] = (gr < K && gc < N) ? B[(size_t)gr * N + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i)
        a[i] = As[ty + i * TY][k];
#pragma unroll
      for (int j = 0; j < TN; ++j)
        b[j] = Bs[k][tx + j * TX];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = row0 + ty + i * TY;
    if (r >= M)
      continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int c = col0 + tx + j * TX;
      if (c < N) {
        float *cp = &C[(size_t)r * N + c];
        *cp = fmaf(alpha, acc[i][j], beta * *cp);
      }
    }
  }
}

// out = in^T through a 32x33 tile; 32x8 threads, four rows each.
constexpr int kTile = 32, kRows = 8;
__global__ void transpose_tiled(const float *__restrict__ in,
                                float *__restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (x < rows && y + j < cols)
      out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// CSR SpMV, vector kernel: one warp per row, lanes over the row's nonzeros.
__global__ void spmv_csr_vector(int nrows, const int *__restrict__ row_ptr,
                                const int *__restrict__ col_idx,
                                const float *__restrict__ vals,
                                const float *__restrict__ x,
                                float *__restrict__ y) {
  const int lane = threadIdx.x & 31;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (row >= nrows)
    return;
  const int begin = row_ptr[row], end = row_ptr[row + 1];
  float acc = 0.0f;
  for (int k = begin + lane; k < end; k += 32)
    acc = fmaf(vals[k], __ldg(&x[col_idx[k]]), acc);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0)
    y[row] = acc;
}

// Double-precision matrix product, 16x16 tiles, each thread two rows of C
// (16x8 threads per 16x16 tile of C).
constexpr int kDT = 16;
__global__ void dgemm_tiled_2rows(int n, const double *__restrict__ A,
                                  const double *__restrict__ B,
                                  double *__restrict__ C) {
  __shared__ double As[kDT][kDT];
  __shared__ double Bs[kDT][kDT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * kDT + tx;
  const int row = blockIdx.y * kDT + ty;
  double acc0 = 0.0, acc1 = 0.0;
  for (int t = 0; t < n; t += kDT) {
    As[ty][tx] = (row < n && t + tx < n) ? A[(size_t)row * n + t + tx] : 0.0;
    As[ty + 8][tx] =
        (row + 8 < n && t + tx < n) ? A[(size_t)(row + 8) * n + t + tx] : 0.0;
    Bs[ty][tx] = (t + ty < n && col < n) ? B[(size_t)(t + ty) * n + col] : 0.0;
    Bs[ty + 8][tx] =
        (t + ty + 8 < n && col < n) ? B[(size_t)(t + ty + 8) * n + col] : 0.0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kDT; ++k) {
      const double b = Bs[k][tx];
      acc0 = fma(As[ty][k], b, acc0);
      acc1 = fma(As[ty + 8][k], b, acc1);
    }
    __syncthreads();
  }
  if (col < n) {
    if (row < n)
      C[(size_t)row * n + col] = acc0;
    if (row + 8 < n)
      C[(size_t)(row + 8) * n + col] = acc1;
  }
}

// Rank-1 update A += alpha * x * y^T. A 32x8 block covers 32x32 elements:
// each thread loads y[c] once and updates four rows 8 apart, the four loads
// of A in flight together; x[r] is the same for a whole warp.
constexpr int kGerRows = 4;
__global__ void sger_2d(int m, int n, float alpha, const float *__restrict__ x,
                        const float *__restrict__ y, float *__restrict__ A,
                        int lda) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r0 = blockIdx.y * blockDim.y * kGerRows + threadIdx.y;
  if (c >= n)
    return;
  const float yc = y[c];
  float a[kGerRows];
#pragma unroll
  for (int k = 0; k < kGerRows; ++k) {
    const int r = r0 + k * blockDim.y;
    a[k] = r < m ? A[(size_t)r * lda + c] : 0.0f;
  }
#pragma unroll
  for (int k = 0; k < kGerRows; ++k) {
    const int r = r0 + k * blockDim.y;
    if (r < m)
      A[(size_t)r * lda + c] = fmaf(alpha * x[r], yc, a[k]);
  }
}

// ELLPACK SpMV with the padded entries stored column-major (entry k of every
// row contiguous): one thread per row, and each step of the loop reads 32
// consecutive values and column indices per warp. Padding has column -1.
__global__ void spmv_ell(int nrows, int width, const int *__restrict__ cols,
                         const float *__restrict__ vals,
                         const float *__restrict__ x, float *__restrict__ y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= nrows)
    return;
  float acc = 0.0f;
  for (int k = 0; k < width; ++k) {
    const size_t e = (size_t)k * nrows + row;
    const int c = cols[e];
    if (c >= 0)
      acc = fmaf(vals[e], __ldg(&x[c]), acc);
  }
  y[row] = acc;
}

// Tensor-core GEMM (half inputs, float accumulate), C = A * B, row-major,
// M, N multiples of 64 and K a multiple of 32. A block of 2x2 warps computes
// a 64x64 tile of C, each warp 2x2 fragments of 16x16. The A and B tiles are
// staged in shared memory with 8 halves of padding per row (16-byte aligned
// rows that start in different banks), loaded as 16-byte vectors.
namespace wm = nvcuda::wmma;
constexpr int kWmBM = 64, kWmBN = 64, kWmBK = 32, kWmPad = 8;
__global__ void __launch_bounds__(128)
    hgemm_wmma(int M, int N, int K, const __half *__restrict__ A,
               const __half *__restrict__ B, float *__restrict__ C) {
  __shared__ __align__(16) __half As[kWmBM][kWmBK + kWmPad];
  __shared__ __align__(16) __half Bs[kWmBK][kWmBN + kWmPad];
  const int warp = threadIdx.x / 32;
  const int wr = warp / 2, wc = warp % 2;
  const int row0 = blockIdx.y * kWmBM, col0 = blockIdx.x * kWmBN;
  wm::fragment<wm::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wm::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < K; k0 += kWmBK) {
    // 64x32 halves of A = 256 vectors of 8 halves; 32x64 of B likewise.
#pragma unroll
    for (int v = threadIdx.x; v < kWmBM * kWmBK / 8; v += 128) {
      const int r = v / (kWmBK / 8), c = (v % (kWmBK / 8)) * 8;
      *reinterpret_cast<int4 *>(&As[r][c]) = *reinterpret_cast<const int4 *>(
          &A[(size_t)(row0 + r) * K + k0 + c]);
    }
#pragma unroll
    for (int v = threadIdx.x; v < kWmBK * kWmBN / 8; v += 128) {
      const int r = v / (kWmBN / 8), c = (v % (kWmBN / 8)) * 8;
      *reinterpret_cast<int4 *>(&Bs[r][c]) = *reinterpret_cast<const int4 *>(
          &B[(size_t)(k0 + r) * N + col0 + c]);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kWmBK; kk += 16) {
      wm::fragment<wm::matrix_a, 16, 16, 16, __half, wm::row_major> fa[2];
      wm::fragment<wm::matrix_b, 16, 16, 16, __half, wm::row_major> fb[2];
#pragma unroll
      for (int i = 0; i < 2; ++i)
        wm::load_matrix_sync(fa[i], &As[wr * 32 + i * 16][kk], kWmBK + kWmPad);
#pragma unroll
      for (int j = 0; j < 2; ++j)
        wm::load_matrix_sync(fb[j], &Bs[kk][wc * 32 + j * 16], kWmBN + kWmPad);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
          wm::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wm::store_matrix_sync(
          &C[(size_t)(row0 + wr * 32 + i * 16) * N + col0 + wc * 32 + j * 16],
          acc[i][j], N, wm::mem_row_major);
}

void run_matrix(int M, int N, int K, const float *A, const float *B, float *C,
                int nrows, const int *row_ptr, const int *col_idx,
                const float *vals, const float *x, float *y, int n,
                const double *dA, const double *dB, double *dC,
                int ell_width, const int *ell_cols, const float *ell_vals) {
  constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;
  const dim3 gg((N + BN - 1) / BN, (M + BM - 1) / BM);
  sgemm_regblock<BM, BN, BK, TM, TN>
      <<<gg, (BM / TM) * (BN / TN)>>>(M, N, K, 1.0f, A, B, 0.0f, C);

  const dim3 tg((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  transpose_tiled<<<tg, dim3(kTile, kRows)>>>(A, C, M, N);

  const int warps_per_block = 256 / 32;
  spmv_csr_vector<<<(nrows + warps_per_block - 1) / warps_per_block, 256>>>(
      nrows, row_ptr, col_idx, vals, x, y);

  spmv_ell<<<(nrows + 255) / 256, 256>>>(nrows, ell_width, ell_cols, ell_vals,
                                         x, y);

  const dim3 dg((n + kDT - 1) / kDT, (n + kDT - 1) / kDT);
  dgemm_tiled_2rows<<<dg, dim3(kDT, kDT / 2)>>>(n, dA, dB, dC);

  sger_2d<<<dim3((N + 31) / 32, (M + 31) / 32), dim3(32, 8)>>>(M, N, 0.5f, x, y,
                                                             C, N);
  cudaDeviceSynchronize();
}

void run_hgemm(int M, int N, int K, const __half *A, const __half *B,
               float *C) {
  hgemm_wmma<<<dim3(N / kWmBN, M / kWmBM), 128>>>(M, N, K, A, B, C);
}
