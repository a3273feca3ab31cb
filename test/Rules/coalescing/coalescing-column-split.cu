// coalescing-column-split: one thread per column walking every row gets the
// rows split across the threads of a block, partial sums combined in shared
// memory in a fixed order, and a grid blockDim.x / 8 times larger.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-column-split' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-column-split' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-column-split' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// Option Columns: 32 columns per block (whole 128-byte lines).
// RUN: cp %s %t/c32.cu && printf 'CheckOptions:\n  coalescing-column-split.Columns: 32\n' > %t/c32.yaml
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-column-split' --config-file=%t/c32.yaml --fix --allow-unverified %t/c32.cu > /dev/null 2>&1
// RUN: grep -v '// CHECK' %t/c32.cu | FileCheck --check-prefix=C32 %s
// C32: const unsigned int cudal1_seg = cudal1_t / 32u;
// C32: int j = blockIdx.x * 32u + cudal1_t % 32u;
// C32: colmean<<<((m + 255) / 256) * 8, 256>>>(data, mean, m, n);
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

#define DATA_TYPE float
#define NROWS 4096
#define NCOLS 2048

// The column mean: 1-D block of 256, grid x32.
__global__ void colmean(const float *data, float *mean, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++)
      s += data[i * m + j];
    mean[j] = s / n;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: one thread per column walks every row ('data[i * m + j]' over 'i') with only 2048 threads{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: grid multiplied by 32 at this launch
// FIX: "description": "split each column's rows across the block: 8 columns per block
// FIX: "exactness": "reassociating"
// CHECK-FIXES:      // cuda-l1 coalescing-column-split: 8 columns per block, the block's threads split the rows
// CHECK-FIXES-NEXT: // (partial sums combined in shared memory in a fixed order).
// CHECK-FIXES-NEXT: const unsigned int cudal1_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
// CHECK-FIXES-NEXT: const unsigned int cudal1_seg = cudal1_t / 8u;
// CHECK-FIXES-NEXT: const unsigned int cudal1_nseg = blockDim.x * blockDim.y * blockDim.z / 8u;
// CHECK-FIXES-NEXT: __shared__ float cudal1_part_s[1024];
// CHECK-FIXES-NEXT: int j = blockIdx.x * 8u + cudal1_t % 8u;
// CHECK-FIXES-NEXT: if (j < m) {
// CHECK-FIXES-NEXT:   float s = 0;
// CHECK-FIXES-NEXT:   for (int i = 0 + (int)cudal1_seg; i < n; i += (int)cudal1_nseg)
// CHECK-FIXES-NEXT:     s += data[i * m + j];
// CHECK-FIXES-NEXT:   cudal1_part_s[cudal1_t] = s;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: if (cudal1_seg == 0u && (j < m)) {
// CHECK-FIXES-NEXT:   float s = 0;
// CHECK-FIXES-NEXT:   s = cudal1_part_s[cudal1_t];
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q)
// CHECK-FIXES-NEXT:     s += cudal1_part_s[cudal1_t + 8u * cudal1_q];
// CHECK-FIXES-NEXT:   mean[j] = s / n;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: }

