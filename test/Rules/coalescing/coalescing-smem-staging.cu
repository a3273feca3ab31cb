// coalescing-smem-staging: row-walking kernels stage the rows in a padded shared-memory tile.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  coalescing-smem-staging.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-smem-staging' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-smem-staging' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-smem-staging' --format=json %s | FileCheck --check-prefix=FIX %s
// Without the option the rewrite is left to --verify=run (it is not faster
// everywhere): plain --fix does not apply it.
// RUN: cp %s %t/m.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-smem-staging' --fix --allow-unverified %t/m.cu 2>&1 | FileCheck --check-prefix=MEASURE %s
// RUN: diff %s %t/m.cu
// MEASURE: fix not applied: offered for GPU verification only
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

// Naive matrix-vector product: one thread per row, guarded by if (row < M).
__global__ void matvec(const float *A, const float *x, float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:14: warning: each thread walks its own row: the lanes of a warp read 'A[row * N + k]' {{.*}} [coalescing-smem-staging]
// CHECK-MESSAGES: note: the row loop
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'A' and 'y'
// FIX: "description": "stage rows of 'A' in a 256x32 shared-memory tile (+1 padding column)
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": true
// CHECK-FIXES:      int row = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT: const bool cudal1_active0 = (row < M);
// CHECK-FIXES-NEXT: __shared__ bool cudal1_loads[256];
// CHECK-FIXES-NEXT: cudal1_loads[threadIdx.x] = cudal1_active0;
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: {
// CHECK-FIXES-NEXT:   float sum = 0.0f;
// CHECK-FIXES-NEXT:   for (int cudal1_k0 = 0; cudal1_k0 < N; cudal1_k0 += 32) { // cuda-l1 coalescing-smem-staging: rows of 'A' staged through shared memory
// CHECK-FIXES-NEXT:     __shared__ float cudal1_tile[256][32 + 1];
// CHECK-FIXES-NEXT:     {
// CHECK-FIXES-NEXT:       float cudal1_v[32];
// CHECK-FIXES-NEXT:       #pragma unroll
// CHECK-FIXES-NEXT:       for (unsigned int cudal1_i = 0; cudal1_i < 32u; ++cudal1_i) {
// CHECK-FIXES-NEXT:         const unsigned int cudal1_r = cudal1_i * (256u / 32u) + threadIdx.x / 32u;
// CHECK-FIXES-NEXT:         const int cudal1_c = cudal1_k0 + (int)(threadIdx.x % 32u);
// CHECK-FIXES-NEXT:         cudal1_v[cudal1_i] = cudal1_loads[cudal1_r] && cudal1_c < N ? A[((int)(blockIdx.x * blockDim.x + cudal1_r)) * N + cudal1_c] : float();
// CHECK-FIXES-NEXT:       }
// CHECK-FIXES-NEXT:       __syncthreads();
// CHECK-FIXES-NEXT:       #pragma unroll
// CHECK-FIXES-NEXT:       for (unsigned int cudal1_i = 0; cudal1_i < 32u; ++cudal1_i)
// CHECK-FIXES-NEXT:         cudal1_tile[cudal1_i * (256u / 32u) + threadIdx.x / 32u][threadIdx.x % 32u] = cudal1_v[cudal1_i];
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:     __syncthreads();
// CHECK-FIXES-NEXT:     if (cudal1_active0) {
// CHECK-FIXES-NEXT:       const int cudal1_kend = cudal1_k0 + 32 < N ? cudal1_k0 + 32 : N;
// CHECK-FIXES-NEXT:       for (int k = cudal1_k0; k < cudal1_kend; ++k)
// CHECK-FIXES-NEXT:         sum += cudal1_tile[threadIdx.x][k - cudal1_k0] * x[k];
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   if (cudal1_active0) {
// CHECK-FIXES-NEXT:     y[row] = sum;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

// Early-exit form, 128-thread blocks, loop from a parameter offset, braces.
__global__ void matvec_early_exit(const float *A, const float *x, float *y,
                                  int M, int N, int k0) {
  int row = threadIdx.x + blockDim.x * blockIdx.x;
  if (row >= M)
    return;
  float sum = 0.0f;
  for (int k = k0; k < N; k++) {
    sum += A[row * N + k] * x[k];
  }
  y[row] = sum;
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:12: warning: each thread walks its own row:{{.*}} [coalescing-smem-staging]
// FIX: "description": "stage rows of 'A' in a 128x32 shared-memory tile
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": true
// CHECK-FIXES:      int row = threadIdx.x + blockDim.x * blockIdx.x;
// CHECK-FIXES-NEXT: const bool cudal1_active0 = !(row >= M);
// CHECK-FIXES-NEXT: __shared__ bool cudal1_loads[128];
// CHECK-FIXES-NEXT: cudal1_loads[threadIdx.x] = cudal1_active0;
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: float sum = 0.0f;
// CHECK-FIXES:          for (int k = cudal1_k0; k < cudal1_kend; ++k) {
// CHECK-FIXES-NEXT:       sum += cudal1_tile[threadIdx.x][k - cudal1_k0] * x[k];
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES:      if (cudal1_active0) {
// CHECK-FIXES-NEXT:   y[row] = sum;
// CHECK-FIXES-NEXT: }

// Refused: the block size is not a compile-time constant.
__global__ void runtime_block(const float *A, const float *x, float *y, int M,
                              int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:14: warning: each thread walks its own row:{{.*}} [coalescing-smem-staging]
// CHECK-MESSAGES: note: no fix: the block size at the launch at {{.*}} ('threads') is not a compile-time constant; the shared-memory tile needs a constant block size

// Refused: the guard reads memory, so threads past it cannot run on.
__global__ void masked(const float *A, const float *x, const int *mask,
                       float *y, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[row] == 0)
    return;
  float sum = 0.0f;
  for (int k = 0; k < N; ++k)
    sum += A[row * N + k] * x[k];
  y[row] = sum;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:12: warning: each thread walks its own row:{{.*}} [coalescing-smem-staging]
// CHECK-MESSAGES: note: no fix: the early return's condition reads memory

// Refused: code between the guard and the loop reads memory.
__global__ void bias_first(const float *A, const float *x, const float *b,
                           float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = b[row];
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:14: warning: each thread walks its own row:{{.*}} [coalescing-smem-staging]
// CHECK-MESSAGES: note: no fix: 'float sum = b[row];' runs only for threads inside the guard; it would have to run in every thread

// Refused: the same buffer is the matrix and the output.
__global__ void in_place(const float *A, const float *x, float *y, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < N; ++k)
    sum += A[row * N + k] * x[k];
  y[row] = sum;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:12: warning: each thread walks its own row:{{.*}} [coalescing-smem-staging]
// CHECK-MESSAGES: note: no fix: 'A' and 'y' alias: the launch at {{.*}} passes 'A' for both

// Refused: the loop bound depends on the thread (triangular solve-like).
__global__ void triangular(const float *__restrict__ A, const float *x,
                           float *__restrict__ y, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < row; ++k)
    sum += A[row * N + k] * x[k];
  y[row] = sum;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:12: warning: each thread walks its own row:{{.*}} [coalescing-smem-staging]
// CHECK-MESSAGES: note: no fix: the loop bounds differ between threads of a block

// A block of 100 threads (not a multiple of the 32-column tile): the loader
// walks the tile in a strided loop instead of one unrolled batch of loads.
__global__ void matvec100(const float *A, const float *x, float *y, int M,
                          int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:14: warning: each thread walks its own row:{{.*}} [coalescing-smem-staging]
// FIX: "description": "stage rows of 'A' in a 100x32 shared-memory tile
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": true
// CHECK-FIXES:      cudal1_loads[threadIdx.x] = cudal1_active0;
// CHECK-FIXES-NEXT: {
// CHECK-FIXES:          __shared__ float cudal1_tile[100][32 + 1];
// CHECK-FIXES-NEXT:     __syncthreads();
// CHECK-FIXES-NEXT:     for (unsigned int cudal1_t = threadIdx.x; cudal1_t < 100u * 32u; cudal1_t += 100u) {
// CHECK-FIXES-NEXT:       const unsigned int cudal1_r = cudal1_t / 32u;
// CHECK-FIXES-NEXT:       const int cudal1_c = cudal1_k0 + (int)(cudal1_t % 32u);
// CHECK-FIXES-NEXT:       if (cudal1_loads[cudal1_r] && cudal1_c < N)

// Already coalesced (column walk: A[k * M + row]): no finding.
__global__ void matvec_transposed(const float *A, const float *x, float *y,
                                  int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[k * M + row] * x[k];
    y[row] = sum;
  }
}

// Refused: a 32x8 block whose y index the kernel never reads (8 threads per
// row do the same work): launch-redundant-threads makes the launch
// one-dimensional first.
__global__ void matvec_2d(const float *A, const float *x, float *y, int M,
                          int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:14: warning: each thread walks its own row{{.*}} [coalescing-smem-staging]
// CHECK-MESSAGES: note: the row loop
// CHECK-MESSAGES: note: no fix: the block is 32x8 but the kernel reads only threadIdx.x: 8 threads per element do the same work (launch-redundant-threads launches each once; with a one-dimensional block this rule applies)

// A `#pragma unroll` before the loop: the replacement starts with the tile
// loop, which the pragma then applies to.
__global__ void matvec_pragma(const float *A, const float *x, float *y, int M,
                              int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
#pragma unroll 4
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:14: warning: each thread walks its own row: the lanes of a warp read 'A[row * N + k]' {{.*}} [coalescing-smem-staging]
// CHECK-MESSAGES: note: the row loop
// CHECK-FIXES:      #pragma unroll 4
// CHECK-FIXES-NEXT: for (int cudal1_k0 = 0; cudal1_k0 < N; cudal1_k0 += 32) { // cuda-l1 coalescing-smem-staging: rows of 'A' staged through shared memory

// Not reported: rows of 3 floats (12 bytes, shorter than a sector; seen in
// third-party code: mean shift over 3-D points). The warp's 32 rows are 12
// contiguous sectors, each used by the loop.
constexpr int D3 = 3;
__global__ void points(const float *__restrict__ p, float *__restrict__ out,
                       int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float s = 0.0f;
    for (int j = 0; j < D3; ++j)
      s += p[row * D3 + j];
    out[row] = s;
  }
}

#ifndef __CUDACC_RTC__
int main(int argc, char **) {
  float *A, *x, *y, *b;
  int *mask;
  int M = 1000, N = 1000, threads = 64 * argc;
  cudaMalloc(&A, M * N * sizeof(float));
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, M * sizeof(float));
  cudaMalloc(&b, M * sizeof(float));
  cudaMalloc(&mask, M * sizeof(int));
  matvec<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
  matvec_early_exit<<<(M + 127) / 128, 128>>>(A, x, y, M, N, 3);
  runtime_block<<<(M + threads - 1) / threads, threads>>>(A, x, y, M, N);
  masked<<<4, 256>>>(A, x, mask, y, N);
  points<<<4, 256>>>(A, y, M);
  bias_first<<<4, 256>>>(A, x, b, y, M, N);
  in_place<<<4, 256>>>(A, x, A, N);
  triangular<<<4, 256>>>(A, x, y, N);
  matvec_transposed<<<4, 256>>>(A, x, y, M, N);
  matvec100<<<(M + 99) / 100, 100>>>(A, x, y, M, N);
  matvec_2d<<<(M + 31) / 32, dim3(32, 8)>>>(A, x, y, M, N);
  matvec_pragma<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
  return 0;
}
#endif
