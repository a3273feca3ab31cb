// coalescing-warp-per-row: row-walking kernels get one warp per row and a shuffle reduction.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-warp-per-row' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-warp-per-row' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-warp-per-row' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void matvec(const float *A, const float *x, float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row into 'sum': a warp per row {{.*}} [coalescing-warp-per-row]
// CHECK-MESSAGES: note: grid multiplied by 32 at this launch
// CHECK-MESSAGES: note: grid multiplied by 32 at this launch
// FIX: "description": "one warp per row
// FIX: "exactness": "reassociating"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
// CHECK-FIXES-NEXT: const unsigned int cudal1_lane = threadIdx.x % 32u;
// CHECK-FIXES-NEXT: if (row < M) {
// CHECK-FIXES-NEXT:   float sum = 0.0f;
// CHECK-FIXES-NEXT:   for (int k = 0 + (int)cudal1_lane; k < N; k += 32)
// CHECK-FIXES-NEXT:     sum += A[row * N + k] * x[k];
// CHECK-FIXES-NEXT:   for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:     sum += __shfl_down_sync(0xffffffffu, sum, cudal1_o);
// CHECK-FIXES-NEXT:   if (cudal1_lane == 0) {
// CHECK-FIXES-NEXT:     y[row] = sum;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

// Integer row sums with an early exit: bitwise.
__global__ void rowsum_int(const int *A, long long *out, int M, int N) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= M)
    return;
  long long s = 0;
  for (int k = 0; k < N; k++) {
    s += A[r * N + k];
  }
  out[r] = s;
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: each thread sums its own row into 's'{{.*}} [coalescing-warp-per-row]
// CHECK-MESSAGES: note: grid multiplied by 32 at this launch
// FIX: "description": "one warp per row
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      for (int k = 0 + (int)cudal1_lane; k < N; k += 32) {
// CHECK-FIXES-NEXT:   s += A[r * N + k];
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:   s += __shfl_down_sync(0xffffffffu, s, cudal1_o);
// CHECK-FIXES-NEXT: if (cudal1_lane == 0) {
// CHECK-FIXES-NEXT:   out[r] = s;
// CHECK-FIXES-NEXT: }

// The accumulator starts from the bias: lane 0 keeps it, the other lanes
// start from zero.
__global__ void matvec_bias(const float *A, const float *x, const float *b,
                            float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = b[row];
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row{{.*}} [coalescing-warp-per-row]
// CHECK-FIXES:      float sum = b[row];
// CHECK-FIXES-NEXT: if (cudal1_lane != 0u)
// CHECK-FIXES-NEXT:   sum = 0;
// CHECK-FIXES-NEXT: for (int k = 0 + (int)cudal1_lane; k < N; k += 32)
// CHECK-FIXES-NEXT:   sum += A[row * N + k] * x[k];
// CHECK-FIXES-NEXT: for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:   sum += __shfl_down_sync(0xffffffffu, sum, cudal1_o);
// CHECK-FIXES-NEXT: if (cudal1_lane == 0) {
// CHECK-FIXES-NEXT:   y[row] = sum;
// CHECK-FIXES-NEXT: }

// gesummv style: alpha and beta factors after the loop (lane 0 runs them),
// size_t indices, a bound from a macro.
#define NCOLS 2048
__global__ void gesummv(const float *A, const float *x, float *y, float alpha,
                        float beta, size_t M) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M) {
    float t = 0.0f;
    for (size_t j = 0; j < NCOLS; j++)
      t += A[i * NCOLS + j] * x[j];
    y[i] = alpha * t + beta * y[i];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row into 't'{{.*}} [coalescing-warp-per-row]
// CHECK-FIXES:      size_t i = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
// CHECK-FIXES:      for (size_t j = 0 + (size_t)cudal1_lane; j < NCOLS; j += 32)
// CHECK-FIXES-NEXT:   t += A[i * NCOLS + j] * x[j];
// CHECK-FIXES:      if (cudal1_lane == 0) {
// CHECK-FIXES-NEXT:   y[i] = alpha * t + beta * y[i];
// CHECK-FIXES-NEXT: }

// A fixed-size 2-D array read as A[row][k], long indices, early exit.
__global__ void matvec_2d(const float A[][512], const float *x, float *y,
                          long M) {
  long row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M)
    return;
  float s = 0;
  for (long k = 0; k < 512; ++k)
    s += A[row][k] * x[k];
  y[row] = s;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: each thread sums its own row into 's'{{.*}} [coalescing-warp-per-row]
// CHECK-FIXES:      long row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
// CHECK-FIXES:      for (long k = 0 + (long)cudal1_lane; k < 512; k += 32)
// CHECK-FIXES-NEXT:   s += A[row][k] * x[k];

// Refused: the initial value calls a user function (it would run in all
// 32 lanes).
__device__ float start_of(float *log, int r) {
  log[r] += 1.0f;
  return 0.5f;
}
__global__ void matvec_call(const float *A, const float *x, float *y,
                            float *log, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = start_of(log, row);
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row{{.*}} [coalescing-warp-per-row]
// CHECK-MESSAGES: note: no fix: the accumulator's initial value calls a function or assigns

// Refused: the row length differs per row (a triangular walk).
__global__ void matvec_tri(const float *A, const float *x, float *y, int M,
                           int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < row; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row{{.*}} [coalescing-warp-per-row]
// CHECK-MESSAGES: note: no fix: the loop bounds differ between threads

// Not a row walk: a loop-carried dependence through the accumulator is not
// a sum of independent terms.
__global__ void matvec_carried(const float *A, float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 1.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * sum;
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row{{.*}} [coalescing-warp-per-row]
// CHECK-MESSAGES: note: no fix: the summed expression calls user functions, assigns, or reads the accumulator

// Refused: 100-thread blocks are not whole warps.
__global__ void matvec_100(const float *A, const float *x, float *y, int M,
                           int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row{{.*}} [coalescing-warp-per-row]
// CHECK-MESSAGES: note: no fix: the block's x-extent 100 is not a multiple of 32 (a warp must stay in one row)

// A batch of matrix-vector products: the block's y index picks the batch
// (dim3(32, 4)); a warp keeps one batch, so a warp per row still applies.
__global__ void matvec_batched(const float *A, const float *x, float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[(b * M + row) * N + k] * x[b * N + k];
    y[b * M + row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row{{.*}} [coalescing-warp-per-row]
// CHECK-FIXES:      void matvec_batched(
// CHECK-FIXES-NEXT: int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
// CHECK-FIXES-NEXT: const unsigned int cudal1_lane = threadIdx.x % 32u;
// CHECK-FIXES-NEXT: int b = blockIdx.y * blockDim.y + threadIdx.y;

// Refused: the thread index is used again (a grid-stride write).
__global__ void matvec_extra(const float *A, const float *x, float *y,
                             float *flag, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  flag[threadIdx.x] = 0.0f;
  float sum = 0.0f;
  for (int k = 0; k < N; ++k)
    sum += A[row * N + k] * x[k];
  y[row] = sum;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: each thread sums its own row{{.*}} [coalescing-warp-per-row]
// CHECK-MESSAGES: note: no fix: the kernel uses the x thread or block index other than in one 'row = blockIdx.x * blockDim.x + threadIdx.x'

// Refused: a 32x8 block whose y index the kernel never reads (8 threads per
// row do the same work): launch-redundant-threads makes the launch
// one-dimensional first.
__global__ void matvec_xonly(const float *A, const float *x, float *y, int M,
                             int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row{{.*}} [coalescing-warp-per-row]
// CHECK-MESSAGES: note: no fix: the block is 32x8 but the kernel reads only threadIdx.x: 8 threads per element do the same work (launch-redundant-threads launches each once; with a one-dimensional block this rule applies)

// A `#pragma unroll` before the loop (the user's, or unrolling-param-bound's
// in an earlier round): the replacement starts with the lane-strided loop,
// which the pragma then applies to.
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
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row into 'sum'{{.*}} [coalescing-warp-per-row]
// CHECK-FIXES:      #pragma unroll 4
// CHECK-FIXES-NEXT: for (int k = 0 + (int)cudal1_lane; k < N; k += 32)
// CHECK-FIXES-NEXT:   sum += A[row * N + k] * x[k];
// CHECK-FIXES-NEXT: for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)

// Refused: with a pragma before the loop, the reset of the other lanes'
// accumulator (it starts at y[row], kept by lane 0 only) would come between
// the pragma and its loop.
__global__ void matvec_pragma_rmw(const float *A, const float *x, float *y,
                                  int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = y[row];
#pragma unroll 2
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row into 'sum'{{.*}} [coalescing-warp-per-row]
// CHECK-MESSAGES: note: no fix: the loop carries a '#pragma' and its accumulator does not start at zero (the lanes' reset would come between them)

// Rows of fewer than 32 elements, a constant (3-D points): a warp's rows
// are one contiguous span that the three iterations use up, and a warp per
// row would leave 29 lanes idle. No finding. Rows of 32 or more: reported.
__global__ void nearest3(const float *p, const float *q, float *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < 3; j++)
      s += (p[i * 3 + j] - q[j]) * (p[i * 3 + j] - q[j]);
    d[i] = s;
  }
}
__global__ void rows32(const float *p, const float *q, float *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < 32; j++)
      s += p[i * 32 + j] * q[j];
    d[i] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: each thread sums its own row into 's'{{.*}} [coalescing-warp-per-row]

#ifndef __CUDACC_RTC__
int main() {
  float *A, *x, *y, *b, *flag;
  int *Ai;
  long long *out;
  int M = 4096, N = 4096;
  cudaMalloc(&A, M * N * sizeof(float));
  cudaMalloc(&Ai, M * N * sizeof(int));
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, M * sizeof(float));
  cudaMalloc(&b, M * sizeof(float));
  cudaMalloc(&flag, 256 * sizeof(float));
  cudaMalloc(&out, M * sizeof(long long));
  dim3 grid((M + 255) / 256);
  matvec<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
  matvec<<<grid, 256>>>(A, x, y, M, N);
  rowsum_int<<<M / 128, 128>>>(Ai, out, M, N);
  matvec_bias<<<(M + 255) / 256, 256>>>(A, x, b, y, M, N);
  gesummv<<<(M + 255) / 256, 256>>>(A, x, y, 1.5f, 0.5f, (size_t)M);
  float (*A2)[512];
  cudaMalloc(&A2, M * 512 * sizeof(float));
  matvec_2d<<<(M + 255) / 256, 256>>>(A2, x, y, M);
  matvec_call<<<(M + 255) / 256, 256>>>(A, x, y, flag, M, N);
  matvec_tri<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
  matvec_carried<<<(M + 255) / 256, 256>>>(A, y, M, N);
  matvec_100<<<(M + 99) / 100, 100>>>(A, x, y, M, N);
  matvec_extra<<<M / 256, 256>>>(A, x, y, flag, M, N);
  dim3 gb((M + 31) / 32, 2);
  matvec_batched<<<gb, dim3(32, 4)>>>(A, x, y, M, N);
  matvec_xonly<<<(M + 31) / 32, dim3(32, 8)>>>(A, x, y, M, N);
  matvec_pragma<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
  matvec_pragma_rmw<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
  return 0;
}
#endif
// CHECK-FIXES: matvec<<<((M + 255) / 256) * 32, 256>>>(A, x, y, M, N);
// CHECK-FIXES-NEXT: matvec<<<dim3((grid).x * 32, (grid).y, (grid).z), 256>>>(A, x, y, M, N);
// CHECK-FIXES-NEXT: rowsum_int<<<(M / 128) * 32, 128>>>(Ai, out, M, N);
// CHECK-FIXES: matvec_pragma<<<((M + 255) / 256) * 32, 256>>>(A, x, y, M, N);
// CHECK-FIXES-NEXT: matvec_pragma_rmw<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