// A 2-D block whose y index is never read: the 8 duplicate threads of a
// column become row segments; two accumulators, macros for the type and
// the sizes, a sqrt epilogue.
__global__ void colstats(DATA_TYPE *data, DATA_TYPE *mean, DATA_TYPE *stddev) {
  int col = threadIdx.x + blockIdx.x * blockDim.x;
  if (col < NCOLS) {
    DATA_TYPE sum = 0.0f, sq = 0.0f;
    for (int row = 0; row < NROWS; ++row) {
      DATA_TYPE v = data[row * NCOLS + col];
      sum += v;
      sq += v * v;
    }
    DATA_TYPE mu = sum / NROWS;
    mean[col] = mu;
    stddev[col] = sqrtf(sq / NROWS - mu * mu);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:7: warning: one thread per column walks every row ('data[row * NCOLS + col]' over 'row'){{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: grid multiplied by 4 at this launch
// CHECK-FIXES:      __shared__ DATA_TYPE cudal1_part_sum[1024];
// CHECK-FIXES-NEXT: __shared__ DATA_TYPE cudal1_part_sq[1024];
// CHECK-FIXES-NEXT: int col = blockIdx.x * 8u + cudal1_t % 8u;
// CHECK-FIXES-NEXT: if (col < NCOLS) {
// CHECK-FIXES-NEXT:   DATA_TYPE sum = 0.0f, sq = 0.0f;
// CHECK-FIXES-NEXT:   for (int row = 0 + (int)cudal1_seg; row < NROWS; row += (int)cudal1_nseg) {
// CHECK-FIXES-NEXT:     DATA_TYPE v = data[row * NCOLS + col];
// CHECK-FIXES-NEXT:     sum += v;
// CHECK-FIXES-NEXT:     sq += v * v;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   cudal1_part_sum[cudal1_t] = sum;
// CHECK-FIXES-NEXT:   cudal1_part_sq[cudal1_t] = sq;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: if (cudal1_seg == 0u && (col < NCOLS)) {
// CHECK-FIXES-NEXT:   DATA_TYPE sum = 0.0f, sq = 0.0f;
// CHECK-FIXES-NEXT:   sum = cudal1_part_sum[cudal1_t];
// CHECK-FIXES-NEXT:   sq = cudal1_part_sq[cudal1_t];
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q) {
// CHECK-FIXES-NEXT:     sum += cudal1_part_sum[cudal1_t + 8u * cudal1_q];
// CHECK-FIXES-NEXT:     sq += cudal1_part_sq[cudal1_t + 8u * cudal1_q];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   DATA_TYPE mu = sum / NROWS;
// CHECK-FIXES-NEXT:   mean[col] = mu;
// CHECK-FIXES-NEXT:   stddev[col] = sqrtf(sq / NROWS - mu * mu);
// CHECK-FIXES-NEXT: }

// The transposed matrix-vector product with a bias (a start other than
// zero: segment 0 keeps it), `alpha *` epilogue, early return, size_t
// indices.
__global__ void gemv_t(const float *A, const float *r, const float *b, float *g, size_t m, size_t n, float alpha) {
  size_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  float acc = b[j];
  for (size_t i = 0; i < m; ++i)
    acc += A[i * n + j] * r[i];
  g[j] = alpha * acc;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: one thread per column walks every row ('A[i * n + j]' over 'i'){{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: grid multiplied by 16 at this launch
// CHECK-FIXES:      size_t j = (size_t)blockIdx.x * 8u + cudal1_t % 8u;
// CHECK-FIXES-NEXT: if (!(j >= n)) {
// CHECK-FIXES-NEXT:   float acc = b[j];
// CHECK-FIXES-NEXT:   if (cudal1_seg != 0u) {
// CHECK-FIXES-NEXT:     acc = 0;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   for (size_t i = 0 + (size_t)cudal1_seg; i < m; i += (size_t)cudal1_nseg)
// CHECK-FIXES-NEXT:     acc += A[i * n + j] * r[i];
// CHECK-FIXES-NEXT:   cudal1_part_acc[cudal1_t] = acc;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: if (cudal1_seg == 0u && !(j >= n)) {
// CHECK-FIXES-NEXT:   float acc = b[j];
// CHECK-FIXES-NEXT:   acc = cudal1_part_acc[cudal1_t];
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q)
// CHECK-FIXES-NEXT:     acc += cudal1_part_acc[cudal1_t + 8u * cudal1_q];
// CHECK-FIXES-NEXT:   g[j] = alpha * acc;
// CHECK-FIXES-NEXT: }

// A fixed-size array parameter read as A[i][j]; integer sums: bitwise.
__global__ void colsum_int(const int A[][512], long long *out, int rows) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  long long s = 0;
  for (int i = 0; i < rows; i++) {
    s += A[i][j];
  }
  out[j] = s;
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: one thread per column walks every row ('A[i][j]' over 'i'){{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: grid multiplied by 16 at this launch
// FIX: "exactness": "bitwise"
// CHECK-FIXES:      int j = blockIdx.x * 8u + cudal1_t % 8u;
// CHECK-FIXES-NEXT: long long s = 0;
// CHECK-FIXES-NEXT: {
// CHECK-FIXES-NEXT:   for (int i = 0 + (int)cudal1_seg; i < rows; i += (int)cudal1_nseg) {
// CHECK-FIXES-NEXT:     s += A[i][j];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   cudal1_part_s[cudal1_t] = s;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: if (cudal1_seg == 0u) {
// CHECK-FIXES-NEXT:   s = cudal1_part_s[cudal1_t];
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q)
// CHECK-FIXES-NEXT:     s += cudal1_part_s[cudal1_t + 8u * cudal1_q];
// CHECK-FIXES-NEXT:   out[j] = s;
// CHECK-FIXES-NEXT: }

// A triangular column walk (rows from the column down), a second pass
// after the loop that overwrites the column (Gram-Schmidt's projection):
// it runs once per column after every segment has read the column.
__global__ void project(float *A, const float *__restrict__ q, float *R, int k, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if ((j > k) && (j < n)) {
    float dot = 0.0f;
    for (int i = k; i <= m - 1; i++)
      dot += q[i] * A[i * n + j];
    R[k * n + j] = dot;
    for (int i = 0; i < m; i++)
      A[i * n + j] = A[i * n + j] - q[i] * dot;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:7: warning: one thread per column walks every row ('A[i * n + j]' over 'i'){{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: grid multiplied by 16 at this launch
// CHECK-FIXES:      if ((j > k) && (j < n)) {
// CHECK-FIXES-NEXT:   float dot = 0.0f;
// CHECK-FIXES-NEXT:   for (int i = k + (int)cudal1_seg; i <= m - 1; i += (int)cudal1_nseg)
// CHECK-FIXES-NEXT:     dot += q[i] * A[i * n + j];
// CHECK-FIXES-NEXT:   cudal1_part_dot[cudal1_t] = dot;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: if (cudal1_seg == 0u && ((j > k) && (j < n))) {
// CHECK-FIXES-NEXT:   float dot = 0.0f;
// CHECK-FIXES-NEXT:   dot = cudal1_part_dot[cudal1_t];
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q)
// CHECK-FIXES-NEXT:     dot += cudal1_part_dot[cudal1_t + 8u * cudal1_q];
// CHECK-FIXES-NEXT:   R[k * n + j] = dot;
// CHECK-FIXES-NEXT:   cudal1_part_dot[cudal1_t] = dot;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: if ((j > k) && (j < n)) {
// CHECK-FIXES-NEXT:   float dot = 0.0f;
// CHECK-FIXES-NEXT:   dot = cudal1_part_dot[cudal1_t % 8u];
// CHECK-FIXES-NEXT:   for (int i = 0 + (int)cudal1_seg; i < m; i += (int)cudal1_nseg)
// CHECK-FIXES-NEXT:     A[i * n + j] = A[i * n + j] - q[i] * dot;
// CHECK-FIXES-NEXT: }

// The same projection with the column's mean taken first: a declaration
// before the row loop runs again in every segment (it reads only the sum);
// the loop is under a #pragma and walks `size_t` rows.
__global__ void center(float *__restrict__ X, float *__restrict__ mean, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    float s = 0.0f;
    for (int i = 0; i < m; i++)
      s += X[i * n + j];
    mean[j] = s / m;
    const float mu = s / m;
#pragma unroll 4
    for (size_t i = 0; i < (size_t)m; ++i)
      X[i * n + j] -= mu;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:7: warning: one thread per column walks every row ('X[i * n + j]' over 'i'){{.*}} [coalescing-column-split]
// CHECK-FIXES:      if (cudal1_seg == 0u && (j < n)) {
// CHECK-FIXES:        mean[j] = s / m;
// CHECK-FIXES-NEXT:   cudal1_part_s[cudal1_t] = s;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: if (j < n) {
// CHECK-FIXES-NEXT:   float s = 0.0f;
// CHECK-FIXES-NEXT:   s = cudal1_part_s[cudal1_t % 8u];
// CHECK-FIXES-NEXT:   const float mu = s / m;
// CHECK-FIXES-NEXT: #pragma unroll 4
// CHECK-FIXES-NEXT:   for (size_t i = 0 + (size_t)cudal1_seg; i < (size_t)m; i += (size_t)cudal1_nseg)
// CHECK-FIXES-NEXT:     X[i * n + j] -= mu;
// CHECK-FIXES-NEXT: }

// A forward substitution with one thread per right-hand side: row i's sum
// over the rows before it is split in each iteration of the row loop (its
// bounds are the same in every thread), which ends with a barrier: the next
// row reads what segment 0 stored.
__global__ void fwd_subst(const float *__restrict__ L, const float *__restrict__ B, float *__restrict__ Y,
                          int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int i = 0; i < n; i++) {
    float s = B[i * nrhs + c];
    for (int k = 0; k < i; k++)
      s -= L[i * n + k] * Y[k * nrhs + c];
    Y[i * nrhs + c] = s / L[i * n + i];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: one thread per column walks every row ('Y[k * nrhs + c]' over 'k'){{.*}} [coalescing-column-split]
// CHECK-FIXES:      int c = blockIdx.x * 8u + cudal1_t % 8u;
// CHECK-FIXES-NEXT: for (int i = 0; i < n; i++) {
// CHECK-FIXES-NEXT:   if (!(c >= nrhs)) {
// CHECK-FIXES-NEXT:     float s = B[i * nrhs + c];
// CHECK-FIXES-NEXT:     if (cudal1_seg != 0u) {
// CHECK-FIXES-NEXT:       s = 0;
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:     for (int k = 0 + (int)cudal1_seg; k < i; k += (int)cudal1_nseg)
// CHECK-FIXES-NEXT:       s -= L[i * n + k] * Y[k * nrhs + c];
// CHECK-FIXES-NEXT:     cudal1_part_s[cudal1_t] = s;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   if (cudal1_seg == 0u && !(c >= nrhs)) {
// CHECK-FIXES-NEXT:     float s = B[i * nrhs + c];
// CHECK-FIXES-NEXT:     s = cudal1_part_s[cudal1_t];
// CHECK-FIXES-NEXT:     for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q)
// CHECK-FIXES-NEXT:       s += cudal1_part_s[cudal1_t + 8u * cudal1_q];
// CHECK-FIXES-NEXT:     Y[i * nrhs + c] = s / L[i * n + i];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT: }

// The row loop's trip count depends on the column (a barrier in it would
// not be reached by every thread), or it breaks out: no fix.
__global__ void fwd_subst_ragged(const float *__restrict__ L, float *__restrict__ Y, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int i = 0; i < c % n; i++) {
    float s = 0.0f;
    for (int k = 0; k < i; k++)
      s -= L[i * n + k] * Y[k * nrhs + c];
    Y[i * nrhs + c] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: no fix: the loop is nested in a loop whose trip count may differ between threads
__global__ void fwd_subst_break(const float *__restrict__ L, float *__restrict__ Y, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < i; k++)
      s -= L[i * n + k] * Y[k * nrhs + c];
    Y[i * nrhs + c] = s;
    if (s > 1e30f)
      break;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: no fix: the loop around the sums returns, breaks or continues

// Sums over loads that are not a column (an n-body step: x[j] is the same
// for every thread) in a launch known to have few threads (16 blocks of
// 256): split the same way, for the parallelism.
__global__ void accel(const float *__restrict__ x, const float *__restrict__ m, float *__restrict__ ax,
                      float *__restrict__ ay, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sx = 0.0f, sy = 0.0f;
    for (int j = 0; j < n; j++) {
      float d = x[j] - x[i];
      sx += d * m[j];
      sy += d * d;
    }
    ax[i] = sx;
    ay[i] = sy;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:7: warning: each thread sums a loop over 'j' ('x[j]') with only 4096 threads: too few loads in flight{{.*}} [coalescing-column-split]
// CHECK-FIXES:      for (int j = 0 + (int)cudal1_seg; j < n; j += (int)cudal1_nseg) {
// The same with a launch whose size is not known here: no finding (its
// loads are not a column walk; the gain would be the parallelism alone).
__global__ void accel_any(const float *__restrict__ x, const float *__restrict__ m, float *__restrict__ ax, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sx = 0.0f;
    for (int j = 0; j < n; j++)
      sx += (x[j] - x[i]) * m[j];
    ax[i] = sx;
  }
}

// The row loop changes a variable declared outside it (only segment 0
// would run the code after the sums that changes it): no fix.
__global__ void fwd_subst_len(const float *__restrict__ L, float *__restrict__ Y, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int len = 0;
  if (c >= nrhs)
    return;
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < len; k++)
      s -= L[i * n + k] * Y[k * nrhs + c];
    Y[i * nrhs + c] = s;
    len += 2;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: no fix: the loop around the sums changes 'len', declared outside it

// Row loops after the sums that stay in one thread per column (the rest of
// the split applies): a row reads the element another row writes (a
// running update down the column), a declaration before the loop reads
// memory that a store before the loop changes, a buffer the loop writes is
// not proven distinct from one it reads.
__global__ void cumulate(float *__restrict__ X, float *__restrict__ out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    float s = 0.0f;
    for (int i = 0; i < m; i++)
      s += X[i * n + j];
    out[j] = s;
    for (int i = 1; i < m; i++)
      X[i * n + j] += X[(i - 1) * n + j] * s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: the row loop after the sums stays in one thread per column: it reads 'X[(i - 1) * n + j]', which is not a parameter's element or is an element of a written buffer that its iteration does not write
// CHECK-FIXES:      if (cudal1_seg == 0u && (j < n)) {
// CHECK-FIXES:        out[j] = s;
// CHECK-FIXES-NEXT:   for (int i = 1; i < m; i++)
// CHECK-FIXES-NEXT:     X[i * n + j] += X[(i - 1) * n + j] * s;
// CHECK-FIXES-NEXT: }

__global__ void rescale(float *__restrict__ X, float *__restrict__ out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    float s = 0.0f;
    for (int i = 0; i < m; i++)
      s += X[i * n + j];
    const float old = out[j];
    out[j] = s;
    for (int i = 0; i < m; i++)
      X[i * n + j] *= old;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: the row loop after the sums stays in one thread per column: the declaration 'const float old = out[j];' before it cannot run again in every segment
// CHECK-FIXES:        const float old = out[j];
// CHECK-FIXES-NEXT:   out[j] = s;
// CHECK-FIXES-NEXT:   for (int i = 0; i < m; i++)
// CHECK-FIXES-NEXT:     X[i * n + j] *= old;
// CHECK-FIXES-NEXT: }

// A way out of the kernel before the row loop (segment 0 must reach the
// second barrier), and a declaration before the sums that reads memory
// the code after them stores to: the row loop stays in segment 0.
__global__ void normalize_or_skip(float *__restrict__ X, float *__restrict__ nrm, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    float ss = 0.0f;
    for (int i = 0; i < m; i++)
      ss += X[i * n + j] * X[i * n + j];
    nrm[j] = ss;
    if (ss == 0.0f)
      return;
    const float inv = rsqrtf(ss);
    for (int i = 0; i < m; i++)
      X[i * n + j] *= inv;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-9]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: the row loop after the sums stays in one thread per column: 'if (ss == 0.0f)
__global__ void rescale_by_old(float *__restrict__ X, float *__restrict__ diag, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    const float d = diag[j];
    float dot = 0.0f;
    for (int i = 0; i < m; i++)
      dot += X[i * n + j];
    diag[j] = dot;
    for (int i = 0; i < m; i++)
      X[i * n + j] /= d;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: the row loop after the sums stays in one thread per column: the declaration 'const float d = diag[j];' reads memory that the code after the sums may store to before the split loop

__global__ void project_alias(float *A, const float *q, float *R, int k, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if ((j > k) && (j < n)) {
    float dot = 0.0f;
    for (int i = 0; i < m; i++)
      dot += q[i] * A[i * n + j];
    R[k * n + j] = dot;
    for (int i = 0; i < m; i++)
      A[i * n + j] -= q[i] * dot;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: assumes 'A' and 'q' do not overlap (not proven: the fix needs --verify=run)
// CHECK-MESSAGES: note: no fix: {{.*}} is not proven correct here

// --- no finding: good code -----------------------------------------------

// A row walk (warp-per-row's pattern), not a column walk.
__global__ void rowsum(const float *A, float *out, int m, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) {
    float s = 0;
    for (int c = 0; c < n; c++)
      s += A[r * n + c];
    out[r] = s;
  }
}

// Already split: threads along y share the rows of a column.
__global__ void colsum_split(const float *data, float *out, int m, int n) {
  __shared__ float part[8][32];
  int j = blockIdx.x * 32 + threadIdx.x;
  float s = 0;
  for (int i = threadIdx.y; i < n; i += 8)
    if (j < m)
      s += data[i * m + j];
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && j < m) {
    for (int y = 1; y < 8; y++)
      s += part[y][threadIdx.x];
    out[j] = s;
  }
}

// Enough threads: the launch below has 4096 x 256 threads.
__global__ void colsum_wide(const float *data, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++)
      s += data[i * m + j];
    out[j] = s;
  }
}

// A few rows (a constant trip count below MinRows): nothing to split.
__global__ void colsum_short(const float *data, float *out, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < 16; i++)
      s += data[i * m + j];
    out[j] = s;
  }
}

// Two thread indices (a matrix product): coalescing-matmul-tile's pattern.
__global__ void matmul(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    float s = 0;
    for (int k = 0; k < n; k++)
      s += A[row * n + k] * B[k * n + col];
    C[row * n + col] = s;
  }
}

// --- findings without a fix --------------------------------------------------

// The block size is a parameter of the host function.
__global__ void colsum_bs(const float *data, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++)
      s += data[i * m + j];
    out[j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: no fix: the block size at the launch at {{.*}} is not a compile-time constant; the split needs a constant block

// Nested in another loop whose trip count depends on the column
// (covariance's products of column pairs).
__global__ void covar(const float *data, float *cov, int m, int n) {
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 < n) {
    for (int j2 = j1; j2 < n; j2++) {
      float s = 0;
      for (int i = 0; i < m; i++)
        s += data[i * n + j1] * data[i * n + j2];
      cov[j1 * n + j2] = s;
    }
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:9: warning: one thread per column walks every row ('data[i * n + j1]' over 'i'){{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: no fix: the loop is nested in a loop whose trip count may differ between threads

// The loop stores besides the sum.
__global__ void colsum_store(float *data, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++) {
      s += data[i * m + j];
      data[i * m + j] = s;
    }
    out[j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: no fix: the loop does more than accumulate: 'data[i * m + j] = s'

// blockDim.x read outside the column's declaration.
__global__ void colsum_bdim(const float *data, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++)
      s += data[i * m + j];
    out[j] = s / blockDim.x;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: no fix: the kernel reads threadIdx/blockIdx/blockDim/gridDim other than in the declaration of 'j'

// A block of 100 threads: not a multiple of 8 columns.
__global__ void colsum_100(const float *data, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++)
      s += data[i * m + j];
    out[j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: one thread per column walks every row{{.*}} [coalescing-column-split]
// CHECK-MESSAGES: note: no fix: the block's x-extent 100 is not a multiple of 8

#ifndef __CUDACC_RTC__
void run(const float *data, float *mean, DATA_TYPE *dm, DATA_TYPE *sd, const float *A, const float *r, const float *b,
         float *g, const int (*Ai)[512], long long *outi, float *Ag, const float *q, float *R, float *out, int m,
         int n, int bs) {
  colmean<<<(m + 255) / 256, 256>>>(data, mean, m, n);
  dim3 block(32, 8);
  dim3 grid((NCOLS + 31) / 32);
  colstats<<<grid, block>>>(dm, dm, sd);
  gemv_t<<<dim3((n + 127) / 128), dim3(128)>>>(A, r, b, g, m, n, 0.5f);
  colsum_int<<<4, 128>>>(Ai, outi, m);
  project<<<(n + 127) / 128, 128>>>(Ag, q, R, 3, m, n);
  center<<<(n + 127) / 128, 128>>>(Ag, out, m, n);
  cumulate<<<(n + 127) / 128, 128>>>(Ag, out, m, n);
  rescale<<<(n + 127) / 128, 128>>>(Ag, out, m, n);
  project_alias<<<(n + 127) / 128, 128>>>(Ag, q, R, 3, m, n);
  fwd_subst<<<(n + 127) / 128, 128>>>(A, b, g, m, n);
  accel<<<16, 256>>>(A, b, g, out, 4096);
  fwd_subst_len<<<(n + 127) / 128, 128>>>(A, g, m, n);
  normalize_or_skip<<<(n + 127) / 128, 128>>>(Ag, out, m, n);
  rescale_by_old<<<(n + 127) / 128, 128>>>(Ag, out, m, n);
  fwd_subst_ragged<<<(n + 127) / 128, 128>>>(A, g, m, n);
  fwd_subst_break<<<(n + 127) / 128, 128>>>(A, g, m, n);
  colsum_split<<<(m + 31) / 32, dim3(32, 8)>>>(data, out, m, n);
  colsum_wide<<<4096, 256>>>(data, out, 4096 * 256, n);
  colsum_short<<<(m + 255) / 256, 256>>>(data, out, m);
  matmul<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(A, A, g, n);
  colsum_bs<<<(m + bs - 1) / bs, bs>>>(data, out, m, n);
  covar<<<(n + 255) / 256, 256>>>(data, g, m, n);
  colsum_store<<<(m + 255) / 256, 256>>>(g, out, m, n);
  colsum_bdim<<<(m + 255) / 256, 256>>>(data, out, m, n);
  colsum_100<<<(m + 99) / 100, 100>>>(data, out, m, n);
}
// Sizes no call gives (accel_any's and rowsum's launches).
void run_any(const float *A, const float *b, float *g, float *out, int m, int n) {
  accel_any<<<(n + 255) / 256, 256>>>(A, b, g, n);
  rowsum<<<(m + 255) / 256, 256>>>(A, out, m, n);
}
// The sizes every launch above runs with (2048 columns, 4096 rows): few
// threads. With sizes not known, only the findings with a fix would be
// reported (coalescing-column-split-unknown.cu).
void drive() {
  run(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
      nullptr, nullptr, NCOLS, NROWS, 128);
}
#endif
// The launches: grids multiplied by blockDim.x / 8, blocks unchanged.
// CHECK-FIXES:      colmean<<<((m + 255) / 256) * 32, 256>>>(data, mean, m, n);
// CHECK-FIXES:      colstats<<<dim3((grid).x * 4, (grid).y, (grid).z), block>>>(dm, dm, sd);
// CHECK-FIXES-NEXT: gemv_t<<<dim3((dim3((n + 127) / 128)).x * 16, (dim3((n + 127) / 128)).y, (dim3((n + 127) / 128)).z), dim3(128)>>>(A, r, b, g, m, n, 0.5f);
// CHECK-FIXES-NEXT: colsum_int<<<(4) * 16, 128>>>(Ai, outi, m);
// CHECK-FIXES-NEXT: project<<<((n + 127) / 128) * 16, 128>>>(Ag, q, R, 3, m, n);
// CHECK-FIXES-NEXT: center<<<((n + 127) / 128) * 16, 128>>>(Ag, out, m, n);
// CHECK-FIXES-NEXT: cumulate<<<((n + 127) / 128) * 16, 128>>>(Ag, out, m, n);
// CHECK-FIXES-NEXT: rescale<<<((n + 127) / 128) * 16, 128>>>(Ag, out, m, n);
// CHECK-FIXES-NEXT: project_alias<<<(n + 127) / 128, 128>>>(Ag, q, R, 3, m, n);
// CHECK-FIXES-NEXT: fwd_subst<<<((n + 127) / 128) * 16, 128>>>(A, b, g, m, n);
// CHECK-FIXES-NEXT: accel<<<(16) * 32, 256>>>(A, b, g, out, 4096);
// CHECK-FIXES-NEXT: fwd_subst_len<<<(n + 127) / 128, 128>>>(A, g, m, n);
// CHECK-FIXES-NEXT: normalize_or_skip<<<((n + 127) / 128) * 16, 128>>>(Ag, out, m, n);
// CHECK-FIXES-NEXT: rescale_by_old<<<((n + 127) / 128) * 16, 128>>>(Ag, out, m, n);
// CHECK-FIXES-NEXT: fwd_subst_ragged<<<(n + 127) / 128, 128>>>(A, g, m, n);
// CHECK-FIXES-NEXT: fwd_subst_break<<<(n + 127) / 128, 128>>>(A, g, m, n);
