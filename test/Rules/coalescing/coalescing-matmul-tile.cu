// coalescing-matmul-tile: one-output-per-thread matrix products become
// shared-memory tiles with register blocking (exact).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  coalescing-matmul-tile.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-matmul-tile' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing and reports nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-matmul-tile' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AGAIN --implicit-check-not='warning:'
// RUN: diff %t/once.cu %t/t.cu
// Shared masks of the rows and columns in use only where the guard mixes
// both indices (syrk_lower's and syr2k_two_products' `j <= i`); the other
// guards are tested inline.
// RUN: grep -v '^//' %t/t.cu | grep -c '__shared__ int cudal1_rowUsed' | FileCheck --check-prefix=MASKS %s
// MASKS: {{^}}2{{$}}
// Only the refused kernels are reported again.
// AGAIN-COUNT-6: warning: matrix product computed one output per thread
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-matmul-tile' --format=json %s | FileCheck --check-prefix=FIX %s
// Without the option the rewrite is left to --verify=run: plain --fix does
// not apply it.
// RUN: cp %s %t/m.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-matmul-tile' --fix --allow-unverified %t/m.cu 2>&1 | FileCheck --check-prefix=MEASURE %s
// RUN: diff %s %t/m.cu
// MEASURE: fix not applied: offered for GPU verification only
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// FIX: "description": "tile the product: 64x64 outputs per block of 256 threads through shared memory (32 deep), 4x4 per thread, original code for other block shapes"
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": true
// FIX: "kernel": "gemm_ab"
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

// --- rewritten -----------------------------------------------------------

