// launch-small-grid: a grid with fewer blocks than the GPU has SMs, for a kernel that loops over
// its data.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-grid' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-grid' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void axpy(float a, const float *__restrict__ x,
                     float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

void launch(const float *x, float *y, int n) {
  axpy<<<16, 256>>>(2.0f, x, y, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 16 blocks keeps only 16 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  axpy<<<120, 256>>>(2.0f, x, y, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 120 blocks keeps only 120 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  // Negative: 128 blocks leave 4 SMs (3%, under MinIdlePercent = 5) idle.
  axpy<<<128, 256>>>(2.0f, x, y, n);
  axpy<<<264, 256>>>(2.0f, x, y, n);
  axpy<<<(n + 255) / 256, 256>>>(2.0f, x, y, n);
}

// Negative: a fixed amount of work whatever the problem size. The loops of
// this one-block kernel (an LU factorisation's diagonal tile) are bounded by
// a constant and, inside it, by the outer induction variable; a bound that
// is min() with a constant is fixed too.
#define TILE 16
__global__ void diagonal(float *m, int dim, int offset) {
  __shared__ float t[TILE][TILE];
  for (int i = 0; i < TILE; i++)
    t[i][threadIdx.x] = m[(offset + i) * dim + offset + threadIdx.x];
  __syncthreads();
  for (int i = 0; i < TILE - 1; i++) {
    if (threadIdx.x > i) {
      for (int j = 0; j < i; j++)
        t[threadIdx.x][i] -= t[threadIdx.x][j] * t[j][i];
      t[threadIdx.x][i] /= t[i][i];
    }
    __syncthreads();
  }
  const int rows = min(dim - offset, TILE);
  for (int i = 0; i < rows; i++)
    m[(offset + i) * dim + offset + threadIdx.x] = t[i][threadIdx.x];
}

// Negative: the second pass of a two-pass reduction. The first kernel
// writes one partial sum per block (only thread 0, at blockIdx.x); the
// one-block kernel sums as many values as the first grid has blocks.
__global__ void partial_sums(const float *__restrict__ in,
                             float *__restrict__ partial, int n) {
  __shared__ float s[256];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s[0];
}

__global__ void final_sum(const float *__restrict__ partial,
                          float *__restrict__ out, int blocks) {
  __shared__ float s[256];
  float v = 0.0f;
  for (int i = threadIdx.x; i < blocks; i += blockDim.x)
    v += partial[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = s[0];
}

// Positive: loops bounded only from above by something large, or not at
// all: min() with a huge constant, a difference with an unknown value.
__global__ void capped(const float *__restrict__ in, float *__restrict__ out,
                       int n) {
  const int count = min(n, 1 << 24);
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    out[i] = in[i];
  for (int j = 0; j < 16 - min(n, 0); j++)
    out[j] += 1.0f;
}

// Positive: launches that only look like a second pass. A kernel writing
// one scalar (the same address for every block); a per-block buffer that
// the one-block kernel reads but does not loop over; a producer launched
// after the one-block kernel.
__global__ void zero(float *acc) { *acc = 0.0f; }
__global__ void whole_sum(const float *in, float *acc, int n) {
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += in[i];
  atomicAdd(acc, v);
}
__global__ void rows(const float *__restrict__ in, float *__restrict__ p,
                     int n) {
  if (threadIdx.x == 0)
    for (int k = 0; k < n; ++k)
      p[blockIdx.x * n + k] = in[blockIdx.x * n + k];
}
__global__ void wrapped(float *out) {
  for (unsigned i = 0; i < 16; ++i)
    for (int j = 0; j < i - 1; ++j)
      out[j] += 1.0f;
}
__global__ void scale_by(float *x, const float *partial, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    x[i] /= partial[0];
}

void reduce(const float *in, float *partial, float *out, int n, int dim,
            int offset) {
  diagonal<<<1, TILE>>>(out, dim, offset);
  capped<<<1, 256>>>(in, out, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  zero<<<1, 1>>>(out);
  whole_sum<<<1, 256>>>(in, out, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  partial_sums<<<(n + 255) / 256, 256>>>(in, partial, n);
  scale_by<<<1, 256>>>(out, partial, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  final_sum<<<1, 256>>>(out, partial, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  partial_sums<<<(n + 255) / 256, 256>>>(in, out, n);
  // Positive: an unsigned bound that wraps below zero is not small.
  wrapped<<<1, 32>>>(out);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  int blocks = (n + 255) / 256;
  partial_sums<<<blocks, 256>>>(in, partial, n);
  final_sum<<<1, 256>>>(partial, out, blocks);
  // Positive: the same one-block kernel over the whole input (a buffer no
  // launch here writes per block) leaves 131 SMs idle.
  final_sum<<<1, 256>>>(in, out, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
}

// Negative: the second pass in a helper that the caller calls after the
// first pass (the helper's 'part' is the caller's 'partial'). Positive:
// the same helper called with a buffer the caller's launch did not fill.
static void finish(const float *part, float *res, int m) {
  final_sum<<<1, 256>>>(part, res, m);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
}
void two_pass(const float *in, float *partial, float *out, int n) {
  partial_sums<<<(n + 255) / 256, 256>>>(in, partial, n);
  finish(partial, out, (n + 255) / 256);
}
void not_two_pass(const float *in, float *partial, float *out, int n) {
  partial_sums<<<(n + 255) / 256, 256>>>(in, partial, n);
  finish(in, out, n);
}

// Negative: a second pass that stores its result in the partials' buffer
// (`partial[0] = sum` after the loop). Positive: a one-block scan that
// writes the buffer in its loop over the data.
__global__ void sum_in_place(float *partial, int blocks) {
  float v = 0.0f;
  for (int i = 0; i < blocks; ++i)
    v += partial[i];
  partial[0] = v;
}
__global__ void scan_in_place(float *partial, int blocks) {
  for (int i = 1; i < blocks; ++i)
    partial[i] += partial[i - 1];
}
void in_place(const float *in, float *partial, int n) {
  int blocks = (n + 255) / 256;
  partial_sums<<<blocks, 256>>>(in, partial, n);
  sum_in_place<<<1, 1>>>(partial, blocks);
  partial_sums<<<blocks, 256>>>(in, partial, n);
  scan_in_place<<<1, 1>>>(partial, blocks);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
}

// Positive: a row per block that grows with n is not a partial result.
void grown(const float *in, float *p, float *out, int n) {
  rows<<<n, 32>>>(in, p, n);
  final_sum<<<1, 256>>>(p, out, n * n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
}

// Negative, seen in third-party code (a test of system-wide atomics): every
// thread updates the same few counters in its loop; the atomic unit
// serialises them, and more blocks would only add contention. A spin lock
// is the same. Positive: a loop that also reads the data, or whose atomics
// go to per-thread or per-block addresses.
__global__ void hammer(int *counters, int iters) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < iters; ++i) {
    atomicAdd(&counters[0], 10);
    atomicMax(&counters[2], tid);
    atomicCAS(&counters[6], tid - 1, tid);
  }
}
__global__ void spin(int *lock, float *out) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  out[blockIdx.x] = 1.0f;
  atomicExch(lock, 0);
}
__global__ void count_big(const float *in, int *count, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    if (in[i] > 0.0f)
      atomicAdd(count, 1);
}
// Positive: a search that counts its rare hits does its work in arithmetic.
__global__ void search(int *found, unsigned key, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    if ((unsigned)i * 2654435761u == key)
      atomicAdd(found, 1);
}
__global__ void per_thread_atomics(int *counters, int iters) {
  for (int i = 0; i < iters; ++i)
    atomicAdd(&counters[threadIdx.x], i);
}
void atomics(const float *in, int *counters, float *out, int n) {
  hammer<<<64, 256>>>(counters, n);
  spin<<<64, 1>>>(counters, out);
  count_big<<<1, 256>>>(in, counters, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  search<<<1, 256>>>(counters, 12345u, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  per_thread_atomics<<<1, 256>>>(counters, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
}

// Finding only: the file is not changed.
// CHECK-FIXES: axpy<<<16, 256>>>(2.0f, x, y, n);