// The textbook form: rows along y, columns along x, alpha/beta epilogue.
__global__ void gemm_ab(const float *A, const float *B, float *C, int M,
                        int N, int K, float alpha, float beta) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += A[i * K + k] * B[k * N + j];
    C[i * N + j] = alpha * sum + beta * C[i * N + j];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'gemm_ab' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'A'
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'B'
// CHECK-FIXES: __global__ void __launch_bounds__(256, 2) gemm_ab(const float *A, const float *B, float *C, int M,
// CHECK-FIXES: // cuda-l1 coalescing-matmul-tile: 64x64 output tiles through shared memory, 32 deep, 4x4 outputs per thread, for blocks of 256 threads;
// CHECK-FIXES: if (blockDim.x * blockDim.y * blockDim.z != 256u || blockDim.z != 1u || gridDim.z != 1u) {
// CHECK-FIXES: sum += A[i * K + k] * B[k * N + j];
// CHECK-FIXES: return;
// CHECK-FIXES: __shared__ __align__(16) float cudal1_As[2][32][64 + 4];
// CHECK-FIXES: __shared__ __align__(16) float cudal1_Bs[2][32][64 + 0];
// CHECK-FIXES: long long cudal1_rows = (long long)gridDim.y * blockDim.y;
// CHECK-FIXES: if ((long long)(M) < cudal1_rows)
// CHECK-FIXES: for (long long cudal1_tile = blockIdx.x + (long long)gridDim.x * blockIdx.y; cudal1_tile < cudal1_tiles; cudal1_tile += (long long)gridDim.x * gridDim.y) {
// CHECK-FIXES: const int i = (int)cudal1_gi;
// CHECK-FIXES: const int j = (int)cudal1_gj;
// CHECK-FIXES: if ((i < M && j < N)) {
// CHECK-FIXES: float sum = 0.0f;
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] = sum;
// CHECK-FIXES: if (!__syncthreads_or(cudal1_any))
// The rows (columns) in use, once per tile: one bit per load of a slice.
// CHECK-FIXES: unsigned cudal1_maskA = 0;
// CHECK-FIXES: const int cudal1_m = cudal1_e / 32;
// CHECK-FIXES: if (cudal1_r0 + cudal1_m < cudal1_rows) {
// CHECK-FIXES: const int i = (int)(cudal1_r0 + cudal1_m);
// CHECK-FIXES: if ((i < M))
// CHECK-FIXES: cudal1_maskA |= 1u << cudal1_u;
// CHECK-FIXES: unsigned cudal1_maskB = 0;
// CHECK-FIXES: const int cudal1_m = cudal1_e % 64;
// CHECK-FIXES: if (cudal1_c0 + cudal1_m < cudal1_cols) {
// CHECK-FIXES: if ((j < N))
// CHECK-FIXES: cudal1_maskB |= 1u << cudal1_u;
// CHECK-FIXES: const bool cudal1_full = (int)(cudal1_k0 + 31) < K;
// CHECK-FIXES: for (int cudal1_k0 = 0; cudal1_k0 < K; cudal1_k0 += 32) {
// CHECK-FIXES: const bool cudal1_more = (int)(cudal1_k0 + 32) < K;
// A slice whose last k passes the loop's test loads without testing k.
// CHECK-FIXES: const bool cudal1_full = (int)((cudal1_k0 + 32) + 31) < K;
// CHECK-FIXES: // 'A[i * K + k]': consecutive threads along k, only rows some output needs
// CHECK-FIXES: const int cudal1_kk = cudal1_e % 32, cudal1_m = cudal1_e / 32;
// CHECK-FIXES: if ((cudal1_maskA >> cudal1_u) & 1u) {
// CHECK-FIXES: const int i = (int)(cudal1_r0 + cudal1_m);
// CHECK-FIXES: const int k = (cudal1_k0 + 32) + cudal1_kk;
// CHECK-FIXES: if (cudal1_full || k < K)
// CHECK-FIXES: cudal1_ra[cudal1_u] = A[i * K + k];
// CHECK-FIXES: // 'B[k * N + j]': consecutive threads along j, only columns some output needs
// CHECK-FIXES: const int cudal1_kk = cudal1_e / 64, cudal1_m = cudal1_e % 64;
// CHECK-FIXES: if ((cudal1_maskB >> cudal1_u) & 1u) {
// CHECK-FIXES: if (cudal1_full || k < K)
// CHECK-FIXES: cudal1_rb[cudal1_u] = B[k * N + j];
// CHECK-FIXES: if ((int)(cudal1_k0 + 31) < K) {
// CHECK-FIXES: cudal1_a[cudal1_r] = cudal1_As[cudal1_buf][cudal1_kk][cudal1_ty * 4 + cudal1_r];
// CHECK-FIXES: cudal1_b[cudal1_c] = cudal1_Bs[cudal1_buf][cudal1_kk][cudal1_tx * 4 + cudal1_c];
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] += cudal1_a[cudal1_r] * cudal1_b[cudal1_c];
// CHECK-FIXES: for (int cudal1_kk = 0; cudal1_kk < 32 && (int)(cudal1_k0 + cudal1_kk) < K; ++cudal1_kk) {
// CHECK-FIXES: float sum = cudal1_acc[cudal1_r][cudal1_c];
// CHECK-FIXES: C[i * N + j] = alpha * sum + beta * C[i * N + j];

// i along x, j along y (the output is still contiguous in j: the tile's
// columns follow j), 32x8 blocks, an early-return guard and A^T (A[k*M+i]).
__global__ void gemm_xy_at(const float *A, const float *B, float *C, int M,
                           int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M || j >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; k++)
    acc += A[k * M + i] * B[k * N + j];
  C[i * N + j] = acc;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: matrix product computed one output per thread: each output of 'gemm_xy_at' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'A'
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'B'
// CHECK-FIXES: __global__ void __launch_bounds__(256, 2) gemm_xy_at(
// CHECK-FIXES: const int cudal1_ty = cudal1_t / 16, cudal1_tx = cudal1_t % 16;
// CHECK-FIXES: long long cudal1_rows = (long long)gridDim.x * blockDim.x;
// CHECK-FIXES: if ((long long)(M) < cudal1_rows)
// CHECK-FIXES: long long cudal1_cols = (long long)gridDim.y * blockDim.y;
// CHECK-FIXES: if ((long long)(N) < cudal1_cols)
// CHECK-FIXES: if (!(i >= M || j >= N)) {
// CHECK-FIXES: if (!(i >= M))
// CHECK-FIXES: cudal1_maskA |= 1u << cudal1_u;
// CHECK-FIXES: // 'A[k * M + i]': consecutive threads along i, only rows some output needs
// CHECK-FIXES: const int cudal1_kk = cudal1_e / 64, cudal1_m = cudal1_e % 64;
// CHECK-FIXES: cudal1_ra[cudal1_u] = A[k * M + i];
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] += cudal1_a[cudal1_r] * cudal1_b[cudal1_c];
// CHECK-FIXES: float acc = cudal1_acc[cudal1_r][cudal1_c];
// CHECK-FIXES: C[i * N + j] = acc;

// B^T (B[j*K+k]), restrict pointers, `sum = sum + ...`, no launch in this
// file: the default 256 threads, and __launch_bounds__(1024) so that a
// launch of any size elsewhere stays possible.
__global__ void gemm_bt(const float *__restrict__ A,
                        const float *__restrict__ B, float *__restrict__ C,
                        int M, int N, int K) {
  int j = threadIdx.x + blockIdx.x * blockDim.x;
  int i = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < M && j < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum = sum + A[i * K + k] * B[j * K + k];
    C[i * N + j] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'gemm_bt' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: 'C' is __restrict__
// CHECK-FIXES: __global__ void __launch_bounds__(1024) gemm_bt(const float *__restrict__ A,
// CHECK-FIXES: // 'B[j * K + k]': consecutive threads along k, only columns some output needs
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] = cudal1_acc[cudal1_r][cudal1_c] + cudal1_a[cudal1_r] * cudal1_b[cudal1_c];

// Types and bounds from macros; the element-type macro is double here.
#define DATA_TYPE double
#define INNER nk
#define ROW_IDX (blockIdx.y * blockDim.y + threadIdx.y)
__global__ void gemm_macros(int ni, int nj, int nk, DATA_TYPE alpha,
                            DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *b,
                            DATA_TYPE *c) {
  int i = ROW_IDX;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if ((i < ni) && (j < nj)) {
    DATA_TYPE t = beta * c[i * nj + j];
    for (int k = 0; k < INNER; k++)
      t += alpha * a[i * nk + k] * b[k * nj + j];
    c[i * nj + j] = t;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'gemm_macros' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'c' and 'a'
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'c' and 'b'
// CHECK-FIXES: __global__ void __launch_bounds__(1024) gemm_macros(int ni, int nj, int nk, DATA_TYPE alpha,
// CHECK-FIXES: if (blockDim.x * blockDim.y * blockDim.z != 1024u || blockDim.z != 1u || gridDim.z != 1u) {
// CHECK-FIXES: __shared__ __align__(16) DATA_TYPE cudal1_As[2][8][128 + 4];
// CHECK-FIXES: __shared__ __align__(16) DATA_TYPE cudal1_Bs[2][8][128 + 0];
// CHECK-FIXES: const int cudal1_ty = cudal1_t / 32, cudal1_tx = cudal1_t % 32;
// CHECK-FIXES: DATA_TYPE cudal1_acc[4][4];
// CHECK-FIXES: DATA_TYPE t = beta * c[i * nj + j];
// CHECK-FIXES: DATA_TYPE cudal1_ra[
// CHECK-FIXES: for (int cudal1_k0 = 0; cudal1_k0 < INNER; cudal1_k0 += 8) {
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] += alpha * cudal1_a[cudal1_r] * cudal1_b[cudal1_c];
// CHECK-FIXES: DATA_TYPE t = cudal1_acc[cudal1_r][cudal1_c];

// A sum of two products over k (syr2k): four operands, each staged in its
// own tile; the same operand read twice is staged once.
__global__ void syr2k_two_products(int n, int m, float alpha, const float *__restrict__ a,
                                   const float *__restrict__ b, float *__restrict__ c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < n) && (j < n) && (j <= i)) {
    float acc = c[i * n + j];
    for (int k = 0; k < m; k++)
      acc += alpha * a[j * m + k] * b[i * m + k] + alpha * b[j * m + k] * a[i * m + k] + a[j * m + k];
    c[i * n + j] = acc;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'syr2k_two_products' reads rows of 'a[j * m + k]', 'b[j * m + k]' and columns of 'b[i * m + k]', 'a[i * m + k]' from global memory (5 loads per step of 'k'); 64x64 shared-memory tiles with 4x4 outputs per thread would reuse every load across the tile (an exact fix: same products, same order) [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: 'c' is __restrict__
// CHECK-FIXES: __shared__ __align__(16) float cudal1_As[2][16][64 + 4];
// CHECK-FIXES: __shared__ __align__(16) float cudal1_As2[2][16][64 + 4];
// CHECK-FIXES: __shared__ __align__(16) float cudal1_Bs[2][16][64 + 4];
// CHECK-FIXES: __shared__ __align__(16) float cudal1_Bs2[2][16][64 + 4];
// CHECK-FIXES-NOT: cudal1_Bs3
// CHECK-FIXES: float cudal1_rb2[4];
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] += alpha * cudal1_b[cudal1_c] * cudal1_a[cudal1_r] + alpha * cudal1_b2[cudal1_c] * cudal1_a2[cudal1_r] + cudal1_b[cudal1_c];

// Two halves of one buffer: 'lo' and 'hi' share the parameter and the
// index but not the elements, so each keeps its own tile.
__global__ void halves(int n, int m, const float *__restrict__ a, float *__restrict__ c) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  const float *hi = a + n * m;
  if (i < n && j < n) {
    float s = 0.0f;
    for (int k = 0; k < m; ++k)
      s += a[i * m + k] * hi[j * m + k] + hi[i * m + k] * a[j * m + k];
    c[i * n + j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'halves' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: 'c' is __restrict__
// CHECK-FIXES: __shared__ __align__(16) float cudal1_As2[2][
// CHECK-FIXES: __shared__ __align__(16) float cudal1_Bs2[2][
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] += cudal1_a[cudal1_r] * cudal1_b[cudal1_c] + cudal1_a2[cudal1_r] * cudal1_b2[cudal1_c];

// Refused: the second product is read only when 'b' is given; the tiles
// would load it for every output.
__global__ void optional_product(int n, int m, const float *__restrict__ a, const float *__restrict__ b,
                                 float *__restrict__ c) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n) {
    float s = 0.0f;
    for (int k = 0; k < m; ++k)
      s += a[i * m + k] * a[j * m + k] + (b ? b[i * m + k] * b[j * m + k] : 0.0f);
    c[i * n + j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'optional_product' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no fix: an operand is read only under a condition ('b ? b[i * m + k] * b[j * m + k] : 0.0f'): the tiles would load it for every output
// CHECK-FIXES: s += a[i * m + k] * a[j * m + k] + (b ? b[i * m + k] * b[j * m + k] : 0.0f);

// size_t indices and loop variable, the accumulator declared before the
// guard, a prologue store (C *= beta).
__global__ void gemm_sizet(const float *A, const float *B, float *C,
                           size_t M, size_t N, size_t K, float beta) {
  size_t i = blockIdx.y * blockDim.y + threadIdx.y;
  size_t j = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  if (i < M && j < N) {
    C[i * N + j] *= beta;
    for (size_t k = 0; k < K; k++)
      s += A[i * K + k] * B[k * N + j];
    C[i * N + j] += s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'gemm_sizet' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'A'
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'B'
// CHECK-FIXES: __global__ void __launch_bounds__(256, 2) gemm_sizet(
// CHECK-FIXES: const size_t i = (size_t)cudal1_gi;
// CHECK-FIXES: const size_t j = (size_t)cudal1_gj;
// CHECK-FIXES: float s = 0.0f;
// CHECK-FIXES: if ((i < M && j < N)) {
// CHECK-FIXES: C[i * N + j] *= beta;
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] = s;
// CHECK-FIXES: for (size_t cudal1_k0 = 0; cudal1_k0 < K; cudal1_k0 += 32) {
// CHECK-FIXES: const size_t k = (cudal1_k0 + 32) + cudal1_kk;
// CHECK-FIXES: if ((size_t)(cudal1_k0 + 31) < K) {
// CHECK-FIXES: float s = cudal1_acc[cudal1_r][cudal1_c];
// CHECK-FIXES: C[i * N + j] += s;

// Fixed-size 2-D arrays, A[i][k] * B[k][j].
#define DIM 64
__global__ void mm_2d(float A[][DIM], float B[][DIM], float C[][DIM]) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < DIM && j < DIM) {
    float sum = 0;
    for (int k = 0; k < DIM; ++k)
      sum += A[i][k] * B[k][j];
    C[i][j] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'mm_2d' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'A'
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'B'
// CHECK-FIXES: __global__ void __launch_bounds__(256, 2) mm_2d(
// CHECK-FIXES: cudal1_ra[cudal1_u] = A[i][k];
// CHECK-FIXES: cudal1_rb[cudal1_u] = B[k][j];
// CHECK-FIXES: C[i][j] = sum;

// The same array twice (A A^T, a correlation matrix), with a triangular
// guard: only the rows and columns some output of a tile needs are read.
__global__ void syrk_lower(const float *A, float *S, int n, int m,
                           float alpha) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j <= i) {
    float s = S[i * n + j];
    for (int k = 0; k < m; k++)
      s += alpha * A[i * m + k] * A[j * m + k];
    S[i * n + j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'syrk_lower' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'S' and 'A'
// CHECK-FIXES: __global__ void __launch_bounds__(256, 2) syrk_lower(
// CHECK-FIXES: if ((i < n && j <= i)) {
// CHECK-FIXES: float s = S[i * n + j];
// CHECK-FIXES: cudal1_rowUsed[cudal1_ty * 4 + cudal1_r] = 1;
// CHECK-FIXES: cudal1_colUsed[cudal1_tx * 4 + cudal1_c] = 1;
// CHECK-FIXES: if (cudal1_rowUsed[cudal1_m]) {
// CHECK-FIXES: cudal1_maskA |= 1u << cudal1_u;
// CHECK-FIXES: if (cudal1_colUsed[cudal1_m])
// CHECK-FIXES: cudal1_maskB |= 1u << cudal1_u;
// CHECK-FIXES: // 'A[i * m + k]': consecutive threads along k, only rows some output needs
// CHECK-FIXES: if ((cudal1_maskA >> cudal1_u) & 1u) {
// CHECK-FIXES: if (cudal1_full || k < m)
// CHECK-FIXES: cudal1_ra[cudal1_u] = A[i * m + k];
// CHECK-FIXES: // 'A[j * m + k]': consecutive threads along k, only columns some output needs
// CHECK-FIXES: cudal1_rb[cudal1_u] = A[j * m + k];
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] += alpha * cudal1_a[cudal1_r] * cudal1_b[cudal1_c];
// CHECK-FIXES: S[i * n + j] = s;

// A function of the product summed (sqrtf), locals after the loop.
__global__ void hellinger_like(const float *__restrict__ a,
                               const float *__restrict__ b,
                               float *__restrict__ c, int m, int n, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < k && row < m) {
    float sum = 0;
    for (int e = 0; e < n; e++)
      sum += sqrtf(a[row * n + e] * b[e * k + col]);
    const float value = 1.0f - sum;
    c[row * k + col] = sqrtf(value > 0.0f ? value : 0.0f);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:7: warning: matrix product computed one output per thread: each output of 'hellinger_like' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: 'c' is __restrict__
// CHECK-FIXES: __global__ void __launch_bounds__(256, 2) hellinger_like(
// CHECK-FIXES: for (int cudal1_k0 = 0; cudal1_k0 < n; cudal1_k0 += 32) {
// CHECK-FIXES: const int e = (cudal1_k0 + 32) + cudal1_kk;
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] += sqrtf(cudal1_a[cudal1_r] * cudal1_b[cudal1_c]);
// CHECK-FIXES: float sum = cudal1_acc[cudal1_r][cudal1_c];
// CHECK-FIXES: const float value = 1.0f - sum;
// CHECK-FIXES: c[row * k + col] = sqrtf(value > 0.0f ? value : 0.0f);

// A bias as the start value and a device function after the loop.
__device__ float gelu_approx(float x) {
  return 0.5f * x * (1.0f + tanhf(0.79788456f * x));
}
__global__ void linear_gelu(const float *x, const float *W, const float *bias,
                            float *out, int batch, int d_in, int d_out) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < batch && o < d_out) {
    float acc = bias[o];
    for (int q = 0; q < d_in; q++)
      acc += x[r * d_in + q] * W[q * d_out + o];
    out[r * d_out + o] = gelu_approx(acc);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'linear_gelu' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'out' and 'x'
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'out' and 'W'
// CHECK-FIXES: __global__ void __launch_bounds__(128, 4) linear_gelu(
// CHECK-FIXES: if (blockDim.x * blockDim.y * blockDim.z != 128u || blockDim.z != 1u || gridDim.z != 1u) {
// CHECK-FIXES: __shared__ __align__(16) float cudal1_As[2][16][32 + 4];
// CHECK-FIXES: float acc = bias[o];
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] = acc;
// CHECK-FIXES: out[r * d_out + o] = gelu_approx(acc);

// A constant tile size instead of blockDim (blockIdx.y * TILE + threadIdx.y):
// the fast path also needs blockDim to equal it.
#define TILE 16
__global__ void gemm_const_stride(const float *A, const float *B, float *C,
                                  int M, int N, int K) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  if (row < M && col < N) {
    float s = 0;
    for (int k = 0; k < K; k++)
      s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'gemm_const_stride' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'A'
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'C' and 'B'
// CHECK-FIXES: __global__ void __launch_bounds__(256, 2) gemm_const_stride(
// CHECK-FIXES: if (blockDim.x * blockDim.y * blockDim.z != 256u || blockDim.z != 1u || gridDim.z != 1u || blockDim.y != 16u || blockDim.x != 16u) {
// CHECK-FIXES: long long cudal1_rows = (long long)gridDim.y * 16;
// CHECK-FIXES: long long cudal1_cols = (long long)gridDim.x * 16;

// --- refused (a finding, no fix) ------------------------------------------

// Triangular k range.
__global__ void trmm_lower(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n) {
    float s = 0;
    for (int k = 0; k < i; ++k)
      s += A[i * n + k] * B[k * n + j];
    C[i * n + j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'trmm_lower' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no fix: the bounds of the 'k' loop depend on the thread (triangular or per-output ranges): the tiles share one k range
// CHECK-FIXES: __global__ void trmm_lower(
// CHECK-FIXES: for (int k = 0; k < i; ++k)

// A third load that depends on i, j and k.
__global__ void mm_weighted(const float *A, const float *B, const float *W,
                            float *C, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += A[i * n + k] * B[k * n + j] * W[(i * n + j) * n + k];
    C[i * n + j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'mm_weighted' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no fix: the summed expression reads 'W[(i * n + j) * n + k]' besides operands of the row and the column index: only those can be staged
// CHECK-FIXES: __global__ void mm_weighted(
// CHECK-FIXES: s += A[i * n + k] * B[k * n + j] * W[(i * n + j) * n + k];

// A store inside the loop.
__global__ void mm_partial(const float *A, const float *B, float *C,
                           float *P, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n) {
    float s = 0;
    for (int k = 0; k < n; ++k) {
      s += A[i * n + k] * B[k * n + j];
      P[(i * n + j) * n + k] = s;
    }
    C[i * n + j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:7: warning: matrix product computed one output per thread: each output of 'mm_partial' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no fix: the loop does more than the sum: 'P[(i * n + j) * n + k] = s' (only `acc += E;` can be split into tiles)
// CHECK-FIXES: __global__ void mm_partial(
// CHECK-FIXES: P[(i * n + j) * n + k] = s;

// A guard that reads memory.
__global__ void mm_masked(const float *A, const float *B, float *C,
                          const int *mask, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n && mask[i]) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += A[i * n + k] * B[k * n + j];
    C[i * n + j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'mm_masked' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no fix: the guard reads memory or calls a function
// CHECK-FIXES: __global__ void mm_masked(
// CHECK-FIXES: if (i < n && j < n && mask[i]) {

// The output may alias an operand (pointers from a function whose callers
// are not in this file).
__global__ void mm_alias(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += A[i * n + k] * B[k * n + j];
    C[i * n + j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: matrix product computed one output per thread: each output of 'mm_alias' reads {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: no fix: 'C' and 'A' may alias at the launch at {{.*}}t.cu:{{[0-9]+}}:{{[0-9]+}}: 'C' and 'A' are parameters of 'launch_mm_alias', which is not called in this file (mark them __restrict__ if they never overlap)
// CHECK-FIXES: __global__ void mm_alias(
// CHECK-FIXES: s += A[i * n + k] * B[k * n + j];

// --- no finding ------------------------------------------------------------

// Already tiled through shared memory.
__global__ void mm_tiled(const float *A, const float *B, float *C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  int ty = threadIdx.y, tx = threadIdx.x;
  int i = blockIdx.y * 16 + ty, j = blockIdx.x * 16 + tx;
  float s = 0;
  for (int t = 0; t < n; t += 16) {
    As[ty][tx] = (i < n && t + tx < n) ? A[i * n + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < n && j < n) ? B[(t + ty) * n + j] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      s += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (i < n && j < n)
    C[i * n + j] = s;
}
// CHECK-FIXES: __global__ void mm_tiled(
// CHECK-FIXES: s += As[ty][k] * Bs[k][tx];

// A matrix-vector product (one thread index): not a matrix product.
__global__ void matvec(const float *A, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0;
    for (int k = 0; k < n; ++k)
      s += A[i * n + k] * x[k];
    y[i] = s;
  }
}
// CHECK-FIXES: __global__ void matvec(
// CHECK-FIXES: s += A[i * n + k] * x[k];

#ifndef __CUDACC_RTC__
void launch_mm_alias(const float *A, const float *B, float *C, int n) {
  mm_alias<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(A, B, C, n);
}

void run(int n) {
  float *A, *B, *C, *W, *P, *x, *y;
  double *dA, *dB, *dC;
  int *mask;
  float(*A2)[DIM], (*B2)[DIM], (*C2)[DIM];
  cudaMalloc(&A, n * n * sizeof(float));
  cudaMalloc(&B, n * n * sizeof(float));
  cudaMalloc(&C, n * n * sizeof(float));
  cudaMalloc(&W, n * n * n * sizeof(float));
  cudaMalloc(&P, n * n * n * sizeof(float));
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&dA, n * n * sizeof(double));
  cudaMalloc(&dB, n * n * sizeof(double));
  cudaMalloc(&dC, n * n * sizeof(double));
  cudaMalloc(&mask, n * sizeof(int));
  cudaMalloc(&A2, DIM * DIM * sizeof(float));
  cudaMalloc(&B2, DIM * DIM * sizeof(float));
  cudaMalloc(&C2, DIM * DIM * sizeof(float));
  dim3 b16(16, 16), g16((n + 15) / 16, (n + 15) / 16);
  gemm_ab<<<g16, b16>>>(A, B, C, n, n, n, 1.5f, 0.5f);
  gemm_xy_at<<<dim3((n + 31) / 32, (n + 7) / 8), dim3(32, 8)>>>(A, B, C, n, n, n);
  gemm_macros<<<dim3((n + 31) / 32, (n + 31) / 32), dim3(32, 32)>>>(n, n, n, 1.5, 0.5, dA, dB, dC);
  gemm_sizet<<<g16, b16>>>(A, B, C, n, n, n, 0.5f);
  mm_2d<<<dim3(4, 4), b16>>>(A2, B2, C2);
  syrk_lower<<<g16, b16>>>(A, C, n, n, 2.0f);
  hellinger_like<<<g16, b16>>>(A, B, C, n, n, n);
  linear_gelu<<<dim3((n + 127) / 128, n), dim3(128, 1)>>>(A, B, x, C, n, n, n);
  gemm_const_stride<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(A, B, C, n, n, n);
  trmm_lower<<<g16, b16>>>(A, B, C, n);
  mm_weighted<<<g16, b16>>>(A, B, W, C, n);
  mm_partial<<<g16, b16>>>(A, B, C, P, n);
  mm_masked<<<g16, b16>>>(A, B, C, mask, n);
  mm_tiled<<<g16, b16>>>(A, B, C, n);
  matvec<<<(n + 255) / 256, 256>>>(A, x, y, n);
}
#endif
